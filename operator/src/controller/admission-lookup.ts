/**
 * The webhook's view of namespaces and SvcInstrumentations, answered from the controller's watch caches. Before the
 * caches have synced, or for a namespace the namespace cache has not seen yet (created a moment ago, its watch event
 * still on the way), it asks the API server, cancelling the request when the webhook's deadline aborts `signal`.
 */
import type { CoreV1Api, CustomObjectsApi, V1Namespace } from '@kubernetes/client-node';
import type { AdmissionLookup } from '../cluster/lookup.js';
import { apiStatusOf } from '../kube/errors.js';
import { withSignal } from '../kube/signal.js';
import { CRD_GROUP, CRD_PLURAL, CRD_VERSION } from '../markers.js';
import type { SvcInstrumentation } from '../resource/types.js';
import type { Watched } from './informers.js';
import { chooseInstrumentation } from './instrumentation.js';

export interface LookupSources {
  namespaces: Watched<V1Namespace>;
  instrumentations: Watched<SvcInstrumentation & { kind: string }>;
  core: CoreV1Api;
  custom: CustomObjectsApi;
}

export function cachedLookup(sources: LookupSources): AdmissionLookup {
  const { namespaces, instrumentations, core, custom } = sources;
  const seen = (name: string) => namespaces.synced && namespaces.cache.get(name) !== undefined;

  return {
    async namespace(name, signal) {
      const cached = namespaces.synced ? namespaces.cache.get(name) : undefined;
      if (cached) return cached;
      signal.throwIfAborted();
      try {
        return await core.readNamespace({ name }, withSignal(signal));
      } catch (error) {
        if (apiStatusOf(error)?.code === 404) return undefined;
        throw error;
      }
    },

    async instrumentation(namespace, signal) {
      if (instrumentations.synced && seen(namespace))
        return chooseInstrumentation(instrumentations.cache.list(namespace));
      signal.throwIfAborted();
      try {
        const list = (await custom.listNamespacedCustomObject(
          { group: CRD_GROUP, version: CRD_VERSION, namespace, plural: CRD_PLURAL },
          withSignal(signal),
        )) as {
          items?: SvcInstrumentation[];
        };
        return chooseInstrumentation(list.items ?? []);
      } catch (error) {
        // 404 without a NotFound Status: the CRD is not installed, so no namespace has an instrumentation.
        if (apiStatusOf(error)?.code === 404) return undefined;
        throw error;
      }
    },
  };
}
