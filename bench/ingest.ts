/**
 * Ingest benchmark: throughput of the reference server against a ceiling, its memory under hostile single requests, and
 * its replicas on PostgreSQL. Every server runs in a child process (bench/ingest-server.ts, under plain node with the
 * memory settings of `svc-server start`); this process only generates load, over loopback.
 *
 *   npm run bench:ingest [-- --duration 10 --warmup 2 --connections 16 --batches 64 --profile
 *                            --flood-connections 16
 *                            --phases throughput,hostile,replicas,flood]
 *
 * Load: `batches` OTLP/JSON trace batches generated once (bench/ingest-bodies.ts); every request copies one and
 * stamps its own number into each trace id, so every span it carries is new to the server (ingest is idempotent: a
 * body posted twice stores nothing the second time) without generating JSON per request.
 *
 * Phase 1 (closed loop, SQLite file, WAL): `connections` keep-alive connections each send the next 100-span batch of
 * one browser session as soon as the previous answer arrives, for `warmup` + `duration` seconds, to the ceiling (a
 * bare node:http server that only reads and JSON.parses) and then to the reference server; only requests completed
 * inside the measured window count. Reports requests/s, spans/s, p50/p99 latency, server CPU and peak RSS (VmHWM).
 * Phase 2 (open loop): requests at a fixed rate, half the reference server's phase-1 maximum, for `duration` seconds;
 * latency counts from each request's scheduled send time, so a stalled server cannot hide its queueing delay. Then the
 * SQLite file is opened and its spans counted: exactly the acknowledged spans must be there.
 * Phase 3 (hostile bodies, bench/ingest-hostile.ts): five single requests at or over the ingest limits, each alone to
 * a fresh server; status, answer time and the server's peak RSS after it, beside an idle server's. Target: peak RSS
 * under 400 MiB whatever one request holds.
 * Phase 4 (replicas, bench/ingest-replicas.ts): the reference server on a throwaway PostgreSQL database, one replica
 * then two, closed loop round-robin over them with batches of 4 sessions × 25 spans that share sessions in different
 * orders (OpenTelemetry Collectors behind a load balancer); every answer must be 200 and every acknowledged span stored
 * once. Skipped, with a notice, when PostgreSQL (SVC_TEST_POSTGRES_URL, default 127.0.0.1:5432) is unreachable.
 *
 * Phase 5 (flood, bench/ingest-flood.ts; issue 32), on a SQLite file and a throwaway PostgreSQL database: the closed
 * loop against a server with every limit off and against one with the defaults (what the limits cost the normal
 * path); then on the latter one key sends at half its maximum rate (open loop), alone and while a second project's key,
 * limited to 1,000 spans a second, floods over `flood-connections` connections from a process of its own. The normal
 * key's p99 and answered requests/s under the flood against without it (target: within 10 %), the flood's 429s, and
 * the server's peak VmRSS (target: under the 400 MiB of phase 3).
 *
 * Any error, missed count or missed memory target exits non-zero; the throughput targets are reported only.
 * `--profile` runs the phase-1/2 reference server under `node --cpu-prof` and prints its top self-time functions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import type { TempDatabase } from '../test/support/databases';
import { cpuProfileTables } from './cpu-profile';
import { processMemoryMiB, runBench } from './harness';
import { bodySource, singleSessionTemplate, type Body } from './ingest-bodies';
import { childLauncher, withChild, type IngestChild, type LaunchChild } from './ingest-child';
import { measureHostileBodies } from './ingest-hostile';
import { measureFlood } from './ingest-flood';
import { closedLoop, fmt, openLoop, type ClosedLoopOptions, type LoadResult } from './ingest-load';
import { measureReplicas } from './ingest-replicas';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SPANS_PER_BATCH = 100;
const PHASES = ['throughput', 'hostile', 'replicas', 'flood'] as const;

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    batches: { type: 'string', default: '64' },
    'flood-connections': { type: 'string', default: '16' },
    profile: { type: 'boolean', default: false },
    /** Print what held the server's event loop during phase 2 (bench/ingest-server.ts, SVC_BENCH_STALLS). */
    stalls: { type: 'boolean', default: false },
    phases: { type: 'string', default: PHASES.join(',') },
  },
});
const DURATION_MS = Number(args.duration) * 1000;
const WARMUP_MS = Number(args.warmup) * 1000;
const CONNECTIONS = Number(args.connections);
const BATCHES = Number(args.batches);
const FLOOD_CONNECTIONS = Number(args['flood-connections']);
for (const [k, v] of Object.entries({ DURATION_MS, WARMUP_MS, CONNECTIONS, BATCHES, FLOOD_CONNECTIONS })) {
  if (!Number.isFinite(v) || v < 0 || (k !== 'WARMUP_MS' && v === 0)) throw new Error(`invalid --${k.toLowerCase()}`);
}
const SELECTED = new Set(args.phases.split(',').map((p) => p.trim()));
for (const p of SELECTED)
  if (!(PHASES as readonly string[]).includes(p)) throw new Error(`unknown phase "${p}" (known: ${PHASES.join(', ')})`);
