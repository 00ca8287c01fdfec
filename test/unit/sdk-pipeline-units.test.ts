/**
 * The pipeline's units (src/pipeline/): drop accounting, backoff, batches, what becomes of taken records, delivery,
 * the unload flush and postJson, each on its own with fakes. The whole pipeline is covered by
 * test/integration/sdk-pipeline.test.ts and test/unit/sdk-test-context.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { INGEST_PATHS } from '../../wire/paths';
import { DROPPED_ITEMS_METRIC } from '../../wire/self-telemetry';
import { createBackoff, type Backoff, type Retry } from '../../src/pipeline/backoff';
import { createBatches, serviceAttributes } from '../../src/pipeline/batches';
import type { PipelineClock } from '../../src/pipeline/clock';
import { createDelivery } from '../../src/pipeline/delivery';
import { createDropLedger } from '../../src/pipeline/drops';
import type { LogItem, MetricItem, TelemetryItem } from '../../src/pipeline/items';
import { KeepaliveBudget } from '../../src/pipeline/keepalive-budget';
import { createOutcomes } from '../../src/pipeline/outcomes';
import type { Persistence } from '../../src/pipeline/persist';
import { createPostJson } from '../../src/pipeline/post-json';
import { BoundedQueue } from '../../src/pipeline/queue';
import { DEFAULT_RETRY_POLICY } from '../../src/pipeline/retry';
import type { Transport } from '../../src/pipeline/transport';
import type { PipelineOptions } from '../../src/pipeline/types';
import { createUnloadFlush } from '../../src/pipeline/unload-flush';

const log = (body: string, sessionId = 's1'): LogItem => ({
  kind: 'log',
  timeMs: 1,
  level: 'info',
  body,
  sessionId,
  attributes: {},
});

function virtualClock(start = 1_000): PipelineClock & { advance(ms: number): void } {
  let now = start;
  return {
    now: () => now,
    setTimeout: (fn, ms) => setTimeout(fn, 0 * ms),
    clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    random: () => 0.5,
    advance: (ms) => void (now += ms),
  };
}

const quiet = () => ({ warn: vi.fn(), error: vi.fn() });
const retry = (retryAfterMs?: number): Retry => ({ verdict: 'retry', reason: 'HTTP 503', retryAfterMs });
const CONFIG: PipelineOptions['config'] = {
  serviceName: 'web',
  apiKey: 'k',
  appId: undefined,
  env: undefined,
  serviceVersion: undefined,
  maxQueueSize: 10,
  flushIntervalMs: 1000,
  requestTimeoutMs: 1000,
};

describe('drop ledger', () => {
  it('reports each reason until the server has had its count, as a cumulative sum since start', () => {
    const queue = new BoundedQueue<TelemetryItem>(1);
    const debug = quiet();
    const [lose, reports, isReport, reported] = createDropLedger(queue, virtualClock(), debug, 1);
    expect(reports('s1')).toEqual([]);
    lose('refused', 2);
    queue.push(log('a'));
    queue.push(log('b'));
    const due = reports('s1');
    expect(due.map((r) => [r.name, r.attributes.reason, r.value, r.sumSinceMs, r.sessionId])).toEqual([
      [DROPPED_ITEMS_METRIC, 'refused', 2, 1_000, 's1'],
      [DROPPED_ITEMS_METRIC, 'queue_full', 1, 1_000, 's1'],
    ]);
    expect(debug.warn).toHaveBeenCalledWith(expect.stringContaining('queue full (maxQueueSize 1): 1 oldest records'));
    expect(due.every(isReport)).toBe(true);
    expect(isReport(log('c'))).toBe(false);
    // Not reported yet: due again, and the warning is not repeated.
    expect(reports('s2').map((r) => r.value)).toEqual([2, 1]);
    expect(debug.warn).toHaveBeenCalledTimes(1);
    reported(due[0]!);
    expect(reports('s2').map((r) => r.attributes.reason)).toEqual(['queue_full']);
    lose('refused', 1);
    expect(reports('s2').map((r) => [r.attributes.reason, r.value])).toEqual([
      ['refused', 3],
      ['queue_full', 1],
    ]);
  });
});

describe('backoff', () => {
  it('pauses for the jittered delay of the nth failure, the longest pause winning, and counts failed flushes', () => {
    const clock = virtualClock();
    const debug = quiet();
    const [failures, wait, pause, fail, flushed] = createBackoff(clock, DEFAULT_RETRY_POLICY, debug);
    expect(wait()).toBeLessThanOrEqual(0);
    pause('u', retry(), 3); // ceiling 4 s, random 0.5
    expect(wait()).toBe(2_000);
    expect(failures()).toBe(0);
    pause('u', retry(), 1); // 500 ms: the longer pause stays
    expect(wait()).toBe(2_000);
    expect(debug.warn).toHaveBeenLastCalledWith('sending to u failed (HTTP 503); retrying in 500 ms');
    fail('u', retry(10_000));
    expect([failures(), wait()]).toEqual([1, 10_000]);
    flushed(true);
    expect(failures()).toBe(2);
    flushed(false);
    expect(failures()).toBe(0);
    clock.advance(10_000);
    expect(wait()).toBe(0);
  });
});

describe('batches', () => {
  it('takes every waiting record and the drop reports due, per signal, or nothing', () => {
    const queue = new BoundedQueue<TelemetryItem>(10);
    const report = { kind: 'metric', name: 'm', value: 1 } as MetricItem;
    let due: MetricItem[] = [];
    const [take] = createBatches(queue, () => due, { config: CONFIG, resource: {} });
    expect(take()).toBeUndefined();
    due = [report];
    expect(take()).toEqual({ logs: [], traces: [], metrics: [report] });
    queue.push(log('a'));
    due = [];
    expect(take()).toEqual({ logs: [log('a')], traces: [], metrics: [] });
    expect(queue.size, 'taken records stay counted until settled').toBe(1);
  });

  it('cuts one signal into bodies of at most ~60 KB, with the service attributes', () => {
    const [, chunks] = createBatches(new BoundedQueue(10), () => [], { config: CONFIG, resource: { extra: 'x' } });
    const items = Array.from({ length: 200 }, (_, i) => log(`${i}:${'x'.repeat(600)}`));
    const parts = chunks('logs', items);
    expect(parts.length).toBeGreaterThan(1);
    expect(parts.flatMap((p) => p.items)).toEqual(items);
    for (const part of parts) expect(part.bytes).toBeLessThanOrEqual(60_000);
    expect(parts[0]!.body).toContain('"extra"');
  });

  it('names the service by the pinned app id first; the four reserved attributes cannot be overridden', () => {
    const config = { ...CONFIG, appId: 'app', serviceVersion: '1.2', env: 'prod' };
    const resource = { 'service.name': 'no', 'session.id': 'no', 'telemetry.sdk.name': 'svc' };
    expect(serviceAttributes({ config, resource })).toEqual({
      'service.name': 'app',
      'service.version': '1.2',
      'deployment.environment': 'prod',
      'telemetry.sdk.name': 'svc',
    });
    expect(serviceAttributes({ config: { ...CONFIG, serviceName: undefined }, resource: {} })).toEqual({
      'service.name': '',
    });
  });
});

function fakePersistence(): Persistence & { calls: string[] } {
  const calls: string[] = [];
  let n = 0;
  return {
    calls,
    keep: (requests) => requests.map(() => `key${n++}`),
    forget: (key) => void calls.push(`forget ${key}`),
    store: (requests) => void calls.push(`store ${requests.map((r) => r.count).join(',')}`),
    drain: () => void calls.push('drain'),
  };
}

function outcomesWith(persistence?: Persistence) {
  const queue = new BoundedQueue<TelemetryItem>(10);
  const drops = createDropLedger(queue, virtualClock(), quiet(), 10);
  const debug = quiet();
  const loud = { warn: vi.fn() };
  const outcomes = createOutcomes(queue, drops, persistence, debug, loud);
  return { queue, drops, debug, loud, outcomes };
}

describe('outcomes', () => {
  it('books delivered records, requeues retried ones in front, and never requeues drop reports', () => {
    const { queue, drops, outcomes } = outcomesWith();
    const [, requeue, , , settle] = outcomes;
    for (const body of ['a', 'b', 'c']) queue.push(log(body));
    drops[0]('refused', 1);
    const [report] = drops[1]('s1');
    const taken = queue.takeAll();
    settle('u', [taken[0]!, report!], { verdict: 'delivered' });
    expect(queue.size).toBe(2);
    expect(drops[1]('s1'), 'the report was booked as reported').toEqual([]);
    requeue([taken[1]!]);
    settle('u', [taken[2]!, report!], retry());
    // Each goes back in front of what waits.
    expect(queue.takeAll().map((i) => (i as LogItem).body)).toEqual(['c', 'b']);
  });

  it('a final refusal loses the records, warns loudly once, and stops the signal', async () => {
    const { queue, drops, debug, loud, outcomes } = outcomesWith();
    const [stopped, , , lose, settle] = outcomes;
    queue.push(log('a'));
    settle('u', queue.takeAll(), { verdict: 'refused', status: 401, detail: '{}' });
    expect(stopped('logs')).toBe(true);
    expect(stopped('traces')).toBe(false);
    expect(queue.size).toBe(0);
    expect(debug.warn).toHaveBeenCalledWith('u refused 1 records with HTTP 401; they are dropped. {}');
    await vi.waitFor(() => expect(loud.warn).toHaveBeenCalledWith(expect.stringContaining('u answered HTTP 401')));
    queue.push(log('b'));
    lose(queue.takeAll());
    expect(drops[1]('s1').map((r) => r.value)).toEqual([2]);
  });

  it('a 400 loses the records but does not stop the signal', () => {
    const { queue, outcomes } = outcomesWith();
    queue.push(log('a'));
    outcomes[4]('u', queue.takeAll(), { verdict: 'refused', status: 400, detail: '' });
    expect(outcomes[0]('logs')).toBe(false);
  });

  it('persists failing requests, drains the outbox after the next delivery, and forgets kept records once booked', () => {
    const persistence = fakePersistence();
    const { queue, outcomes } = outcomesWith(persistence);
    const [, , book, , settle, , persist, keep, isKept] = outcomes;
    for (const body of ['a', 'b', 'c']) queue.push(log(body));
    const [a, b, c] = queue.takeAll();
    persist('logs', [{ items: [a!, b!], body: 'ab', bytes: 2 }]);
    expect(queue.size).toBe(1);
    settle('u', [c!], { verdict: 'delivered' });
    expect(persistence.calls).toEqual(['store 2', 'drain']);
    queue.push(log('d'));
    const [d] = queue.takeAll();
    keep([{ path: INGEST_PATHS.logs, body: 'd', items: [d!] }]);
    expect([isKept(d!), isKept(c!)]).toEqual([true, false]);
    book([d!]);
    expect(persistence.calls.at(-1)).toBe('forget key0');
  });
});

/** A transport whose fetch answers with the given statuses in turn (the last one repeating). */
function transportAnswering(...statuses: number[]): Transport & { urls: string[] } {
  const urls: string[] = [];
  let i = 0;
  const fetch = vi.fn(async (url: string | URL | Request) => {
    urls.push(String(url));
    const status = statuses[Math.min(i++, statuses.length - 1)]!;
    return new Response(status === 204 ? null : 'no', { status });
  }) as unknown as typeof globalThis.fetch;
  return { fetch, apiKey: 'k', timeoutMs: 1000, budget: new KeepaliveBudget(), clock: virtualClock(), urls };
}

