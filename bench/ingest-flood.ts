/**
 * One key floods while another sends normally (`bench/ingest.ts`, phase 5; issue 32), on a SQLite file and on a
 * throwaway PostgreSQL database (skipped, with a notice, when PostgreSQL is unreachable). Per database:
 *
 * 1. The cost of the limits on the normal path: the closed loop of phase 1 against a server with every limit off
 *    (`SVC_LIMIT_<SIGNAL>=rate=0,daily=0`) and then against one with the defaults, each on a fresh database.
 * 2. On the server with the defaults: a second project is made through the control plane (POST /control-plane/projects
 *    with an admin key) and its spans limited to FLOOD_LIMITS (PUT /control-plane/limits with its control key). Key A,
 *    the first project's, sends at a fixed rate, half the closed loop's (the open loop of phase 2), alone and then while
 *    key B, the second project's, floods from its own process (bench/ingest-flood-client.ts) over `floodConnections`
 *    connections as fast as the answers come. A's latency, its answered requests per second, B's answers and the
 *    server's resident memory (VmRSS, sampled every 100 ms) side by side.
 *
 * Target: A's p99 and answered requests/s within 10 % of the run without the flood (reported only, as the other
 * latency targets), the server's RSS under TARGET_PEAK_MIB and A never refused (both exit non-zero when missed).
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { LIMIT_SIGNALS, limitVariable } from '../server/src/limits/signals';
import { cpuSecondsOf } from '../test/support/child-lifecycle';
import { createTempDatabase, POSTGRES_ADMIN_URL, type TempDatabase } from '../test/support/databases';
import { processMemoryMiB } from './harness';
import { bodySource, singleSessionTemplate, type Body } from './ingest-bodies';
import { withChild, type IngestChild, type LaunchChild } from './ingest-child';
import type { FloodResult } from './ingest-flood-client';
import { TARGET_PEAK_MIB } from './ingest-hostile';
import { closedLoop, fmt, openLoop, type ClosedLoopOptions, type LoadResult } from './ingest-load';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const FLOOD_CLIENT = join(ROOT, 'bench', 'ingest-flood-client.ts');
const SPANS_PER_BATCH = 100;
/** Key B's project: 100 spans a second (one of its requests), in the smallest bucket the server allows. */
const FLOOD_LIMITS = { rate: 100, burst: 10_000 };
/** How far A may move under the flood. */
const TOLERANCE = 0.1;
/** Every limit off, as an operator turns them off. */
const LIMITS_OFF = Object.fromEntries(LIMIT_SIGNALS.map((s) => [limitVariable(s), 'rate=0,daily=0']));

export interface FloodOptions {
  batches: number;
  load: ClosedLoopOptions;
  floodConnections: number;
}

/** Key A's open loop and what the server's memory did meanwhile. */
interface Sending {
  a: LoadResult;
  rssMiB: number;
}

interface DatabaseRuns {
  kind: string;
  writer: string;
  off: LoadResult;
  on: LoadResult;
  rate: number;
  alone: Sending;
  flooded: Sending & { b: FloodResult & { clientCpuPercent: number } };
}

/** The largest VmRSS of `pid` from now until the returned function is called, MiB. */
function rssPeak(pid: number): () => number {
  let peak = 0;
  const read = () => (peak = Math.max(peak, processMemoryMiB(pid).rss));
  read();
  const timer = setInterval(read, 100);
  return () => {
    clearInterval(timer);
    read();
    return peak;
  };
}

async function openLoopWithRss(svc: IngestChild, nextBody: () => Body, rate: number, durationMs: number) {
  const peak = rssPeak(svc.pid);
  const a = await openLoop(svc, nextBody, rate, durationMs);
  return { a, rssMiB: peak() };
}

