import { INGEST_PATHS } from '../../wire/paths';
import { DROPPED_ITEMS_METRIC } from '../../wire/self-telemetry';
import type { Leftover } from './leftovers';
import { warnOnce } from '../core/debug';
import { captureOriginals } from '../core/originals';
import { SYSTEM_CLOCK } from './clock';
import type { MetricItem, TelemetryItem } from './items';
import { KeepaliveBudget, MAX_REQUEST_BYTES } from './keepalive-budget';
import { ENCODE_BODY, partition, type BySignal, type ItemOf, type Signal } from './otlp-json';
import { BoundedQueue } from './queue';
import { createPersistence } from './persist';
import { DEFAULT_RETRY_POLICY, retryDelay } from './retry';
import { splitIntoChunks, type Chunk } from './split';
import { postBody, type SendResult, type Transport } from './transport';
import type { Pipeline, PipelineOptions } from './types';
import { handOver, type UnloadRoute } from './unload';
import { utf8Length } from './utf8';

/** The SDK's own counter of records lost (wire/self-telemetry.ts), sent with the next batch after a drop. */
export { DROPPED_ITEMS_METRIC };

/** Attempts of one `postJson` body (it is not on the queue, so its retries are capped). */
const POST_JSON_ATTEMPTS = 4;

const SIGNALS: readonly Signal[] = ['logs', 'traces', 'metrics'];
const SIGNAL_OF = { log: 'logs', span: 'traces', metric: 'metrics' } as const;

/** Refusals that resending cannot change: the signal that got one stops for the page. */
const FINAL_STATUSES: readonly number[] = [401, 403, 422];

/** Consecutive failed flushes after which the records of a failing request go to the outbox instead of the queue. */
const PERSIST_AFTER_FAILURES = 4;

type Refusal = Extract<SendResult, { verdict_: 'refused' }>;