function deliveryWith(transport: Transport, persistence?: Persistence) {
  const parts = outcomesWith(persistence);
  const clock = virtualClock();
  const backoff: Backoff = createBackoff(clock, DEFAULT_RETRY_POLICY, quiet());
  const batches = createBatches(parts.queue, () => [], { config: CONFIG, resource: {} });
  const urlOf = (signal: string) => `https://ingest/${signal}`;
  const delivery = createDelivery(transport, urlOf, batches, parts.outcomes, backoff, persistence !== undefined);
  return { ...parts, clock, backoff, batches, urlOf, delivery };
}

describe('delivery', () => {
  it('sends each signal, books what was delivered and counts the answers', async () => {
    const transport = transportAnswering(204);
    const { queue, delivery } = deliveryWith(transport);
    const [, flushOnce, , answers] = delivery;
    queue.push(log('a'));
    await flushOnce(false);
    expect(transport.urls).toEqual(['https://ingest/logs']);
    expect(queue.size).toBe(0);
    expect(answers).toEqual([1, 0]);
  });

  it('a retryable failure requeues the records and pauses; the next flush waits unless forced', async () => {
    const transport = transportAnswering(503, 204);
    const { queue, backoff, delivery } = deliveryWith(transport);
    const [, flushOnce, , answers] = delivery;
    queue.push(log('a'));
    await flushOnce(false);
    expect([queue.waitingCount, backoff[0](), backoff[1]() > 0]).toEqual([1, 1, true]);
    await flushOnce(false);
    expect(transport.urls).toHaveLength(1);
    await flushOnce(true);
    expect([queue.size, backoff[0](), answers]).toEqual([0, 0, [1, 1]]);
  });

  it('after three failed flushes the fourth stores the failing requests in the outbox instead', async () => {
    const persistence = fakePersistence();
    const { queue, delivery } = deliveryWith(transportAnswering(503), persistence);
    queue.push(log('a'));
    for (let i = 0; i < 4; i++) await delivery[1](true);
    expect(persistence.calls).toEqual(['store 1']);
    expect(queue.size).toBe(0);
  });

  it('sends a kept request to its signal, done with unless it should be retried', async () => {
    const transport = transportAnswering(503, 204);
    const [, , sendKept] = deliveryWith(transport).delivery;
    const request = { path: INGEST_PATHS.traces, body: '{}' };
    expect(await sendKept(request)).toBe(false);
    expect(await sendKept(request)).toBe(true);
    expect(await sendKept({ path: '/elsewhere', body: '{}' }), 'not an OTLP path: dropped').toBe(true);
    expect(transport.urls).toEqual(['https://ingest/traces', 'https://ingest/traces']);
  });
});

