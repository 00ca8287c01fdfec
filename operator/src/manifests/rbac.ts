import type {
  V1ClusterRole,
  V1ClusterRoleBinding,
  V1PolicyRule,
  V1Role,
  V1RoleBinding,
  V1Secret,
  V1ServiceAccount,
} from '@kubernetes/client-node';
import {
  CRD_GROUP,
  CRD_PLURAL,
  OPERATOR_NAME,
  SYSTEM_NAMESPACE,
  WEBHOOK_CONFIGURATION,
  WEBHOOK_TLS_SECRET,
} from '../markers.js';
import { labels } from './labels.js';

const READ = ['get', 'list', 'watch'];

/**
 * Cluster-wide, the operator only reads what detection and status need, writes the status of `oti` resources, and
 * patches the caBundle of its own webhook configuration. It never writes pods or workloads: injection happens in the
 * admission response, and a restart to pick up the agent is the user's call.
 */
export const CLUSTER_RULES: V1PolicyRule[] = [
  { apiGroups: [''], resources: ['namespaces', 'pods'], verbs: READ },
  { apiGroups: ['apps'], resources: ['deployments', 'statefulsets', 'daemonsets', 'replicasets'], verbs: READ },
  { apiGroups: [CRD_GROUP], resources: [CRD_PLURAL], verbs: READ },
  // The controller writes status with a merge patch (controller/index.ts); it never replaces it.
  { apiGroups: [CRD_GROUP], resources: [`${CRD_PLURAL}/status`], verbs: ['patch'] },
  {
    apiGroups: ['admissionregistration.k8s.io'],
    resources: ['mutatingwebhookconfigurations'],
    resourceNames: [WEBHOOK_CONFIGURATION],
    verbs: ['get', 'patch'],
  },
];

/**
 * In svc-system, only the webhook's TLS Secret, by name. RBAC cannot restrict `create` by resourceNames (the name is
 * not known when the request is authorized), so instead of granting `create` on every Secret in the namespace the
 * installation creates the Secret, empty, and the operator fills it with get/update/patch (see tlsSecret()).
 */
export const NAMESPACE_RULES: V1PolicyRule[] = [
  { apiGroups: [''], resources: ['secrets'], resourceNames: [WEBHOOK_TLS_SECRET], verbs: ['get', 'update', 'patch'] },
];

export function serviceAccount(): V1ServiceAccount {
  return {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE, labels: labels('operator') },
  };
}

export function clusterRole(): V1ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: OPERATOR_NAME, labels: labels('operator') },
    rules: CLUSTER_RULES,
  };
}

export function clusterRoleBinding(): V1ClusterRoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: OPERATOR_NAME, labels: labels('operator') },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: OPERATOR_NAME },
    subjects: [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE }],
  };
}

export function role(): V1Role {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE, labels: labels('operator') },
    rules: NAMESPACE_RULES,
  };
}

export function roleBinding(): V1RoleBinding {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE, labels: labels('operator') },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: OPERATOR_NAME },
    subjects: [{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE }],
  };
}

/**
 * The webhook's TLS Secret, created empty so the operator needs no `create` permission. Type Opaque because a
 * `kubernetes.io/tls` Secret must hold a certificate from the start, and a Secret's type cannot change later. The
 * operator writes the CA and serving certificate into it; `svc-zero install` creates it only when missing and never
 * overwrites it, and `helm upgrade` leaves keys it did not render alone.
 */
export function tlsSecret(): V1Secret {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: WEBHOOK_TLS_SECRET,
      namespace: SYSTEM_NAMESPACE,
      labels: labels('webhook'),
    },
  };
}
