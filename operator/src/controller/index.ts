/**
 * The svc-zero controller: watches namespaces, Deployments, StatefulSets, DaemonSets, pods and SvcInstrumentations;
 * keeps each SvcInstrumentation's status current (counts, Ready condition, per-workload detection and state); logs
 * `discovered N workloads` and one detection line per workload when results change; and answers the webhook's
 * lookups from its caches.
 */
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  PatchStrategy,
  setHeaderOptions,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1DaemonSet,
  type V1Deployment,
  type V1Namespace,
  type V1Pod,
  type V1StatefulSet,
} from '@kubernetes/client-node';
import type { AdmissionLookup } from '../cluster/lookup.js';
import { apiStatusOf, describeApiError } from '../kube/errors.js';
import type { Logger } from '../log.js';
import { CRD_GROUP, CRD_PLURAL, CRD_VERSION } from '../markers.js';
import type { OperatorSettings, SvcInstrumentation } from '../resource/types.js';
import { cachedLookup } from './admission-lookup.js';
import { watchResource, type Watched } from './informers.js';
import { NamespaceQueue } from './queue.js';
import { Reconciler } from './reconciler.js';

export interface ControllerOptions {
  kubeConfig: KubeConfig;
  log: Logger;
  settings: OperatorSettings;
  /** For conditions' lastTransitionTime (default: the system clock). */
  clock?: () => Date;
  /** Every instrumented namespace is re-evaluated this often even without events (default 10 minutes). */
  resyncIntervalMs?: number;
  /** Backoff for failed watches and reconciles (default 1 s doubling to 60 s). */
  retry?: { initialMs: number; maxMs: number };
  /** Quiet period that batches a burst of events into one reconcile per namespace (default 100 ms). */
  debounceMs?: number;
}

export interface Controller {
  /** For the admission webhook: answers from the caches, or from the API server until they have synced. */
  lookup: AdmissionLookup;
  /** Resolves once every watch has listed and the first reconcile of every instrumented namespace is done. */
  synced(): Promise<void>;
  /** Resolves when no reconcile is queued or running (tests and graceful shutdown). */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

type Instrumentation = SvcInstrumentation & KubernetesObject & { kind: string };

export async function startController(options: ControllerOptions): Promise<Controller> {
  const { kubeConfig, settings } = options;
  const log = options.log.child({ component: 'controller' });
  const clock = options.clock ?? (() => new Date());
  const retry = options.retry ?? { initialMs: 1000, maxMs: 60_000 };
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);

  const crd = { group: CRD_GROUP, version: CRD_VERSION, plural: CRD_PLURAL };
  const writeStatus = async (namespace: string, name: string, status: Record<string, unknown>) => {
    try {
      await custom.patchNamespacedCustomObjectStatus(
        { ...crd, namespace, name, body: { status } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      );
    } catch (error) {
      // Deleted since the cache saw it: nothing to report on.
      if (apiStatusOf(error)?.code === 404) return;
      throw new Error(
        describeApiError(error, `updating the status of SvcInstrumentation ${name} in namespace ${namespace}`),
        { cause: error },
      );
    }
  };

  const queue = new NamespaceQueue({
    reconcile: (namespace) => reconciler.reconcile(namespace),
    debounceMs: options.debounceMs ?? 100,
    retry,
    log,
  });
  const touchNamespaceOf = (object: KubernetesObject) => {
    const namespace = object.metadata?.namespace;
    if (namespace) queue.add(namespace);
  };
  const watch = <T extends KubernetesObject>(
    name: string,
    path: string,
    list: () => Promise<KubernetesListObject<T>>,
    onChange: (object: T) => void,
  ): Watched<T> => watchResource<T>({ kubeConfig, name, path, list, onChange, log, retry });

  const namespaces = watch<V1Namespace>(
    'namespaces',
    '/api/v1/namespaces',
    () => core.listNamespace(),
    (object) => queue.add(object.metadata?.name ?? ''),
  );
  const deployments = watch<V1Deployment>(
    'deployments',
    '/apis/apps/v1/deployments',
    () => apps.listDeploymentForAllNamespaces(),
    touchNamespaceOf,
  );
  const statefulSets = watch<V1StatefulSet>(
    'statefulsets',
    '/apis/apps/v1/statefulsets',
    () => apps.listStatefulSetForAllNamespaces(),
    touchNamespaceOf,
  );
  const daemonSets = watch<V1DaemonSet>(
    'daemonsets',
    '/apis/apps/v1/daemonsets',
    () => apps.listDaemonSetForAllNamespaces(),
    touchNamespaceOf,
  );
  const pods = watch<V1Pod>('pods', '/api/v1/pods', () => core.listPodForAllNamespaces(), touchNamespaceOf);
  const instrumentations = watch<Instrumentation>(
    `${CRD_PLURAL}.${CRD_GROUP}`,
    `/apis/${CRD_GROUP}/${CRD_VERSION}/${CRD_PLURAL}`,
    async () => (await custom.listClusterCustomObject(crd)) as KubernetesListObject<Instrumentation>,
    touchNamespaceOf,
  );
  const all: Watched<KubernetesObject>[] = [namespaces, deployments, statefulSets, daemonSets, pods, instrumentations];

  const reconciler = new Reconciler({
    caches: {
      namespaces: namespaces.cache,
      instrumentations: instrumentations.cache,
      deployments: deployments.cache,
      statefulSets: statefulSets.cache,
      daemonSets: daemonSets.cache,
      pods: pods.cache,
    },
    settings,
    log,
    clock,
    writeStatus,
  });

  const instrumentedNamespaces = () =>
    new Set(instrumentations.cache.list().map((item) => item.metadata?.namespace ?? ''));
  // Reconciling before every cache has listed would write statuses from half the picture.
  const synced = Promise.all(all.map((watched) => watched.ready)).then(async () => {
    for (const namespace of instrumentedNamespaces()) queue.add(namespace);
    queue.open();
    await queue.idle();
    log.info('caches synced', { instrumentedNamespaces: instrumentedNamespaces().size });
  });
  const resync = setInterval(() => {
    for (const namespace of instrumentedNamespaces()) queue.add(namespace);
  }, options.resyncIntervalMs ?? 600_000);
  resync.unref();

  return {
    lookup: cachedLookup({ namespaces, instrumentations, core, custom }),
    synced: () => synced,
    idle: () => queue.idle(),
    async stop() {
      clearInterval(resync);
      queue.close();
      await Promise.all(all.map((watched) => watched.stop()));
    },
  };
}