const LOAD: ClosedLoopOptions = { connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: DURATION_MS };

/** Generous for a run anywhere near normal: nine loaded windows, five open loops, 16 server starts; beyond it is a hang. */
const WATCHDOG_MS = 360_000 + 14 * (WARMUP_MS + DURATION_MS);
/** Throwaway PostgreSQL databases, dropped even when the watchdog ends the run. */
const databases = new Set<TempDatabase>();

interface ThroughputRuns {
  ceiling: LoadResult;
  ceilingRss: number;
  svc: LoadResult;
  svcRss: number;
  open: LoadResult;
  openRss: number;
  writer: string;
}

/** Phase 1 against the ceiling and the reference server on `dbPath`, then phase 2 against the reference server. */
async function runThroughput(
  launch: LaunchChild,
  nextBody: () => Body,
  dbPath: string,
  profileDir: string,
): Promise<ThroughputRuns> {
  const peakOf = (child: IngestChild) => processMemoryMiB(child.pid).peak;
  const ceiling = await withChild(launch, 'ceiling', ['ceiling'], async (c) => ({
    ceiling: await closedLoop([c], nextBody, LOAD),
    ceilingRss: peakOf(c),
  }));
  const profileArgs = args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  return withChild(
    launch,
    'svc',
    ['svc', dbPath],
    async (svc) => {
      const closed = await closedLoop([svc], nextBody, LOAD);
      const svcRss = peakOf(svc);
      if (args.stalls) process.kill(svc.pid, 'SIGUSR2');
      const open = await openLoop(svc, nextBody, closed.rps / 2, DURATION_MS);
      if (args.stalls) process.kill(svc.pid, 'SIGUSR1');
      return { ...ceiling, svc: closed, svcRss, open, openRss: peakOf(svc), writer: svc.writer };
    },
    profileArgs,
    args.stalls ? { SVC_BENCH_STALLS: '1' } : {},
  );
}