describe('unload flush', () => {
  it('hands records over with keepalive, falls back to the beacon, and keeps what neither took', async () => {
    const transport = transportAnswering(204);
    const persistence = fakePersistence();
    const { queue, batches, urlOf, outcomes, backoff } = deliveryWith(transport, persistence);
    const beacons: string[] = [];
    let beaconWorks = true;
    const sendBeacon = (url: string) => (beacons.push(url), beaconWorks);
    const flushForUnload = createUnloadFlush({ transport, sendBeacon }, urlOf, batches, outcomes, backoff, true);
    queue.push(log('a'));
    flushForUnload();
    expect(transport.urls).toEqual(['https://ingest/logs']);
    // The budget is spent: the beacon takes the next body, with the key in its URL.
    transport.budget.reserve(transport.budget.available);
    queue.push(log('b'));
    flushForUnload();
    expect(beacons).toEqual(['https://ingest/logs?api_key=k']);
    beaconWorks = false;
    queue.push(log('c'));
    flushForUnload();
    expect(queue.waitingCount, 'left behind, back on the queue').toBe(1);
    expect(outcomes[8](queue.takeAll()[0]!)).toBe(true);
  });
});

describe('postJson', () => {
  const route = (transport: Transport) => ({ transport, sendBeacon: undefined });

  it('retries a failing body with the backoff, at most four attempts, and reports delivery', async () => {
    const transport = transportAnswering(503, 503, 204);
    const { backoff, outcomes, delivery } = deliveryWith(transport);
    const clock = virtualClock();
    const postJson = createPostJson(
      route(transport),
      (p) => `https://ingest${p}`,
      clock,
      backoff,
      delivery[0],
      outcomes[5],
      () => false,
    );
    expect(await postJson('/replay', '{}')).toBe(true);
    expect(transport.urls).toEqual(Array(3).fill('https://ingest/replay'));
    expect(backoff[0]()).toBe(2);
    const failing = transportAnswering(500);
    const give = createPostJson(
      route(failing),
      (p) => p,
      clock,
      backoff,
      deliveryWith(failing).delivery[0],
      outcomes[5],
      () => false,
    );
    expect(await give('/r', '{}')).toBe(false);
    expect(failing.urls).toHaveLength(4);
  });

  it('stops at a refusal, and while unloading hands the body over once', async () => {
    const refusing = transportAnswering(400);
    const { backoff, outcomes, delivery } = deliveryWith(refusing);
    const postJson = createPostJson(
      route(refusing),
      (p) => p,
      virtualClock(),
      backoff,
      delivery[0],
      outcomes[5],
      () => false,
    );
    expect(await postJson('/r', '{}')).toBe(false);
    expect(refusing.urls).toHaveLength(1);
    expect(await postJson('/r', '{}', true)).toBe(false);
    expect(refusing.urls).toHaveLength(2);
    const none = createPostJson(
      undefined,
      (p) => p,
      virtualClock(),
      backoff,
      delivery[0],
      outcomes[5],
      () => false,
    );
    expect(await none('/r', '{}'), 'nothing is sent without a transport').toBe(false);
  });
});
