import type { V1MutatingWebhookConfiguration } from '@kubernetes/client-node';
import {
  EXCLUDE_LABEL,
  SYSTEM_NAMESPACE,
  WEBHOOK_CONFIGURATION,
  WEBHOOK_NAME,
  WEBHOOK_PATH,
  WEBHOOK_SERVICE,
} from '../markers.js';
import { labels } from './labels.js';
import type { ZeroValues } from './values.js';

/** Set by the API server on every namespace (Kubernetes 1.21+), so namespaces can be selected by name. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

/**
 * `svc-zero` (SPEC 2.8, 3.2): pods, CREATE only, and never blocking: `failurePolicy: Ignore`, so an unreachable or
 * slow operator means the pod is created uninstrumented after at most `timeoutSeconds`.
 *
 * - namespaceSelector keeps the API server from calling at all for svc-system (the operator's own pods must start
 *   without it), namespaces labelled `svc.io/exclude=true`, and `webhook.excludedNamespaces` (kube-system by default:
 *   cluster-critical pods should not wait on an add-on).
 * - No objectSelector: the pod marker `svc.io/exclude` is an annotation, which selectors cannot see, so the webhook
 *   checks it. Adding a label-based twin would invent a second marker the SPEC does not define.
 * - reinvocationPolicy IfNeeded: when a later webhook (a service mesh) changes the pod, the API server calls again, so
 *   a pod is also judged in its final form; one already marked `svc.io/injected` is left as it is, so a second call
 *   never injects twice.
 * - matchPolicy Equivalent: pods reached through any equivalent API version are still seen.
 * - clientConfig has no caBundle here: the operator generates its CA and patches the bundle in (and keeps it current
 *   across rotations); until then the call fails TLS and, with Ignore, pods are created uninstrumented.
 */
export function mutatingWebhookConfiguration(values: ZeroValues): V1MutatingWebhookConfiguration {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: WEBHOOK_CONFIGURATION, labels: labels('webhook') },
    webhooks: [
      {
        name: WEBHOOK_NAME,
        admissionReviewVersions: ['v1'],
        clientConfig: {
          service: { name: WEBHOOK_SERVICE, namespace: SYSTEM_NAMESPACE, path: WEBHOOK_PATH, port: 443 },
        },
        rules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: 'Namespaced' },
        ],
        failurePolicy: 'Ignore',
        sideEffects: 'None',
        timeoutSeconds: values.webhook.timeoutSeconds,
        reinvocationPolicy: 'IfNeeded',
        matchPolicy: 'Equivalent',
        namespaceSelector: {
          matchExpressions: [
            { key: EXCLUDE_LABEL, operator: 'NotIn', values: ['true'] },
            {
              key: NAMESPACE_NAME_LABEL,
              operator: 'NotIn',
              values: [SYSTEM_NAMESPACE, ...values.webhook.excludedNamespaces],
            },
          ],
        },
      },
    ],
  };
}
