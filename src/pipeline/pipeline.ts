import { INGEST_PATHS } from '../../wire/paths';
import { SYSTEM_CLOCK } from './clock';
import type { MetricItem, TelemetryItem } from './items';
import { KeepaliveBudget, MAX_REQUEST_BYTES } from './keepalive-budget';
import { ENCODE_BODY, partition, type BySignal, type ItemOf, type Signal } from './otlp-json';
import { BoundedQueue } from './queue';
import { DEFAULT_RETRY_POLICY, retryDelay } from './retry';
import { splitIntoChunks, type Chunk } from './split';
import { postBody, type SendResult, type Transport } from './transport';
import type { Pipeline, PipelineOptions } from './types';
import { handOver, type UnloadRoute } from './unload';
import { utf8Length } from './utf8';

/** The SDK's own counter of records lost to a full queue, sent with the next batch after a drop. */
export const DROPPED_ITEMS_METRIC = 'svc.sdk.dropped_items';

/** Attempts of one `postJson` body (it is not on the queue, so its retries are capped). */
const POST_JSON_ATTEMPTS = 4;

const SIGNALS: readonly Signal[] = ['logs', 'traces', 'metrics'];

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
      ? { fetch: options.fetch, apiKey: config.apiKey, timeoutMs: config.requestTimeoutMs, budget: new KeepaliveBudget(), clock }
      : undefined;
  const service = serviceAttributes(options, config.serviceName ?? '');
  const route: UnloadRoute | undefined = transport && { transport, sendBeacon: options.sendBeacon };
  if (!transport) debug.warn('apiKey, serviceName or fetch missing: telemetry will not be sent');

  let stopped = false;
  let timer: unknown;
  /** Consecutive failed flushes, for the backoff; and no sending before `pausedUntil` (except at unload/shutdown). */
  let failures = 0;
  let pausedUntil = 0;
  /** Drop count the server has acknowledged (or refused), and the one last warned about. */
  let droppedSent = 0;
  let droppedWarned = 0;
  let lastSessionId = '';
  /** The drop reports currently being sent: they are not queue records and never go back on the queue. */
  const reports = new WeakSet<TelemetryItem>();
  /** Unload left records behind for lack of budget: send them once a keepalive request frees some. */
  let drainWhenBudgetFrees = false;
  let flushes: Promise<void> = Promise.resolve();

  const urlOf = (signal: Signal) => options.ingestUrl(INGEST_PATHS[signal]);

  function dropReport(): MetricItem | undefined {
    const dropped = queue.dropped;
    if (dropped <= droppedSent) return undefined;
    if (dropped > droppedWarned) {
      debug.warn(`queue full (maxQueueSize ${config.maxQueueSize}): ${dropped - droppedWarned} oldest records dropped, ${dropped} since start`);
      droppedWarned = dropped;
    }
    const report: MetricItem = {
      kind: 'metric',
      name: DROPPED_ITEMS_METRIC,
      value: dropped,
      unit: '{item}',
      timeMs: clock.now(),
      sumSinceMs: startMs,
      sessionId: lastSessionId,
      attributes: { reason: 'queue_full' },
    };
    reports.add(report);
    return report;
  }

  /** Takes every waiting record (and a drop report when one is due), split per signal; undefined when none. */
  function takeBatch(): BySignal | undefined {
    const taken = queue.takeAll();
    const report = dropReport();
    if (taken.length === 0 && !report) return undefined;
    const batch = partition(taken);
    if (report) batch.metrics.push(report);
    return batch;
  }

  function chunksOf<S extends Signal>(signal: S, items: ItemOf[S][]): Chunk<ItemOf[S]>[] {
    return splitIntoChunks(items, (part) => ENCODE_BODY[signal](part, service, options.sessionResource), MAX_REQUEST_BYTES);
  }

  function backoff(url: string, result: Extract<SendResult, { verdict: 'retry' }>, failuresSoFar: number): void {
    const delay = retryDelay(failuresSoFar, result.retryAfterMs, clock.random, policy);
    pausedUntil = Math.max(pausedUntil, clock.now() + delay);
    debug.warn(`sending to ${url} failed (${result.reason}); retrying in ${delay} ms`);
  }

  /** Puts records back at the front of the queue; drop reports are not queue records and are rebuilt instead. */
  function requeue(items: readonly TelemetryItem[]): void {
    queue.requeue(items.filter((item) => !reports.has(item)));
  }

  /** Books the outcome of one request of queue records (drop reports included). */
  function settle(url: string, items: readonly TelemetryItem[], result: SendResult): void {
    if (result.verdict === 'retry') {
      requeue(items);
      return;
    }
    const report = items.find((item) => reports.has(item)) as MetricItem | undefined;
    queue.settle(report ? items.length - 1 : items.length);
    if (report) droppedSent = Math.max(droppedSent, report.value);
    if (result.verdict === 'refused') {
      debug.warn(`${url} refused ${items.length} records with HTTP ${result.status}; they are dropped. ${result.detail}`);
    }
  }

  /** Sends one signal's records as requests of at most ~60 KB, in turn; stops at the first retryable failure. */
  async function sendSignal<S extends Signal>(
    sender: Transport,
    signal: S,
    items: ItemOf[S][],
  ): Promise<Extract<SendResult, { verdict: 'retry' }> | undefined> {
    const url = urlOf(signal);
    const chunks = chunksOf(signal, items);
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      const result = await postBody(sender, url, chunk.body, chunk.bytes, true, true);
      if (result.verdict === 'retry') {
        settle(url, chunks.slice(i).flatMap((c) => c.items), result);
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
    const retries = await Promise.all(SIGNALS.map((signal) => sendSignal(transport, signal, batch[signal])));
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
    const leftBehind: TelemetryItem[] = [];
    for (const signal of SIGNALS) {
      const url = urlOf(signal);
      for (const chunk of chunksOf(signal, batch[signal])) {
        const sent = handOver(route, url, chunk.body, chunk.bytes);
        if (sent.via === 'beacon') settle(url, chunk.items, { verdict: 'delivered' });
        else if (sent.via === 'none') leftBehind.push(...chunk.items);
        else void sent.result.then((result) => afterUnloadRequest(url, chunk.items, result));
      }
    }
    if (leftBehind.length > 0) {
      requeue(leftBehind);
      drainWhenBudgetFrees = true;
    }
  }

  /** A keepalive request from the unload path settled, so the page is still alive: book it, then send what was left. */
  function afterUnloadRequest(url: string, items: readonly TelemetryItem[], result: SendResult): void {
    settle(url, items, result);
    if (result.verdict === 'retry') {
      failures += 1;
      backoff(url, result, failures);
    } else if (drainWhenBudgetFrees) {
      drainWhenBudgetFrees = false;
      flushForUnload();
    }
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
      return sent.via === 'keepalive' ? (await sent.result).verdict === 'delivered' : sent.via === 'beacon';
    }
    for (let attempt = 1; attempt <= POST_JSON_ATTEMPTS; attempt++) {
      const wait = pausedUntil - clock.now();
      if (wait > 0 && !stopped) await sleep(wait);
      const result = await postBody(transport, url, body, bytes, true, true);
      if (result.verdict === 'delivered') return true;
      if (result.verdict === 'refused') {
        debug.warn(`${url} refused a body with HTTP ${result.status}; it is dropped. ${result.detail}`);
        return false;
      }
      failures += 1;
      backoff(url, result, failures);
      if (stopped) break;
    }
    return false;
  }

  schedule();

  return {
    enqueue(item) {
      if (!transport || stopped) return;
      lastSessionId = item.sessionId;
      queue.push(item);
    },
    flush: () => flush(),
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
  };
}