/** Spans in the SQLite file at `dbPath`. */
function storedSpans(dbPath: string): number {
  const db = new Database(dbPath, { readonly: true });
  try {
    return (db.prepare('select count(*) as n from spans').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

/** Phases 1 and 2 on a SQLite file in `work`; false when an answer was not 200 or the stored spans are not those acknowledged. */
async function measureThroughput(launch: LaunchChild, work: string): Promise<boolean> {
  const templates = Array.from({ length: BATCHES }, (_, i) => singleSessionTemplate(i + 1, SPANS_PER_BATCH));
  const avgKiB = templates.reduce((n, t) => n + t.json.length, 0) / templates.length / 1024;
  console.log(
    `Load: ${BATCHES} ${SPANS_PER_BATCH}-span OTLP/JSON batches (avg ${fmt(avgKiB, 1)} KiB), fresh trace ids in every request\n`,
  );
  const dbPath = join(work, 'svc.db');
  const profileDir = join(work, 'profile');
  const r = await runThroughput(launch, bodySource(templates), dbPath, profileDir);
  // Nothing acknowledged may be missing from the database, nor anything stored that was not acknowledged.
  const stored = storedSpans(dbPath);
  const acknowledged = r.svc.acknowledgedSpans + r.open.acknowledgedSpans;

  const svcName = `svc reference server (${r.writer})`;
  const ratio = r.svc.spansPerSecond / r.ceiling.spansPerSecond;
  const row = (name: string, l: LoadResult, rss: number) =>
    `| ${name} | ${fmt(l.rps, 1)} | ${fmt(l.spansPerSecond)} | ${fmt(l.p50, 1)} | ${fmt(l.p99, 1)} | ${fmt(rss)} | ${fmt(l.cpuPercent)} % | ${l.errors} |`;
  console.log('## Phase 1: maximum throughput (closed loop)\n');
  console.log('| server | requests/s | spans/s | p50 ms | p99 ms | peak RSS MiB | server CPU | errors |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  console.log(row('ceiling: node:http + JSON.parse', r.ceiling, r.ceilingRss));
  console.log(row(svcName, r.svc, r.svcRss));
  console.log(
    `\nsvc / ceiling spans/s: **${fmt(ratio * 100, 1)} %** (target ≥ 60 %: ${ratio >= 0.6 ? 'met' : 'MISSED'})\n`,
  );

  console.log(`## Phase 2: svc at half its maximum rate (open loop, ${fmt(r.svc.rps / 2, 1)} requests/s)\n`);
  console.log('| server | offered requests/s | spans/s | p50 ms | p99 ms | peak RSS MiB | server CPU | errors |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  console.log(row(svcName, r.open, r.openRss));
  console.log(
    `\np99 at half the maximum rate: **${fmt(r.open.p99, 1)} ms** (target < 50 ms: ${r.open.p99 < 50 ? 'met' : 'MISSED'})\n`,
  );
  console.log(
    `Stored spans: ${fmt(stored)} of ${fmt(acknowledged)} acknowledged ${stored === acknowledged ? '(all present, none more)' : '(MISMATCH)'}\n`,
  );
  if (args.profile) {
    const inclusive = /server\/src\/|kysely\/dist\/esm\/dialect\/sqlite\/|node_modules\/better-sqlite3\//;
    console.log(`${cpuProfileTables({ dir: profileDir, root: ROOT, title: 'ingest', inclusive })}\n`);
  }
  return stored === acknowledged && r.svc.errors + r.open.errors + r.ceiling.errors === 0;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  try {
    const launch = await childLauncher(ROOT, work);
    console.log(
      `# Ingest benchmark: ${CONNECTIONS} connections, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s per loaded phase, ` +
        `phases: ${[...SELECTED].join(', ')}\n`,
    );
    console.log(
      `Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}\n`,
    );
    let ok = true;
    if (SELECTED.has('throughput')) ok = (await measureThroughput(launch, work)) && ok;
    if (SELECTED.has('hostile')) ok = (await measureHostileBodies(launch, work)) && ok;
    if (SELECTED.has('replicas')) ok = (await measureReplicas(launch, databases, BATCHES, LOAD)) && ok;
    if (SELECTED.has('flood')) {
      const options = { batches: BATCHES, load: LOAD, floodConnections: FLOOD_CONNECTIONS };
      ok = (await measureFlood(launch, work, databases, options)) && ok;
    }
    if (!ok) process.exitCode = 1;
  } finally {
    if (!args.profile) rmSync(work, { recursive: true, force: true });
    else console.log(`(profile and database kept in ${work})`);
  }
}

runBench('bench:ingest', main, databases, WATCHDOG_MS);