/** `service.name` (the pinned app id when given), version and environment, then the caller's extra attributes. */
function serviceAttributes(options: PipelineOptions, serviceName: string): Record<string, string> {
  const { config } = options;
  const attributes: Record<string, string> = { 'service.name': config.appId ?? serviceName };
  if (config.serviceVersion) attributes['service.version'] = config.serviceVersion;
  if (config.env) attributes['deployment.environment'] = config.env;
  for (const [key, value] of Object.entries(options.resource)) {
    if (!(key in attributes) && key !== 'session.id') attributes[key] = value;
  }
  return attributes;
}

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
  const clock = options.clock ?? SYSTEM_CLOCK;
  const policy = options.retryPolicy ?? DEFAULT_RETRY_POLICY;
  const queue = new BoundedQueue<TelemetryItem>(config.maxQueueSize);
  const startMs = clock.now();

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
  const service = serviceAttributes(options, config.serviceName ?? '');
  const route: UnloadRoute | undefined = transport && { transport, sendBeacon: options.sendBeacon };
  if (!transport) debug.warn('apiKey, serviceName or fetch missing: telemetry will not be sent');

  let stopped = false;
  let timer: unknown;
  /** Consecutive failed flushes, for the backoff; and no sending before `pausedUntil` (except at unload/shutdown). */
  let failures = 0;
  let pausedUntil = 0;
  /** Records lost per reason (`queue_full` is the queue's own count), the counts the server has had, the queue's last warned. */
  const lost: Record<string, number> = {};
  const lostSent: Record<string, number> = {};
  let droppedWarned = 0;
  const countLost = (reason: string, count: number): void => {
    lost[reason] = (lost[reason] || 0) + count;
  };
  /** Signals refused for good (401, 403, 422): nothing more of them is sent from this page. */
  const stoppedSignals = new Set<Signal>();
  const loudConsole = options.console || captureOriginals().console;
  const persistence = transport && config.persistence ? createPersistence(sendKept, countLost) : undefined;
  /** Local-storage key of records a page-leave flush kept (see Persistence.keep), until they are done with. */
  const keptKeys = new WeakMap<TelemetryItem, string>();
  /** This page put requests in the outbox: drain it after the next delivery. */
  let drainDue = false;
  let lastSessionId = '';
  /** The drop reports currently being sent: they are not queue records and never go back on the queue. */
  const reports = new WeakSet<TelemetryItem>();
  /** Unload left records behind for lack of budget: send them once a keepalive request frees some. */
  let drainWhenBudgetFrees = false;
  let flushes: Promise<void> = Promise.resolve();

  const urlOf = (signal: Signal) => options.ingestUrl(INGEST_PATHS[signal]);

  /** Requests answered so far, outside the unload path: with a 2xx, and otherwise (refused, failed, timed out). */
  const answers: [sent: number, failed: number] = [0, 0];

  /** One compressed request with the keepalive flag (within its budget), counted in `answers`. */
  async function post(url: string, body: string, bytes: number): Promise<SendResult> {
    const result = await postBody(transport!, url, body, bytes, true, true);
    answers[result.verdict_ === 'delivered' ? 0 : 1]++;
    return result;
  }

  /** One counter point per reason whose count the server has not had yet. */
  function dropReports(): MetricItem[] {
    const dropped = queue.dropped;
    if (dropped > droppedWarned) {
      debug.warn(
        `queue full (maxQueueSize ${config.maxQueueSize}): ${dropped - droppedWarned} oldest records dropped, ${dropped} since start`,
      );
      droppedWarned = dropped;
    }
    if (dropped > 0) lost.queue_full = dropped;
    return Object.keys(lost)
      .filter((reason) => lost[reason]! > (lostSent[reason] || 0))
      .map((reason) => {
        const report: MetricItem = {
          kind: 'metric',
          name: DROPPED_ITEMS_METRIC,
          value: lost[reason]!,
          unit: '{item}',
          timeMs: clock.now(),
          sumSinceMs: startMs,
          sessionId: lastSessionId,
          attributes: { reason },
        };
        reports.add(report);
        return report;
      });
  }

  /** Takes every waiting record (and the drop reports due), split per signal; undefined when none. */
  function takeBatch(): BySignal | undefined {
    const taken = queue.takeAll_();
    const due = dropReports();
    if (taken.length === 0 && due.length === 0) return undefined;
    const batch = partition(taken);
    batch.metrics.push(...due);
    return batch;
  }

  function chunksOf<S extends Signal>(signal: S, items: ItemOf[S][]): Chunk<ItemOf[S]>[] {
    return splitIntoChunks(
      items,
      (part) => ENCODE_BODY[signal](part, service, options.sessionResource),
      MAX_REQUEST_BYTES,
    );
  }

  function backoff(url: string, result: Extract<SendResult, { verdict_: 'retry' }>, failuresSoFar: number): void {
    const delay = retryDelay(failuresSoFar, result.retryAfterMs, clock.random, policy);
    pausedUntil = Math.max(pausedUntil, clock.now() + delay);
    debug.warn(`sending to ${url} failed (${result.reason}); retrying in ${delay} ms`);
  }

  /** Puts records back at the front of the queue; drop reports are not queue records and are rebuilt instead. */
  function requeue(items: readonly TelemetryItem[]): void {
    queue.requeue(items.filter((item) => !reports.has(item)));
  }

  /** Records taken from the queue are done with: delivered, refused, persisted or dropped. Returns how many (reports aside). */
  function book(items: readonly TelemetryItem[]): number {
    let count = 0;
    const kept = new Set<string>();
    for (const item of items) {
      if (reports.has(item)) {
        const reason = String(item.attributes.reason);
        lostSent[reason] = Math.max(lostSent[reason] || 0, (item as MetricItem).value);
      } else count += 1;
      const key = keptKeys.get(item);
      if (key !== undefined) kept.add(key);
    }
    kept.forEach((key) => persistence!.forget(key));
    queue.settle(count);
    return count;
  }

  /** Books the outcome of one request of queue records (drop reports included). */
  function settle(url: string, items: readonly TelemetryItem[], result: SendResult): void {
    if (result.verdict_ === 'retry') {
      requeue(items);
      return;
    }
    const count = book(items);
    if (result.verdict_ === 'refused') refused(url, SIGNAL_OF[items[0]!.kind], count, result);
    else if (drainDue) {
      drainDue = false;
      persistence!.drain();
    }
  }

  /**
   * A refusal: the records are lost (counted), a misconfiguration is warned about once even without `debug`, and a
   * status that resending cannot change stops the signal for the page.
   */
  function refused(url: string, signal: Signal | undefined, count: number, result: Refusal): void {
    debug.warn(`${url} refused ${count} records with HTTP ${result.status}; they are dropped. ${result.detail}`);
    countLost('refused', count);
    // The wording is loaded on the first refusal only: a well-configured page never needs it.
    void import('./misconfig')
      .then(({ misconfiguration }) => {
        const warning = misconfiguration(result.status, result.detail, url);
        if (warning) warnOnce(loudConsole, warning[0], warning[1]);
      })
      .catch(() => debug.warn(`HTTP ${result.status} from ${url}: the explanation could not be loaded`));
    if (signal && FINAL_STATUSES.includes(result.status)) stoppedSignals.add(signal);
  }

  /** The retry budget is spent: the requests go to the outbox, and their records leave the queue. */
  function persist(signal: Signal, chunks: readonly Chunk<TelemetryItem>[]): void {
    persistence!.store(
      chunks.map((chunk) => ({ path: INGEST_PATHS[signal], body: chunk.body, count: chunk.items.length })),
    );
    drainDue = true;
    for (const chunk of chunks) book(chunk.items);
  }

  /** Sends one request kept by an earlier page (or this one); resolves true once it is done with. */
  async function sendKept(request: Leftover): Promise<boolean> {
    const signal = SIGNALS.find((s) => INGEST_PATHS[s] === request.path);
    if (!transport || !signal || stoppedSignals.has(signal)) return true;
    const url = urlOf(signal);
    const result = await post(url, request.body, utf8Length(request.body));
    if (result.verdict_ === 'refused') refused(url, signal, 0, result);
    return result.verdict_ !== 'retry';
  }

  /** Sends one signal's records as requests of at most ~60 KB, in turn; stops at the first retryable failure. */
  async function sendSignal<S extends Signal>(
    signal: S,
    items: ItemOf[S][],
  ): Promise<Extract<SendResult, { verdict_: 'retry' }> | undefined> {
    const url = urlOf(signal);
    if (stoppedSignals.has(signal)) {
      countLost('refused', book(items));
      return undefined;
    }
    const chunks = chunksOf(signal, items);
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      const result = await post(url, chunk.body, chunk.bytes);
      if (result.verdict_ === 'retry') {
        if (persistence && failures + 1 >= PERSIST_AFTER_FAILURES) persist(signal, chunks.slice(i));
        else
          settle(
            url,
            chunks.slice(i).flatMap((c) => c.items),
            result,
          );
        backoff(url, result, failures + 1);
        return result;
      }
      settle(url, chunk.items, result);
    }
    return undefined;
  }

  async function flushOnce(force: boolean): Promise<void> {
    if (!transport || (!force && clock.now() < pausedUntil)) return;
    const batch = takeBatch();
    if (!batch) return;
    const retries = await Promise.all(SIGNALS.map((signal) => sendSignal(signal, batch[signal])));
    // One flush is one step of the backoff, however many of its requests failed.
    failures = retries.some((r) => r !== undefined) ? failures + 1 : 0;
  }

  function flush(force = false): Promise<void> {
    flushes = flushes.then(() => flushOnce(force)).catch((error: unknown) => debug.error('flush failed', error));
    return flushes;
  }

  function schedule(): void {
    if (stopped || !transport) return;
    const wait = Math.max(config.flushIntervalMs, pausedUntil - clock.now());
    timer = clock.setTimeout(() => {
      timer = undefined;
      void flush().then(schedule);
    }, wait);
  }

  function flushForUnload(): void {
    if (!route) return;
    const batch = takeBatch();
    if (!batch) return;
    const leftBehind: Array<{ signal: Signal; chunk: Chunk<TelemetryItem> }> = [];
    for (const signal of SIGNALS) {
      const url = urlOf(signal);
      for (const chunk of stoppedSignals.has(signal) ? [] : chunksOf(signal, batch[signal])) {
        const sent = handOver(route, url, chunk.body, chunk.bytes);
        if (sent.via_ === 'beacon') settle(url, chunk.items, { verdict_: 'delivered' });
        else if (sent.via_ === 'none') leftBehind.push({ signal, chunk });
        else void sent.result.then((result) => afterUnloadRequest(url, chunk.items, result));
      }
      // A stopped signal's records (sendSignal drops and counts them) wait for a flush that may never come.
      if (stoppedSignals.has(signal)) requeue(batch[signal]);
    }
    if (leftBehind.length > 0) {
      if (persistence) keepForNextLoad(leftBehind);
      requeue(leftBehind.flatMap(({ chunk }) => chunk.items));
      drainWhenBudgetFrees = true;
    }
  }

  /**
   * The page may be closing: what the browser did not take is kept for the next load (and forgotten there once sent
   * from here, if the page lives on). Records kept by an earlier event of the same leave (`pagehide`, then
   * `visibilitychange`) are not kept twice.
   */
  function keepForNextLoad(left: ReadonlyArray<{ signal: Signal; chunk: Chunk<TelemetryItem> }>): void {
    const requests = left.flatMap(({ signal, chunk }) => {
      const fresh = chunk.items.filter((item) => !keptKeys.has(item));
      const chunks = fresh.length === chunk.items.length ? [chunk] : chunksOf(signal, fresh as ItemOf[Signal][]);
      return chunks.map(({ items, body }) => ({ path: INGEST_PATHS[signal], body, items }));
    });
    persistence!.keep(requests).forEach((key, i) => {
      if (key !== undefined) for (const item of requests[i]!.items) keptKeys.set(item, key);
    });
  }

  /** A keepalive request from the unload path settled, so the page is still alive: book it, then send what was left. */
  function afterUnloadRequest(url: string, items: readonly TelemetryItem[], result: SendResult): void {
    settle(url, items, result);
    if (result.verdict_ === 'retry') {
      failures += 1;
      backoff(url, result, failures);
    } else if (drainWhenBudgetFrees) {
      drainWhenBudgetFrees = false;
      flushForUnload();
    }
  }

  /** Every waiting record as request bodies, done with for the page (see Pipeline.drain). */
  function drain(): Array<[string, string]> {
    const batch = takeBatch();
    const requests: Array<[string, string]> = [];
    if (!batch) return requests;
    for (const signal of SIGNALS) {
      // As sendSignal does: a stopped signal's records are lost, counted.
      if (stoppedSignals.has(signal)) countLost('refused', book(batch[signal]));
      else {
        for (const chunk of chunksOf(signal, batch[signal])) {
          requests.push([INGEST_PATHS[signal], chunk.body]);
          book(chunk.items);
        }
      }
    }
    return requests;
  }

  async function sleep(ms: number): Promise<void> {
    await new Promise<void>((resolve) => clock.setTimeout(resolve, ms));
  }

  async function postJson(path: string, body: string, unloading = false): Promise<boolean> {
    if (!transport || !route) return false;
    const url = options.ingestUrl(path);
    const bytes = utf8Length(body);
    if (unloading) {
      const sent = handOver(route, url, body, bytes);
      return sent.via_ === 'keepalive' ? (await sent.result).verdict_ === 'delivered' : sent.via_ === 'beacon';
    }
    for (let attempt = 1; attempt <= POST_JSON_ATTEMPTS; attempt++) {
      const wait = pausedUntil - clock.now();
      if (wait > 0 && !stopped) await sleep(wait);
      const result = await post(url, body, bytes);
      if (result.verdict_ === 'delivered') return true;
      if (result.verdict_ === 'refused') {
        refused(url, undefined, 0, result);
        return false;
      }
      failures += 1;
      backoff(url, result, failures);
      if (stopped) break;
    }
    return false;
  }

  schedule();
  persistence?.drain();

  return {
    enqueue(item) {
      if (!transport || stopped) return;
      lastSessionId = item.sessionId;
      if (stoppedSignals.has(SIGNAL_OF[item.kind])) countLost('refused', 1);
      else queue.push(item);
    },
    flush,
    drain,
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
