import type { V1Namespace } from '@kubernetes/client-node';
import type { SvcInstrumentation } from '../resource/types.js';

/**
 * What the admission webhook needs to know about a pod's namespace, answered by the controller (operator/src/controller/).
 * The controller answers from its watch caches once they have synced; before that, or for a namespace it has not seen
 * yet, it asks the API server. `signal` carries the webhook's deadline: when it aborts, the promise rejects promptly
 * so the webhook can answer `allowed` without a patch instead of holding the pod's creation.
 */
export interface AdmissionLookup {
  /** The namespace object, or undefined when it does not exist. */
  namespace(name: string, signal: AbortSignal): Promise<V1Namespace | undefined>;
  /** The namespace's SvcInstrumentation (`oti`), or undefined when it has none (or the CRD is not installed). */
  instrumentation(namespace: string, signal: AbortSignal): Promise<SvcInstrumentation | undefined>;
}
