/**
 * A watched resource: client-node's informer (list, then watch from the list's resourceVersion; on 410 it lists
 * again by itself) plus what it leaves to its user — restarting after any other error (connection refused, 403, the
 * CRD not installed yet) with capped exponential backoff, and telling when the first list has arrived.
 */
import {
  makeInformer,
  type Informer,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type ObjectCache,
} from '@kubernetes/client-node';
import { describeApiError } from '../kube/errors.js';
import type { Logger } from '../log.js';

export interface Watched<T extends KubernetesObject> {
  /** Objects as of the last event (empty before the first list). */
  cache: ObjectCache<T>;
  /** True once the first list succeeded. */
  readonly synced: boolean;
  /** Resolves when the first list succeeded. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export interface WatchOptions<T extends KubernetesObject> {
  kubeConfig: KubeConfig;
  /** For logs, e.g. `pods`. */
  name: string;
  /** The watch path, e.g. `/api/v1/pods`. */
  path: string;
  list: () => Promise<KubernetesListObject<T>>;
  /** Called for every add, update and delete (also those a relist finds). */
  onChange: (object: T) => void;
  log: Logger;
  retry: { initialMs: number; maxMs: number };
}

export function watchResource<T extends KubernetesObject>(options: WatchOptions<T>): Watched<T> {
  const { log, retry, name } = options;
  let synced = false;
  let stopped = false;
  let delay = retry.initialMs;
  let timer: NodeJS.Timeout | undefined;
  let lastProblem: string | undefined;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  const informer: Informer<T> & ObjectCache<T> = makeInformer(options.kubeConfig, options.path, async () => {
    const list = await options.list();
    // A successful list means the API answers again: forget the backoff, report recovery once.
    delay = retry.initialMs;
    if (lastProblem) log.info(`watching ${name} again`, { resource: name });
    lastProblem = undefined;
    if (!synced) {
      synced = true;
      // The informer fills its cache after this function returns; resolve once it has.
      setImmediate(markReady);
    }
    return list;
  });
  for (const event of ['add', 'update', 'delete'] as const) informer.on(event, (object) => options.onChange(object));

  const start = () => {
    if (stopped) return;
    informer.start().catch(onError);
  };
  function onError(error: unknown): void {
    // Stopping aborts the open watch, which the informer reports as an error.
    if (stopped) return;
    const problem = describeApiError(error, `watching ${name}`);
    // The same failure every few seconds (the CRD not installed yet) is logged once, then at debug level.
    log.log(problem === lastProblem ? 'debug' : 'warn', problem, { resource: name, retryInMs: delay });
    lastProblem = problem;
    clearTimeout(timer);
    timer = setTimeout(start, delay);
    delay = Math.min(delay * 2, retry.maxMs);
  }
  informer.on('error', onError);
  start();

  return {
    cache: informer,
    get synced() {
      return synced;
    },
    ready,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await informer.stop();
    },
  };
}
