/**
 * Retention benchmark (issue 32): does the retention job's batched deletion block ingest on PostgreSQL?
 *
 *   npm run bench:retention [-- --rows 1000000 --connections 4 --seconds 10 --batch 5000]
 *
 * On a throwaway PostgreSQL database (SVC_TEST_POSTGRES_URL, default postgres://postgres@127.0.0.1:5432/test):
 * 1. The built reference server starts in a child process (bench/ingest-server.ts) and bootstraps the database; its
 *    retention run at start finds nothing to delete.
 * 2. `rows` spans are written straight into the database (INSERT … SELECT generate_series, in statements of 1 M rows),
 *    received 400 days ago, beside the project's other data: what a year of traffic leaves past a 30-day retention.
 * 3. Baseline: `connections` closed-loop workers post 100-span OTLP/JSON batches through the server for `seconds`.
 * 4. That server stops, and a second one starts on the same database: its retention run at start (the server's own job,
 *    in its own process, SVC_RETENTION_DAYS 30) deletes the old spans in batches while the same ingest loop runs, until
 *    no old span is left. The bench polls for that (an index probe every 250 ms).
 * Reports ingest requests/s, p50 and p99 without and during the deletion, errors, and the deletion's rows/s. Exits
 * non-zero on any ingest error or an old span left.
 *
 * `--mode batched` (the default) writes the old spans 400 days back, older than any day partition (db/partitions.ts):
 * they lie in a partition that is not a day's (`spans_before`) and retention deletes them in batches, as it does on
 * SQLite and for a day some project still keeps. `--mode drop` writes them all into one day 40 days back, which has its own partition: retention
 * drops that day whole (retention/partition-drop.ts).
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { systemClock } from '../server/src/clock';
import { openDatabase } from '../server/src/db/connect';
import { createDayPartition, dayStart } from '../server/src/db/partitions';
import { applyRetention } from '../server/src/retention/job';
import { createTempDatabase, type TempDatabase } from '../test/support/databases';
import { runBench } from './harness';
import { bodySource, singleSessionTemplate, type Body } from './ingest-bodies';
import { childLauncher, withChild, type LaunchChild, type Target } from './ingest-child';
import { fmt, send } from './ingest-load';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const DAY_MS = 86_400_000;
const INSERT_CHUNK = 1_000_000;

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    connections: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '10' },
    mode: { type: 'string', default: 'batched' },
  },
});
const MODE = args.mode;
if (MODE !== 'batched' && MODE !== 'drop') throw new Error('--mode must be batched or drop');
const ROWS = Number(args.rows);
const CONNECTIONS = Number(args.connections);
const SECONDS = Number(args.seconds);
for (const [name, v] of Object.entries({ rows: ROWS, connections: CONNECTIONS, seconds: SECONDS }))
  if (!Number.isInteger(v) || v <= 0) throw new Error(`--${name} must be a positive integer`);

const databases = new Set<TempDatabase>();

interface Ingest {
  requests: number;
  errors: number;
  seconds: number;
  p50: number;
  p99: number;
}

/** Closed-loop ingest against `target` until `until` resolves; latency of every request, errors counted. */
async function ingestUntil(target: Target, nextBody: () => Body, until: Promise<unknown>): Promise<Ingest> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let done = false;
  void until.finally(() => (done = true));
  const latencies: number[] = [];
  let errors = 0;
  const start = performance.now();
  const worker = async () => {
    while (!done) {
      const t0 = performance.now();
      const answer = await send(agent, target, { path: '/otlp/v1/traces', body: nextBody().bytes });
      if (answer.status === 200) latencies.push(answer.endMs - t0);
      else errors += 1;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
  const sorted = latencies.sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return { requests: sorted.length, errors, seconds: (performance.now() - start) / 1000, p50: at(0.5), p99: at(0.99) };
}

/**
 * Writes `rows` spans into the bootstrapped project, a million per statement: received 400 days ago (`batched`), or
 * within the day 40 days ago, whose partition it makes first (`drop`).
 */
async function fillOldSpans(
  client: pg.Client,
  url: string,
  rows: number,
): Promise<{ projectId: string; oldMs: number }> {
  const app = await client.query<{ id: string; project_id: string }>('select id, project_id from apps limit 1');
  const { id: appId, project_id: projectId } = app.rows[0]!;
  const oldMs = MODE === 'batched' ? Date.now() - 400 * DAY_MS : dayStart(Date.now() - 40 * DAY_MS);
  if (MODE === 'drop') {
    if (rows >= DAY_MS) throw new Error(`--rows must be under ${DAY_MS} in drop mode: one a millisecond of the day`);
    const handle = openDatabase(url);
    await createDayPartition(handle.db, 'spans', oldMs).finally(() => handle.close());
  }
  for (let from = 0; from < rows; from += INSERT_CHUNK) {
    const to = Math.min(rows, from + INSERT_CHUNK);
    const t0 = performance.now();
    await client.query(
      `insert into spans (project_id, app_id, trace_id, trace_key, span_id, parent_span_id, name, kind, start_ns, end_ns,
         time_ms, duration_ms, status_code, status_message, session_id, attributes, events, links, resource, scope,
         received_ms)
       select $1, $2, md5(g::text), g, lpad(to_hex(g), 16, '0'), null, 'GET /api/orders', 3, '1', '2', $3 + g, 12.5, 1,
         null, 'old-' || (g / 100), '{"http.method":"GET","http.status_code":200}', '[]', '[]',
         '{"service.name":"web-app"}', '{"name":"@svc/browser"}', $3 + g
       from generate_series($4::bigint, $5::bigint) g`,
      [projectId, appId, oldMs, from + 1, to],
    );
    console.log(
      `  wrote ${fmt(to)} of ${fmt(rows)} old spans (${fmt((to - from) / ((performance.now() - t0) / 1000))}/s)`,
    );
  }
  await client.query('vacuum analyze spans');
  return { projectId, oldMs };
}

/** Resolves once the project has no span received before `beforeMs`, with the time it took from `startMs`. */
async function whenDeleted(client: pg.Client, projectId: string, beforeMs: number, startMs: number): Promise<number> {
  for (;;) {
    const { rows } = await client.query<{ left: boolean }>(
      'select exists (select 1 from spans where project_id = $1 and received_ms < $2) as left',
      [projectId, beforeMs],
    );
    if (!rows[0]!.left) return (performance.now() - startMs) / 1000;
    await new Promise((r) => setTimeout(r, 250));
  }
}

const row = (name: string, r: Ingest) =>
  `| ${name} | ${fmt(r.seconds, 1)} | ${fmt(r.requests / r.seconds, 1)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${r.errors} |`;

interface Run {
  baseline: Ingest;
  during: Ingest;
  /** The deletion's figures, one sentence. */
  deletion: string;
}

/**
 * The first server ingests for the baseline; a second, started on the same database, deletes the old spans in its
 * retention run at start while the same ingest loop runs against it.
 */
async function batchedRun(launch: LaunchChild, client: pg.Client, url: string, nextBody: () => Body): Promise<Run> {
  const { baseline, key, projectId, oldMs } = await withChild(launch, 'first', ['svc', url], async (svc) => {
    const filled = await fillOldSpans(client, url, ROWS);
    const timer = new Promise((r) => setTimeout(r, SECONDS * 1000));
    return { ...filled, key: svc.ingestKey, baseline: await ingestUntil(svc, nextBody, timer) };
  });
  const launchedMs = performance.now();
  const { during, deletedIn } = await withChild(launch, 'second', ['svc', url], async (svc) => {
    const deleted = whenDeleted(client, projectId, oldMs + ROWS + 1, launchedMs);
    const load = await ingestUntil({ ...svc, ingestKey: key }, nextBody, deleted);
    return { during: load, deletedIn: await deleted };
  });
  const deletion =
    `Deletion: ${fmt(ROWS)} rows in ${fmt(deletedIn, 1)} s from the second server's launch ` +
    `(start-up included): ${fmt(ROWS / deletedIn)} rows/s`;
  return { baseline, during, deletion };
}

/**
 * After the baseline, this process runs the retention job itself (applyRetention, what each server runs hourly), timed
 * from its call to its end, while the same ingest loop goes on against the server until it ends: the old day's
 * partition is dropped whole, so the run is too short to wait for by polling.
 */
async function dropRun(launch: LaunchChild, client: pg.Client, url: string, nextBody: () => Body): Promise<Run> {
  return withChild(launch, 'server', ['svc', url], async (svc) => {
    const { projectId, oldMs } = await fillOldSpans(client, url, ROWS);
    const timer = new Promise((r) => setTimeout(r, SECONDS * 1000));
    const baseline = await ingestUntil(svc, nextBody, timer);
    const handle = openDatabase(url);
    try {
      const t0 = performance.now();
      const job = applyRetention(handle.db, systemClock, 30).then(({ deleted }) => ({
        seconds: (performance.now() - t0) / 1000,
        rows: deleted.spans ?? 0,
      }));
      const during = await ingestUntil(svc, nextBody, job);
      const { seconds, rows } = await job;
      const left = await client.query<{ left: boolean }>(
        'select exists (select 1 from spans where project_id = $1 and received_ms < $2) as left',
        [projectId, oldMs + ROWS + 1],
      );
      if (rows !== ROWS || left.rows[0]!.left) throw new Error(`the job deleted ${rows} of ${ROWS} old spans`);
      const deletion = `Deletion: ${fmt(ROWS)} rows (one day's partition dropped) in ${fmt(seconds, 2)} s, the retention job's whole run`;
      return { baseline, during, deletion };
    } finally {
      await handle.close();
    }
  });
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-retention-'));
  const database = await createTempDatabase('postgres');
  databases.add(database);
  const client = new pg.Client({ connectionString: database.url });
  try {
    const launch = await childLauncher(ROOT, work);
    const nextBody = bodySource(Array.from({ length: 32 }, (_, i) => singleSessionTemplate(i + 1, 100)));
    await client.connect();
    console.log(
      `# Retention on PostgreSQL (${MODE}): ${fmt(ROWS)} spans past retention, ${CONNECTIONS} ingest connections\n`,
    );
    const { baseline, during, deletion } =
      MODE === 'drop'
        ? await dropRun(launch, client, database.url, nextBody)
        : await batchedRun(launch, client, database.url, nextBody);
    console.log('\n| ingest | seconds | requests/s | p50 ms | p99 ms | errors |');
    console.log('|---|---:|---:|---:|---:|---:|');
    console.log(row('without deletion', baseline));
    console.log(row('during deletion', during));
    console.log(`\n${deletion}\n`);
    if (baseline.errors + during.errors > 0) throw new Error('ingest answered errors');
  } finally {
    await client.end().catch(() => undefined);
    await database.drop();
    databases.delete(database);
    rmSync(work, { recursive: true, force: true });
  }
}

runBench('bench:retention', main, databases, 3_600_000);
