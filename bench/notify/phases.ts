import http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ServerChild } from './child';
import type { ControlPlane } from './control';
import type { Receiver } from './receiver';

/** What every phase works with: one server over one database, its webhook channel, and the receiver behind it. */
export interface Bench {
  server: ServerChild;
  control: ControlPlane;
  receiver: Receiver;
  channelId: string;
}

export interface LatencyResult {
  /** From just before `POST /control-plane/incidents` to the webhook's arrival, per incident, ms. */
  deliveryMs: number[];
  /** The POST's own round trip, ms. */
  postMs: number[];
}

export interface PipelineResult {
  seconds: number;
  incidentsPerMinute: number;
  deliveriesPerMinute: number;
  /** Created but not yet delivered when the window closed. */
  backlogAtEnd: number;
  /** Incident → webhook of every incident created during the phase, ms. */
  deliveryMs: number[];
  serverCpuPercent: number;
  duplicates: number;
}

export interface DrainResult {
  backlog: number;
  /** Incidents opened per minute while building the backlog, nothing being delivered (the rule holds them back). */
  incidentsPerMinute: number;
  deliveriesPerMinute: number;
  serverCpuPercent: number;
  duplicates: number;
}

const ARRIVAL_TIMEOUT_MS = 30_000;
/** Unmeasured incidents before the latency phase: the first requests pay for JIT and connection set-up. */
const LATENCY_WARMUP = 5;

