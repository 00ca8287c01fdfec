import { gunzipSync } from 'node:zlib';
import type { PipelineClock } from '../../src/pipeline/clock';
import type { LogItem } from '../../src/pipeline/items';
import type { Persistence } from '../../src/pipeline/persist';
import { createPipelineState, type PipelineState } from '../../src/pipeline/pipeline-state';
import type { PipelineOptions } from '../../src/pipeline/types';

/**
 * The shared state of the pipeline's units (src/pipeline/pipeline-state.ts) over a scripted network, a clock that
 * moves only when a test says so, and a recording outbox: for unit tests of one unit at a time.
 */

/** Virtual time that stands still; timers run only through `runNext`. */
export interface ManualClock extends PipelineClock {
  /** Delays of the timers still pending, from now. */
  pending(): number[];
  /** Moves time to the earliest pending timer and runs it; false when none is pending. */
  runNext(): boolean;
}

export function manualClock(start = Date.UTC(2030, 0, 1)): ManualClock {
  let time = start;
  let nextHandle = 1;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    now: () => time,
    setTimeout(run, ms) {
      timers.set(nextHandle, { at: time + ms, run });
      return nextHandle++;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    random: () => 0.5,
    pending: () => [...timers.values()].map((timer) => timer.at - time),
    runNext() {
      const earliest = [...timers.entries()].sort(([, a], [, b]) => a.at - b.at)[0];
      if (!earliest) return false;
      timers.delete(earliest[0]);
      time = Math.max(time, earliest[1].at);
      earliest[1].run();
      return true;
    },
  };
}

/** What the network was asked: the ingest path, the body as JSON text, and whether it went with keepalive. */
export interface Sent {
  path: string;
  body: string;
  keepalive: boolean;
}

/** An answer per request, in order (200 once the script runs out): an HTTP status, optionally with a `Retry-After`. */
export type Reply = number | { status: number; retryAfter: string };

function scriptedFetch(replies: Reply[], sent: Sent[]): typeof fetch {
  return (async (url: string, init: RequestInit) => {
    const raw = init.body as string | Uint8Array;
    const body = typeof raw === 'string' ? raw : gunzipSync(raw).toString('utf8');
    sent.push({ path: new URL(url).pathname, body, keepalive: init.keepalive === true });
    const reply = replies.shift() ?? 200;
    const status = typeof reply === 'number' ? reply : reply.status;
    const headers = typeof reply === 'number' ? undefined : { 'retry-after': reply.retryAfter };
    return new Response(status >= 300 ? `answer ${status}` : '{}', { status, headers });
  }) as typeof fetch;
}

/** An outbox that remembers what it was given; `keep` keeps everything, under keys k1, k2, ... */
export function recordingOutbox() {
  const calls = {
    kept: [] as string[],
    forgotten: [] as string[],
    stored: [] as string[],
    drains: 0,
    pauses: [] as number[],
  };
  let keys = 0;
  const outbox: Persistence = {
    keep_: (requests) => requests.map((request) => (calls.kept.push(request.path), `k${++keys}`)),
    forget_: (key) => void calls.forgotten.push(key),
    store_: (requests) => void calls.stored.push(...requests.map((request) => request.path)),
    drain_: () => void calls.drains++,
    pausedUntil_: 0,
    pause_: (until) => void calls.pauses.push(until),
  };
  return { outbox, calls };
}

export interface StateHarness {
  state: PipelineState;
  clock: ManualClock;
  sent: Sent[];
  beacons: Sent[];
  warnings: string[];
}

export interface HarnessOptions {
  replies?: Reply[];
  /** What sendBeacon answers; no beacon at all when undefined. */
  beacon?: boolean;
  maxQueueSize?: number;
  /** Without a transport: no apiKey. */
  noTransport?: boolean;
}

export function pipelineState(options: HarnessOptions = {}): StateHarness {
  const clock = manualClock();
  const sent: Sent[] = [];
  const beacons: Sent[] = [];
  const warnings: string[] = [];
  const pipelineOptions: PipelineOptions = {
    config: {
      apiKey: options.noTransport ? undefined : 'key',
      serviceName: 'shop',
      appId: undefined,
      env: undefined,
      serviceVersion: undefined,
      flushIntervalMs: 1000,
      maxQueueSize: options.maxQueueSize ?? 100,
      requestTimeoutMs: 5000,
    },
    resource: {},
    fetch: scriptedFetch(options.replies ?? [], sent),
    sendBeacon:
      options.beacon === undefined
        ? undefined
        : (url, data) => {
            if (options.beacon) beacons.push({ path: new URL(url).pathname, body: String(data), keepalive: false });
            return options.beacon!;
          },
    ingestUrl: (path) => `http://ingest.test${path}`,
    debug: { warn: (message) => warnings.push(message), error: (message) => warnings.push(message) },
    console: { warn: (message: string) => warnings.push(message) },
    clock,
  };
  return { state: createPipelineState(pipelineOptions), clock, sent, beacons, warnings };
}

export const logItem = (body: string, sessionId = 's1'): LogItem => ({
  kind: 'log',
  timeMs: Date.UTC(2030, 0, 1),
  level: 'info',
  body,
  sessionId,
  attributes: {},
});

/** The log bodies of an OTLP/JSON logs request. */
export function logBodies(body: string): string[] {
  const request = JSON.parse(body) as {
    resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<{ body: { stringValue: string } }> }> }>;
  };
  return request.resourceLogs.flatMap((r) =>
    r.scopeLogs.flatMap((s) => s.logRecords.map((record) => record.body.stringValue)),
  );
}
