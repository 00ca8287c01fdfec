import type { V1Namespace } from '@kubernetes/client-node';
import { EXCLUDE_LABEL, POD_SECURITY_ENFORCE_LABEL, SYSTEM_NAMESPACE } from '../markers.js';
import { labels } from './labels.js';

/**
 * `svc-system`. The webhook's namespaceSelector already skips it by name; the exclude label says the same to anyone
 * reading the namespace, and Pod Security `restricted` holds the operator to the standard its own pods meet.
 */
export function namespace(): V1Namespace {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: SYSTEM_NAMESPACE,
      labels: { ...labels('namespace'), [EXCLUDE_LABEL]: 'true', [POD_SECURITY_ENFORCE_LABEL]: 'restricted' },
    },
  };
}
