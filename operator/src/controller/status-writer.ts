/**
 * Writes an SvcInstrumentation's status through the status subresource as a merge patch. An object deleted since the
 * cache saw it has nothing to report on; any other failure names the object and what the API server said.
 */
import { PatchStrategy, setHeaderOptions, type CustomObjectsApi } from '@kubernetes/client-node';
import { apiStatusOf, describeApiError } from '../kube/errors.js';
import { CRD_GROUP, CRD_PLURAL, CRD_VERSION } from '../markers.js';
import type { ReconcilerOptions } from './reconciler.js';

export function statusWriter(custom: CustomObjectsApi): ReconcilerOptions['writeStatus'] {
  const crd = { group: CRD_GROUP, version: CRD_VERSION, plural: CRD_PLURAL };
  return async (namespace, name, status) => {
    try {
      await custom.patchNamespacedCustomObjectStatus(
        { ...crd, namespace, name, body: { status } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    } catch (error) {
      if (apiStatusOf(error)?.code === 404) return;
      throw new Error(
        describeApiError(error, `updating the status of SvcInstrumentation ${name} in namespace ${namespace}`),
        { cause: error },
      );
    }
  };
}
