import type { KubernetesObject } from '@kubernetes/client-node';
import { CRD_API_VERSION, CRD_KIND, CRD_PLURAL } from '../markers.js';

/**
 * REST paths of the kinds the CLI reads and writes. A fixed table rather than discovery: the CLI only touches these,
 * and it must be able to say "the CRD is not installed" instead of failing to discover the kind.
 */
const PLURALS: Record<string, { plural: string; namespaced: boolean }> = {
  'v1/Namespace': { plural: 'namespaces', namespaced: false },
  'v1/Secret': { plural: 'secrets', namespaced: true },
  'v1/Service': { plural: 'services', namespaced: true },
  'v1/ServiceAccount': { plural: 'serviceaccounts', namespaced: true },
  'apps/v1/Deployment': { plural: 'deployments', namespaced: true },
  'apiextensions.k8s.io/v1/CustomResourceDefinition': { plural: 'customresourcedefinitions', namespaced: false },
  'rbac.authorization.k8s.io/v1/ClusterRole': { plural: 'clusterroles', namespaced: false },
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': { plural: 'clusterrolebindings', namespaced: false },
  'rbac.authorization.k8s.io/v1/Role': { plural: 'roles', namespaced: true },
  'rbac.authorization.k8s.io/v1/RoleBinding': { plural: 'rolebindings', namespaced: true },
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': {
    plural: 'mutatingwebhookconfigurations',
    namespaced: false,
  },
  [`${CRD_API_VERSION}/${CRD_KIND}`]: { plural: CRD_PLURAL, namespaced: true },
};

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name?: string;
}

export interface ResourcePath {
  /** The collection (POST, list; across namespaces when none is given) or the object (GET, PUT, DELETE) when named. */
  path: string;
  /** The plural resource, for messages and RBAC hints (`secrets`, `svcinstrumentations.svc.io`). */
  resource: string;
  namespace: string | undefined;
}

export function resourcePath(ref: ObjectRef): ResourcePath {
  const type = PLURALS[`${ref.apiVersion}/${ref.kind}`];
  if (!type) throw new Error(`svc-zero does not handle ${ref.apiVersion} ${ref.kind}`);
  const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
  const root = group ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const namespace = type.namespaced ? ref.namespace : undefined;
  // A namespaced kind without a namespace is the cluster-wide collection (list across namespaces); an object needs one.
  if (type.namespaced && !namespace && ref.name) throw new Error(`${ref.kind} ${ref.name} needs a namespace`);
  const scope = namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const name = ref.name ? `/${encodeURIComponent(ref.name)}` : '';
  return {
    path: `${root}${scope}/${type.plural}${name}`,
    resource: group ? `${type.plural}.${group}` : type.plural,
    namespace,
  };
}

export function refOf(object: KubernetesObject): ObjectRef {
  return {
    apiVersion: object.apiVersion ?? '',
    kind: object.kind ?? '',
    namespace: object.metadata?.namespace,
    name: object.metadata?.name,
  };
}
