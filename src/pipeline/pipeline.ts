import { INGEST_PATHS } from '../../wire/paths';
import { DROPPED_ITEMS_METRIC } from '../../wire/self-telemetry';
import { captureOriginals } from '../core/originals';
import { createBackoff } from './backoff';
import { createBatches, SIGNALS } from './batches';
import { SYSTEM_CLOCK } from './clock';
import { createDelivery } from './delivery';
import { createDropLedger } from './drops';
import type { TelemetryItem } from './items';
import { KeepaliveBudget } from './keepalive-budget';
import type { Signal } from './otlp-json';
import { createOutcomes, SIGNAL_OF } from './outcomes';
import { createPersistence } from './persist';
import { createPostJson } from './post-json';
import { BoundedQueue } from './queue';
import { DEFAULT_RETRY_POLICY } from './retry';
import type { Transport } from './transport';
import type { Pipeline, PipelineOptions } from './types';
import { createUnloadFlush } from './unload-flush';
import type { UnloadRoute } from './unload';

/** The SDK's own counter of records lost (wire/self-telemetry.ts), sent with the next batch after a drop. */
export { DROPPED_ITEMS_METRIC };

/**
 * The one bounded queue, the flush timer, the OTLP/JSON batches and their delivery (see docs/sdk-pipeline.md).
 *
 * Flushes run one after another, never two at once, and take every waiting record; records being sent stay counted
 * against `maxQueueSize` until their request settles. Per flush, each signal goes as one request (split into several
 * of at most ~60 KB when bigger, sent in turn). A retryable failure puts that request's records, and those of the
 * requests after it, back at the front of the queue and pauses sending until the backoff has elapsed.
 */
export function createPipeline(options: PipelineOptions): Pipeline {
  const { config, debug } = options;
  const clock = options.clock || SYSTEM_CLOCK;
  const queue = new BoundedQueue<TelemetryItem>(config.maxQueueSize);
  const drops = createDropLedger(queue, clock, debug, config.maxQueueSize);
  const [lose, reports] = drops;

  const transport: Transport | undefined =
    config.apiKey && config.serviceName && options.fetch
      ? {
          fetch: options.fetch,
          apiKey: config.apiKey,
          timeoutMs: config.requestTimeoutMs,
          budget: new KeepaliveBudget(),
          clock,
        }
      : undefined;
  /** The session the drop reports go with: the latest record's. */
  let lastSessionId = '';
  const batches = createBatches(queue, () => reports(lastSessionId), options);
  const route: UnloadRoute | undefined = transport && { transport, sendBeacon: options.sendBeacon };
  if (!transport) debug.warn('apiKey, serviceName or fetch missing: telemetry will not be sent');

  let stopped = false;
  let timer: unknown;
  let flushes: Promise<void> = Promise.resolve();
  const backoff = createBackoff(clock, options.retryPolicy || DEFAULT_RETRY_POLICY, debug);
  const persists = !!(transport && config.persistence);
  const persistence = persists ? createPersistence((request) => sendKept(request), lose) : undefined;
  const outcomes = createOutcomes(queue, drops, persistence, debug, options.console || captureOriginals().console);
  const [stoppedSignal, , book, loseAll, , refused] = outcomes;
  const urlOf = (signal: Signal) => options.ingestUrl(INGEST_PATHS[signal]);
  const [post, flushOnce, sendKept, answers] = createDelivery(transport, urlOf, batches, outcomes, backoff, persists);
  const flushForUnload = createUnloadFlush(route, urlOf, batches, outcomes, backoff, persists);
  const postJson = createPostJson(route, options.ingestUrl, clock, backoff, post, refused, () => stopped);

  function flush(force = false): Promise<void> {
    flushes = flushes.then(() => flushOnce(force)).catch((error: unknown) => debug.error('flush failed', error));
    return flushes;
  }

  function schedule(): void {
    if (stopped || !transport) return;
    const wait = Math.max(config.flushIntervalMs, backoff[1]());
    timer = clock.setTimeout(() => {
      timer = undefined;
      void flush().then(schedule);
    }, wait);
  }

  schedule();
  persistence?.drain();

  return {
    enqueue(item) {
      if (!transport || stopped) return;
      lastSessionId = item.sessionId;
      if (stoppedSignal(SIGNAL_OF[item.kind])) lose('refused', 1);
      else queue.push(item);
    },
    flush,
    drain() {
      // Every waiting record as request bodies, done with for the page; a stopped signal's are lost, counted.
      const batch = batches[0]();
      const requests: Array<[string, string]> = [];
      if (!batch) return requests;
      for (const signal of SIGNALS) {
        if (stoppedSignal(signal)) loseAll(batch[signal]);
        else {
          for (const chunk of batches[1](signal, batch[signal])) {
            requests.push([INGEST_PATHS[signal], chunk.body]);
            book(chunk.items);
          }
        }
      }
      return requests;
    },
    flushForUnload() {
      try {
        flushForUnload();
      } catch (error) {
        debug.error('flush on page hide failed', error);
      }
    },
    postJson: (path, body, unloading) =>
      postJson(path, body, unloading).catch((error: unknown) => {
        debug.error(`posting to ${path} failed`, error);
        return false;
      }),
    async shutdown() {
      if (!stopped) {
        stopped = true;
        if (timer !== undefined) clock.clearTimeout(timer);
      }
      await flush(true);
    },
    get dropped() {
      return queue.dropped;
    },
    answers,
  };
}