/** A control-plane call with `key`; throws on anything but 2xx. */
async function control<T>(url: string, key: string, method: string, path: string, body: unknown): Promise<T> {
  const res = await fetch(`${url}/control-plane${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${method} /control-plane${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

/** A second project, its spans limited to FLOOD_LIMITS; its ingest key. */
async function floodingKey(svc: IngestChild): Promise<string> {
  if (!svc.adminKey) throw new Error('the server did not bootstrap an empty database');
  const project = await control<{ ingest_key: { key: string }; control_key: { key: string } }>(
    svc.url,
    svc.adminKey,
    'POST',
    '/projects',
    { name: 'flood' },
  );
  await control(svc.url, project.control_key.key, 'PUT', '/limits', { spans: FLOOD_LIMITS });
  return project.ingest_key.key;
}

/** Starts the flooding client; resolves at its first 429 (its burst used up), with how to stop it and read its answers. */
async function startFlood(url: string, key: string, connections: number) {
  // Under tsx: only the server's memory is measured, not the load generator's.
  const proc = spawn(process.execPath, ['--import', 'tsx', FLOOD_CLIENT, url, key, String(connections)], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  const nextLine = async (what: string) => {
    const line = await lines.next();
    if (line.done) throw new Error(`the flood client exited before ${what}`);
    return line.value;
  };
  try {
    await nextLine('flooding');
  } catch (error) {
    proc.kill('SIGKILL');
    throw error;
  }
  const cpu0 = cpuSecondsOf(proc.pid!);
  return {
    /** Stops the flood: its answers, and the CPU its client used (it shares this machine with the server). */
    async stop(): Promise<FloodResult & { clientCpuPercent: number }> {
      const cpu = cpuSecondsOf(proc.pid!) - cpu0;
      proc.stdin!.end();
      const result = JSON.parse(await nextLine('reporting')) as FloodResult;
      return { ...result, clientCpuPercent: (cpu / result.seconds) * 100 };
    },
  };
}

/** Steps 1 and 2 on databases made by `database`, a fresh one per server. */
async function measureDatabase(
  launch: LaunchChild,
  kind: string,
  database: () => Promise<string>,
  options: FloodOptions,
): Promise<DatabaseRuns> {
  const templates = Array.from({ length: options.batches }, (_, i) => singleSessionTemplate(i + 1, SPANS_PER_BATCH));
  const nextBody = bodySource(templates);
  const durationMs = options.load.durationMs;
  const off = await withChild(
    launch,
    `${kind}-limits-off`,
    ['svc', await database()],
    (svc) => closedLoop([svc], nextBody, options.load),
    [],
    LIMITS_OFF,
  );
  return withChild(launch, `${kind}-limits-on`, ['svc', await database()], async (svc) => {
    const on = await closedLoop([svc], nextBody, options.load);
    const floodKey = await floodingKey(svc);
    const rate = on.rps / 2;
    const alone = await openLoopWithRss(svc, nextBody, rate, durationMs);
    const flood = await startFlood(svc.url, floodKey, options.floodConnections);
    const sending = await openLoopWithRss(svc, nextBody, rate, durationMs);
    const flooded = { ...sending, b: await flood.stop() };
    return { kind, writer: svc.writer, off, on, rate, alone, flooded };
  });
}

/** Answered (200) requests a second: the open loop's rate is offered, this is what the server kept up with. */
const answeredRps = (l: LoadResult) => l.requests / l.seconds;

function report(r: DatabaseRuns): boolean {
  const change = (after: number, before: number) =>
    `${after >= before ? '+' : ''}${fmt((after / before - 1) * 100, 1)} %`;
  console.log(`### ${r.kind} (${r.writer})\n`);
  console.log('Cost of the limits on the normal path (closed loop, a fresh database each):\n');
  console.log('| limits | requests/s | spans/s | p50 ms | p99 ms | server CPU | refused (429) | other errors |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const [name, l] of [['off (rate=0,daily=0)', r.off] as const, ['defaults', r.on] as const]) {
    const refused = l.errors - l.serverErrors;
    console.log(
      `| ${name} | ${fmt(l.rps, 1)} | ${fmt(l.spansPerSecond)} | ${fmt(l.p50, 1)} | ${fmt(l.p99, 1)} | ${fmt(l.cpuPercent)} % | ${refused} | ${l.serverErrors} |`,
    );
  }
  console.log(
    `\nDefaults against off: ${change(r.on.spansPerSecond, r.off.spansPerSecond)} spans/s, p99 ${change(r.on.p99, r.off.p99)}\n`,
  );

  const b = r.flooded.b;
  const bTotal = Object.values(b.statuses).reduce((n, c) => n + c, 0);
  const status = (s: number) => b.statuses[s] ?? 0;
  console.log(
    `Key A at ${fmt(r.rate, 1)} requests/s (open loop), key B flooding over its limit of ${FLOOD_LIMITS.rate} spans/s:\n`,
  );
  console.log(
    '| phase | A answered requests/s | A p50 ms | A p99 ms | A errors | B requests/s | B 429 | B 200 | B other | B 429 p50 / p99 ms | server CPU | server peak VmRSS MiB |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  const aCells = ({ a }: Sending) => `${fmt(answeredRps(a), 1)} | ${fmt(a.p50, 1)} | ${fmt(a.p99, 1)} | ${a.errors}`;
  const server = ({ a, rssMiB }: Sending) => `${fmt(a.cpuPercent)} % | ${fmt(rssMiB)}`;
  console.log(`| A alone | ${aCells(r.alone)} | – | – | – | – | – | ${server(r.alone)} |`);
  console.log(
    `| A with B flooding | ${aCells(r.flooded)} | ${fmt(bTotal / b.seconds)} | ${status(429)} | ${status(200)} | ` +
      `${bTotal - status(429) - status(200)} | ${fmt(b.p50Refused, 1)} / ${fmt(b.p99Refused, 1)} | ${server(r.flooded)} |`,
  );
  console.log(`\n(B's client, on the same machine, used ${fmt(b.clientCpuPercent)} % of a core.)`);
  const p99Change = r.flooded.a.p99 / r.alone.a.p99 - 1;
  const rpsChange = answeredRps(r.flooded.a) / answeredRps(r.alone.a) - 1;
  const within = (x: number) => (Math.abs(x) <= TOLERANCE ? 'met' : 'MISSED');
  const memoryMet = Math.max(r.alone.rssMiB, r.flooded.rssMiB) < TARGET_PEAK_MIB;
  console.log(
    `\nUnder the flood, A's p99: **${change(r.flooded.a.p99, r.alone.a.p99)}** (target within ${TOLERANCE * 100} %: ` +
      `${p99Change <= TOLERANCE ? 'met' : 'MISSED'}); A's answered requests/s: **${change(answeredRps(r.flooded.a), answeredRps(r.alone.a))}** ` +
      `(${within(rpsChange)}); server peak RSS under ${TARGET_PEAK_MIB} MiB: ${memoryMet ? 'met' : 'MISSED'}\n`,
  );
  const aRefused = r.alone.a.errors + r.flooded.a.errors;
  return memoryMet && aRefused === 0 && r.off.errors === 0 && r.on.serverErrors === 0;
}

/** Runs the PostgreSQL half on fresh throwaway databases, tracked in `databases` until dropped; skipped when unreachable. */
async function onPostgres(databases: Set<TempDatabase>, run: (database: () => Promise<string>) => Promise<boolean>) {
  const made: TempDatabase[] = [];
  const database = async () => {
    const d = await createTempDatabase('postgres');
    made.push(d);
    databases.add(d);
    return d.url;
  };
  let first: string;
  try {
    first = await database();
  } catch (error) {
    console.log(
      `NOTICE: PostgreSQL not reachable at ${POSTGRES_ADMIN_URL} (${(error as Error).message}): phase 5 on PostgreSQL skipped\n`,
    );
    return true;
  }
  try {
    const unused = [first];
    return await run(async () => unused.pop() ?? database());
  } finally {
    for (const d of made) {
      await d.drop();
      databases.delete(d);
    }
  }
}

/** Runs the phase on SQLite and PostgreSQL and prints its tables; false when a target that fails the run was missed. */
export async function measureFlood(
  launch: LaunchChild,
  work: string,
  databases: Set<TempDatabase>,
  options: FloodOptions,
): Promise<boolean> {
  console.log(
    `## Phase 5: one key floods while another sends normally (${options.floodConnections} flooding connections)\n`,
  );
  let files = 0;
  const sqlite = async () => join(work, `flood-${++files}.db`);
  const ok = report(await measureDatabase(launch, 'SQLite file', sqlite, options));
  const postgresOk = await onPostgres(databases, async (postgres) =>
    report(await measureDatabase(launch, 'PostgreSQL', postgres, options)),
  );
  return ok && postgresOk;
}
