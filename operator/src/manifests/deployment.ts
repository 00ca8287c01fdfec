import type { V1Deployment, V1Probe, V1Service } from '@kubernetes/client-node';
import { OPERATOR_NAME, SYSTEM_NAMESPACE, WEBHOOK_SERVICE } from '../markers.js';
import { labels, selectorLabels } from './labels.js';
import { operatorEnv } from './operator-env.js';
import { operatorImage, type ZeroValues } from './values.js';

const COMPONENT = 'operator';
/** Named port: the Service, the probes and the container refer to it by name, so a changed number stays consistent. */
const WEBHOOK_PORT_NAME = 'webhook';
/** A non-root UID, numeric so the kubelet can verify runAsNonRoot without reading the image (distroless `nonroot`). */
const RUN_AS = 65532;

// Probes go to the webhook's own HTTPS server: ready means it serves TLS with a certificate, which is what the API
// server needs; the kubelet does not verify the certificate.
const probe = (path: string, periodSeconds: number, failureThreshold: number): V1Probe => ({
  httpGet: { path, port: WEBHOOK_PORT_NAME, scheme: 'HTTPS' },
  periodSeconds,
  timeoutSeconds: 2,
  failureThreshold,
});

/**
 * `svc-zero-operator`: one replica (the controller writes status and rotates certificates; the webhook answers in
 * milliseconds). Rolling updates surge a new pod before removing the old one, so pods created during an upgrade still
 * reach a webhook. Security context passes Pod Security `restricted`.
 */
export function deployment(values: ZeroValues): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE, labels: labels(COMPONENT) },
    spec: {
      replicas: 1,
      revisionHistoryLimit: 3,
      selector: { matchLabels: selectorLabels(COMPONENT) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: labels(COMPONENT) },
        spec: {
          serviceAccountName: OPERATOR_NAME,
          automountServiceAccountToken: true,
          securityContext: {
            runAsNonRoot: true,
            runAsUser: RUN_AS,
            runAsGroup: RUN_AS,
            seccompProfile: { type: 'RuntimeDefault' },
          },
          containers: [
            {
              name: 'operator',
              image: operatorImage(values),
              imagePullPolicy: values.image.pullPolicy,
              env: operatorEnv(values),
              ports: [{ name: WEBHOOK_PORT_NAME, containerPort: values.webhook.port, protocol: 'TCP' }],
              readinessProbe: probe('/readyz', 5, 3),
              livenessProbe: { ...probe('/healthz', 10, 3), initialDelaySeconds: 10 },
              resources: {
                requests: { ...values.resources.requests },
                limits: { ...values.resources.limits },
              },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ['ALL'] },
              },
            },
          ],
        },
      },
    },
  };
}

/** `svc-zero-webhook`: what the API server calls (port 443, the webhook configuration's default). */
export function service(): V1Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: WEBHOOK_SERVICE, namespace: SYSTEM_NAMESPACE, labels: labels('webhook') },
    spec: {
      type: 'ClusterIP',
      selector: selectorLabels(COMPONENT),
      ports: [{ name: 'https', port: 443, targetPort: WEBHOOK_PORT_NAME, protocol: 'TCP' }],
    },
  };
}
