/** The load generator of `bench/ingest.ts`: requests over loopback, closed and open loops, and what they measured. */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { cpuSecondsOf } from '../test/support/child-lifecycle';
import type { Body } from './ingest-bodies';
import type { Target } from './ingest-child';

/** No single request may hang the benchmark. */
const REQUEST_TIMEOUT_MS = 30_000;
export const TRACES_PATH = '/otlp/v1/traces';

export interface Answer {
  /** HTTP status, or 0 when the request failed (connection error, timeout). */
  status: number;
  text: string;
  endMs: number;
}

export interface Request {
  path: string;
  body: Buffer;
  headers?: Record<string, string>;
}

/** Sends one request to `target` with its ingest key (a JSON body unless `headers` say otherwise) and reads the answer. */
export function send(agent: http.Agent, target: Target, { path, body, headers = {} }: Request): Promise<Answer> {
  return new Promise((resolve) => {
    const failed = () => resolve({ status: 0, text: '', endMs: performance.now() });
    const req = http.request(
      new URL(path, target.url),
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': body.length,
          ...(target.ingestKey === undefined ? {} : { 'x-api-key': target.ingestKey }),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
            endMs: performance.now(),
          }),
        );
        res.on('error', failed);
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')));
    req.on('error', failed);
    req.end(body);
  });
}

/** The `p` quantile (0–1) of ascending `sorted`; NaN when empty. */
export const percentile = (sorted: readonly number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : NaN;

export interface LoadResult {
  /** Requests answered 200 inside the measured window. */
  requests: number;
  /** Answers other than 200 (and failed requests) over the whole run, warm-up included: each is an error. */
  errors: number;
  /** …of which 5xx. */
  serverErrors: number;
  /** Spans of every request answered 200 over the whole run: what the database must hold. */
  acknowledgedSpans: number;
  seconds: number;
  rps: number;
  spansPerSecond: number;
  p50: number;
  p99: number;
  /** User + system CPU of the target processes over the window; 100 % = one core. */
  cpuPercent: number;
}

/** Tallies answers: latency and spans of those in the measured window, errors and acknowledged spans of all. */
class Tally {
  readonly latencies: number[] = [];
  spansInWindow = 0;
  errors = 0;
  serverErrors = 0;
  acknowledgedSpans = 0;

  record(status: number, spans: number, latencyMs: number, inWindow: boolean): void {
    if (status !== 200) {
      this.errors += 1;
      if (status >= 500) this.serverErrors += 1;
      return;
    }
    this.acknowledgedSpans += spans;
    if (!inWindow) return;
    this.latencies.push(latencyMs);
    this.spansInWindow += spans;
  }

  result(seconds: number, cpuSeconds: number): LoadResult {
    const sorted = this.latencies.sort((a, b) => a - b);
    return {
      requests: sorted.length,
      errors: this.errors,
      serverErrors: this.serverErrors,
      acknowledgedSpans: this.acknowledgedSpans,
      seconds,
      rps: sorted.length / seconds,
      spansPerSecond: this.spansInWindow / seconds,
      p50: percentile(sorted, 0.5),
      p99: percentile(sorted, 0.99),
      cpuPercent: (cpuSeconds / seconds) * 100,
    };
  }
}

const cpuOf = (targets: readonly Target[]) => targets.reduce((sum, t) => sum + cpuSecondsOf(t.pid), 0);
const postSpans = (agent: http.Agent, target: Target, body: Body) =>
  send(agent, target, { path: TRACES_PATH, body: body.bytes });

export interface ClosedLoopOptions {
  connections: number;
  warmupMs: number;
  durationMs: number;
}

/**
 * Closed loop: `connections` workers, each sending its next request as soon as the previous one is answered, to the
 * targets in turn (round-robin, as a load balancer spreads requests over replicas), for warm-up + duration. Only
 * requests sent after the warm-up and answered within the window count towards throughput and latency.
 */
export async function closedLoop(
  targets: readonly Target[],
  nextBody: () => Body,
  options: ClosedLoopOptions,
): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const windowStart = performance.now() + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const tally = new Tally();
  let next = 0;
  let cpuAtWindowStart: number | undefined;
  const cpuTimer = setTimeout(() => (cpuAtWindowStart = cpuOf(targets)), options.warmupMs);
  const worker = async () => {
    while (performance.now() < windowEnd) {
      const body = nextBody();
      const t0 = performance.now();
      const { status, endMs } = await postSpans(agent, targets[next++ % targets.length]!, body);
      tally.record(status, body.spans, endMs - t0, t0 >= windowStart && endMs <= windowEnd);
    }
  };
  await Promise.all(Array.from({ length: options.connections }, worker));
  clearTimeout(cpuTimer);
  const cpu = cpuOf(targets) - (cpuAtWindowStart ?? cpuOf(targets));
  agent.destroy();
  return tally.result(options.durationMs / 1000, cpu);
}

/** Open loop: one request every 1/rate s regardless of answers, for `durationMs`; latency from each request's scheduled time. */
export async function openLoop(
  target: Target,
  nextBody: () => Body,
  rate: number,
  durationMs: number,
): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const interval = 1000 / rate;
  const count = Math.max(1, Math.floor((durationMs / 1000) * rate));
  const tally = new Tally();
  let offeredSpans = 0;
  const cpu0 = cpuSecondsOf(target.pid);
  const start = performance.now() + 20;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const scheduled = start + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = nextBody();
    offeredSpans += body.spans;
    pending.push(
      postSpans(agent, target, body).then(({ status, endMs }) =>
        tally.record(status, body.spans, endMs - scheduled, true),
      ),
    );
  }
  await Promise.all(pending);
  const seconds = (performance.now() - start) / 1000;
  const cpu = cpuSecondsOf(target.pid) - cpu0;
  agent.destroy();
  // Offered, not answered: the rate is the benchmark's choice, the latencies say how the server kept up.
  return { ...tally.result(seconds, cpu), rps: count / seconds, spansPerSecond: offeredSpans / seconds };
}

/** A number for a markdown table; `–` when there is none. */
export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