/** Runs `job` on `concurrency` workers, each taking the next sequence number, while `more()` says so. */
async function runWorkers(
  concurrency: number,
  more: (sequence: number) => boolean,
  job: (sequence: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (more(next)) await job(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

/**
 * Incidents one at a time under a rule with `delay_seconds: 0`: each waits for its webhook before the next is opened,
 * so every figure is an idle server's answer. Leaves the rule in place for the pipeline phase; returns its id.
 */
export async function measureLatency(
  bench: Bench,
  incidents: number,
): Promise<{ result: LatencyResult; ruleId: string }> {
  const { control, receiver } = bench;
  const ruleId = await control.rule('page at once', [bench.channelId], 0);
  const result: LatencyResult = { deliveryMs: [], postMs: [] };
  for (let i = 0; i < LATENCY_WARMUP + incidents; i++) {
    const started = performance.now();
    const id = await control.openIncident(i);
    const answered = performance.now();
    const arrived = await receiver.arrivalOf(id, ARRIVAL_TIMEOUT_MS);
    if (i < LATENCY_WARMUP) continue;
    result.postMs.push(answered - started);
    result.deliveryMs.push(arrived - started);
  }
  return { result, ruleId };
}

/**
 * Incidents opened as fast as `concurrency` clients can, for `warmupMs` + `durationMs`, with the outbox delivering
 * them at the same time on the same server: deliveries per minute are the webhooks that arrived inside the measured
 * window. Then waits until every incident's webhook has arrived.
 */
export async function measurePipeline(
  bench: Bench,
  options: { concurrency: number; warmupMs: number; durationMs: number },
): Promise<PipelineResult> {
  const { control, receiver, server } = bench;
  receiver.reset();
  const windowStart = performance.now() + options.warmupMs;
  const windowEnd = windowStart + options.durationMs;
  const openedAt = new Map<string, number>();
  let cpuAtStart = NaN;
  let cpuAtEnd = NaN;
  const cpuTimers = [
    setTimeout(() => (cpuAtStart = server.cpuSeconds()), options.warmupMs),
    setTimeout(() => (cpuAtEnd = server.cpuSeconds()), options.warmupMs + options.durationMs),
  ];
  let created = 0;
  let createdInWindow = 0;
  await runWorkers(
    options.concurrency,
    () => performance.now() < windowEnd,
    async (sequence) => {
      const started = performance.now();
      const id = await control.openIncident(sequence);
      openedAt.set(id, started);
      created += 1;
      if (started >= windowStart && started < windowEnd) createdInWindow += 1;
    },
  );
  const deliveredAtEnd = receiver.arrivals.length;
  const delivered = receiver.arrivals.filter((a) => a.atMs >= windowStart && a.atMs < windowEnd).length;
  await receiver.waitForCount(created, 60_000 + created * 20);
  cpuTimers.forEach(clearTimeout);
  const deliveryMs = await Promise.all(
    [...openedAt].map(async ([id, started]) => (await receiver.arrivalOf(id, ARRIVAL_TIMEOUT_MS)) - started),
  );
  const minutes = options.durationMs / 60_000;
  return {
    seconds: options.durationMs / 1000,
    incidentsPerMinute: createdInWindow / minutes,
    deliveriesPerMinute: delivered / minutes,
    backlogAtEnd: created - deliveredAtEnd,
    deliveryMs,
    serverCpuPercent: ((cpuAtEnd - cpuAtStart) / (options.durationMs / 1000)) * 100,
    duplicates: receiver.duplicates,
  };
}

/** An hour: the drain phase's rule delays every delivery this long, and the server's clock then jumps past it. */
const HOLD_SECONDS = 3600;
/**
 * Webhook channels the drain phase's rule names, so each incident makes this many deliveries (as an incident sent to a
 * webhook, a chat and a pager would): the backlog builds in a quarter of the time.
 */
export const DRAIN_FANOUT = 4;

/**
 * The outbox alone: incidents are opened under a rule that delays their webhooks by an hour, so nothing is sent while
 * the backlog of `backlog` deliveries builds; then the server's clock jumps an hour ahead and the whole backlog is due
 * at once. The rate is the backlog over the time from the jump to the last arrival.
 */
export async function measureDrain(
  bench: Bench,
  options: { backlog: number; concurrency: number },
): Promise<DrainResult> {
  const { control, receiver, server } = bench;
  const channels = [bench.channelId];
  for (let i = 2; i <= DRAIN_FANOUT; i++)
    channels.push(await control.webhookChannel(`bench receiver ${i}`, `${receiver.url}/${i}`));
  const ruleId = await control.rule('escalate after an hour', channels, HOLD_SECONDS);
  const incidents = Math.ceil(options.backlog / DRAIN_FANOUT);
  receiver.reset();
  const creating = performance.now();
  await runWorkers(
    options.concurrency,
    (sequence) => sequence < incidents,
    async (sequence) => void (await control.openIncident(sequence)),
  );
  const creationMinutes = (performance.now() - creating) / 60_000;
  if (receiver.arrivals.length > 0) throw new Error(`${receiver.arrivals.length} delayed webhooks arrived early`);

  const backlog = incidents * channels.length;
  const cpuBefore = server.cpuSeconds();
  const released = performance.now();
  await server.advance(HOLD_SECONDS * 1000 + 1000);
  await receiver.waitForCount(backlog, 60_000 + backlog * 20);
  const cpuAfter = server.cpuSeconds();
  const last = receiver.arrivals[receiver.arrivals.length - 1]!.atMs;
  await control.deleteRule(ruleId);
  return {
    backlog,
    incidentsPerMinute: incidents / creationMinutes,
    deliveriesPerMinute: backlog / ((last - released) / 60_000),
    serverCpuPercent: ((cpuAfter - cpuBefore) / ((last - released) / 1000)) * 100,
    duplicates: receiver.duplicates,
  };
}

/**
 * The receiver's own capacity: the last webhook the server sent, replayed from this process with the same headers and
 * body by `concurrency` senders, each on a new connection per request as the server's client does, for `durationMs`.
 * Sender and receiver share this process's event loop, so this is a lower bound on what the receiver can take.
 */
export async function measureReceiver(
  receiver: Receiver,
  options: { concurrency: number; durationMs: number },
): Promise<number> {
  const sample = receiver.last;
  if (!sample) throw new Error('no webhook has arrived yet to replay');
  const { hostname, port, pathname } = new URL(receiver.url);
  // The signed headers as the server sent them; `host` and `connection` are this client's own business.
  const { host: _host, connection: _connection, ...sent } = sample.headers;
  const headers = { ...sent, 'content-length': String(sample.body.length) };
  const send = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        { host: hostname, port, path: pathname, method: 'POST', headers, agent: false },
        (res) => {
          res.resume();
          res.on('end', () => resolve());
        },
      );
      req.on('error', reject);
      req.end(sample.body);
    });
  receiver.reset();
  const end = performance.now() + options.durationMs;
  await runWorkers(options.concurrency, () => performance.now() < end, send);
  return receiver.arrivals.length / (options.durationMs / 60_000);
}
