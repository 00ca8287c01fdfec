/**
 * The svc-zero controller: watches namespaces, Deployments, StatefulSets, DaemonSets, pods and SvcInstrumentations;
 * keeps each SvcInstrumentation's status current (counts, Ready condition, per-workload detection and state); logs
 * `discovered N workloads` and one detection line per workload when results change; and answers the webhook's
 * lookups from its caches.
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import type { AdmissionLookup } from '../cluster/lookup.js';
import type { Logger } from '../log.js';
import type { OperatorSettings } from '../resource/types.js';
import { cachedLookup } from './admission-lookup.js';
import { NamespaceQueue } from './queue.js';
import { Reconciler } from './reconciler.js';
import { statusWriter } from './status-writer.js';
import { watchCluster } from './watches.js';

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

export async function startController(options: ControllerOptions): Promise<Controller> {
  const { kubeConfig, settings } = options;
  const log = options.log.child({ component: 'controller' });
  const clock = options.clock ?? (() => new Date());
  const retry = options.retry ?? { initialMs: 1000, maxMs: 60_000 };
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const custom = kubeConfig.makeApiClient(CustomObjectsApi);

  const queue = new NamespaceQueue({
    reconcile: (namespace) => reconciler.reconcile(namespace),
    debounceMs: options.debounceMs ?? 100,
    retry,
    log,
  });
  const watches = watchCluster({ kubeConfig, core, apps, custom, log, retry, touched: (ns) => queue.add(ns) });
  const { namespaces, instrumentations } = watches;
  const reconciler = new Reconciler({
    caches: {
      namespaces: namespaces.cache,
      instrumentations: instrumentations.cache,
      deployments: watches.deployments.cache,
      statefulSets: watches.statefulSets.cache,
      daemonSets: watches.daemonSets.cache,
      pods: watches.pods.cache,
    },
    settings,
    log,
    clock,
    writeStatus: statusWriter(custom),
  });

  const instrumentedNamespaces = () =>
    new Set(instrumentations.cache.list().map((item) => item.metadata?.namespace ?? ''));
  // Reconciling before every cache has listed would write statuses from half the picture.
  const synced = Promise.all(watches.all.map((watched) => watched.ready)).then(async () => {
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
      await Promise.all(watches.all.map((watched) => watched.stop()));
    },
  };
}
