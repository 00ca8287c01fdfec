/**
 * A busy web app's month in the reference server, loaded through the real ingest, then every console query timed
 * (issue 33: every one p95 ≤ 200 ms, most ≤ 50 ms, on a 2-core machine).
 *
 *   npm run bench:scale [-- --scale 1 --databases postgres,sqlite --requests 20 --connections 6]
 *
 * `--scale 1` is the month of the issue: 10,000,000 spans, 1,000,000 sessions (50,000 with a replay of two chunks),
 * 20,000 issues, 5,000,000 log records and 5,000,000 Web Vitals points, over 30 days (bench/scale-data.ts). `--scale
 * 0.1` loads a tenth of each, for a quick look. Per database, the built server runs as a child (bench/ingest-server.ts,
 * as `svc-server start` runs it, the incident detector on, retention off so the month stays whole); the loader posts
 * OTLP/JSON as a collector batches browsers' exports (50 sessions' spans, 100 sessions' logs or vitals per request) and
 * each replay chunk as the SDK sends it, over `--connections` keep-alive connections on loopback, and checks every
 * record was acknowledged. It then waits for the detector to have read every log record, lets PostgreSQL ANALYZE as its
 * autovacuum would after such a load, and measures: each view of each console page (lists with each filter and sort,
 * second pages, detail pages' API calls, Web Vitals, issues, trace search) `--requests` times in turn after a warm-up,
 * one request at a time. Printed: the load's time and rate per signal, the database's size per million spans and per
 * replay session, and each view's median and p95 as the Markdown of docs/benchmarks.md. Exits non-zero when a p95
 * misses 200 ms. `--load-only` loads, prints the load's figures and leaves the database; `--loaded postgres=URL` (or
 * `sqlite=FILE`) then measures it as it is and keeps it, so one load serves several builds of the server.
 */
import http from 'node:http';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createKey, openDatabase, rollUpVitals } from '../server/src/index';
import { sql, type Kysely } from 'kysely';
import { createDayPartition, dayStart, ensurePartitions, MAINTENANCE_LOCK } from '../server/src/db/partitions';
import { TELEMETRY_TABLES } from '../server/src/db/schema';
import { systemClock } from '../server/src/clock';
import { createTempDatabase, type DatabaseKind, type TempDatabase } from '../test/support/databases';
import { runBench } from './harness';
import { loadedDatabases } from './loaded-databases';
import { childLauncher, withChild, type IngestChild } from './ingest-child';
import { send } from './ingest-load';
import { otlpBody, RARE_PAGE, releaseAt, replayChunks, scaledShape, sessionOf, type ScaleShape } from './scale-data';

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: '1' },
    days: { type: 'string', default: '30' },
    databases: { type: 'string', default: 'postgres,sqlite' },
    requests: { type: 'string', default: '20' },
    connections: { type: 'string', default: '6' },
    /** Load, print the load's figures and the database's URL and leave it (PostgreSQL) for a closer look. */
    'load-only': { type: 'boolean', default: false },
    /** `postgres=URL,sqlite=FILE`: measure databases an earlier `--load-only` left instead of loading (kept after). */
    loaded: { type: 'string', default: '' },
  },
});
const SCALE = Number(args.scale);
const DAYS = Number(args.days);
const REQUESTS = Number(args.requests);
const CONNECTIONS = Number(args.connections);
if (!(SCALE > 0 && SCALE <= 10)) throw new Error('--scale must be a number in (0, 10]');
if (!Number.isInteger(DAYS) || DAYS < 1 || DAYS > 90) throw new Error('--days must be an integer in 1..90');
if (!Number.isInteger(REQUESTS) || REQUESTS < 5) throw new Error('--requests must be an integer ≥ 5');
if (!Number.isInteger(CONNECTIONS) || CONNECTIONS < 1) throw new Error('--connections must be a positive integer');
const DATABASES = args.databases.split(',').map((name) => name.trim()) as DatabaseKind[];
for (const name of DATABASES)
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`unknown database "${name}" (known: sqlite, postgres)`);

const TARGET_MS = 200;
const MOST_MS = 50;
const DAY = 86_400_000;
const NOW = Date.now();
const SHAPE: ScaleShape = scaledShape(SCALE, DAYS, NOW);
/** Sessions per OTLP request of each signal: about 500 records a request. */
const BATCH = { traces: 50, logs: 100, metrics: 100 } as const;

// ---------------------------------------------------------------------------------------------------------------- load

interface PhaseFigures {
  phase: string;
  records: number;
  requests: number;
  seconds: number;
}

/** Runs `count` numbered jobs over CONNECTIONS workers; each job posts one body and must be answered 200. */
async function postAll(
  target: IngestChild,
  phase: string,
  count: number,
  job: (n: number) => { path: string; bytes: Buffer; records: number },
): Promise<PhaseFigures> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const started = performance.now();
  let next = 0;
  let records = 0;
  let lastReport = started;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const { path, bytes, records: sent } = job(n);
      const answer = await sendUntilStored(agent, target, path, bytes);
      if (answer.status !== 200)
        throw new Error(`${phase} request ${n}: ${answer.status} ${answer.text.slice(0, 300)}`);
      records += sent;
      if (performance.now() - lastReport > 30_000) {
        lastReport = performance.now();
        console.error(`  ${phase}: ${((100 * next) / count).toFixed(0)} % (${records.toLocaleString('en')} records)`);
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  agent.destroy();
  return { phase, records, requests: count, seconds: (performance.now() - started) / 1000 };
}

/** A 429 or 503 is waited out as the SDK does (its Retry-After), then sent again: the load must arrive whole. */
async function sendUntilStored(agent: http.Agent, target: IngestChild, path: string, body: Buffer) {
  for (;;) {
    const answer = await send(agent, target, { path, body });
    if (answer.status !== 429 && answer.status !== 503) return answer;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

/** The month, signal by signal: spans, logs, Web Vitals, then the replays. */
async function load(target: IngestChild): Promise<PhaseFigures[]> {
  const sessionsOf = (batch: number, n: number) =>
    Array.from({ length: Math.min(batch, SHAPE.sessions - n * batch) }, (_, i) => sessionOf(SHAPE, n * batch + i));
  const phases: PhaseFigures[] = [];
  for (const [signal, path] of [
    ['traces', '/otlp/v1/traces'],
    ['logs', '/otlp/v1/logs'],
    ['metrics', '/otlp/v1/metrics'],
  ] as const) {
    const batch = BATCH[signal];
    console.error(`  loading ${signal}...`);
    phases.push(
      await postAll(target, signal, Math.ceil(SHAPE.sessions / batch), (n) => ({
        path,
        ...otlpBody(signal, SHAPE, sessionsOf(batch, n)),
      })),
    );
  }
  const replaySessions: number[] = [];
  for (let i = 0; i < SHAPE.sessions; i++) if (sessionOf(SHAPE, i).replay) replaySessions.push(i);
  console.error(`  loading ${replaySessions.length.toLocaleString('en')} replays...`);
  phases.push(
    await postAll(target, 'replay chunks', replaySessions.length * 2, (n) => ({
      path: '/ingest/replay/chunk',
      bytes: replayChunks(sessionOf(SHAPE, replaySessions[n >> 1]!))[n & 1]!,
      records: 1,
    })),
  );
  return phases;
}

// ------------------------------------------------------------------------------------------------- the database itself

/** Plain SQL on the server's database from the benchmark's side: counting, waiting, sizing. */
interface SideDb {
  one(query: string): Promise<number>;
  run(query: string): Promise<void>;
  close(): Promise<void>;
}

async function sideDb(kind: DatabaseKind, url: string): Promise<SideDb> {
  if (kind === 'sqlite') {
    const db = new Database(url, { readonly: true });
    return {
      one: async (query) => Number(Object.values(db.prepare(query).get() as object)[0]),
      run: async () => undefined,
      close: async () => void db.close(),
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    one: async (query) => Number(Object.values((await client.query(query)).rows[0] as object)[0]),
    run: async (query) => void (await client.query(query)),
    close: () => client.end(),
  };
}

/** Until the detector has read every log record (its issues are then all there). */
async function detectionCaughtUp(db: SideDb): Promise<number> {
  const started = performance.now();
  for (;;) {
    const behind = await db.one(
      `select (select coalesce(max(id), 0) from logs) - coalesce((select last_id from detection_cursors where source = 'logs'), 0)`,
    );
    if (behind <= 0) return (performance.now() - started) / 1000;
    if (performance.now() - started > 30 * 60_000) throw new Error(`detection still ${behind} log rows behind`);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/**
 * Rolls the loaded Web Vitals up as the server's job does over its first runs after an upgrade (vitals/rollup/job.ts,
 * a week of hours a run), run after run until one finds nothing to do; the seconds it took. The server's own runs
 * (every 5 minutes) may go at the same time: both store the same rows.
 */
async function vitalsRolledUp(url: string): Promise<number> {
  const started = performance.now();
  const handle = openDatabase(url);
  try {
    for (;;) {
      const done = await rollUpVitals(handle.db, systemClock);
      if (done.hours + done.days + done.stale === 0) return (performance.now() - started) / 1000;
    }
  } finally {
    await handle.close();
  }
}

/**
 * A month of real traffic arrives day by day, each day into the partition the server made for it a week ahead
 * (db/partitions.ts). Loaded in one go, the past days would land in the default partition and be moved out row by row
 * (below), which costs hours at the month's size and leaves nothing a real month has. So the month's days get their
 * partitions before the load, as they would have had: empty, made in a moment.
 */
async function monthPartitionsAhead(url: string): Promise<void> {
  const handle = openDatabase(url);
  try {
    await daysOfTheMonthMade(handle.db);
  } finally {
    await handle.close();
  }
}

async function daysOfTheMonthMade<DB>(db: Kysely<DB>): Promise<void> {
  for (const table of TELEMETRY_TABLES)
    for (let day = dayStart(NOW - (DAYS + 1) * DAY); day < dayStart(NOW); day += DAY)
      await db.transaction().execute(async (tx) => {
        await sql`select ${MAINTENANCE_LOCK}`.execute(tx);
        await createDayPartition(tx, table, day);
      });
}

/**
 * What the load left in PostgreSQL's default partitions (its past days had none): the server's partition
 * maintenance moves them into day partitions over its hourly runs (db/partitions.ts), which this runs back to back.
 */
async function partitionsMade(url: string): Promise<void> {
  const handle = openDatabase(url);
  try {
    while ((await ensurePartitions(handle.db, Date.now())) > 0);
  } finally {
    await handle.close();
  }
}

interface Sizes {
  bytes: number;
  spansBytes: number;
  replayBytes: number;
}

/** The database's size, and what the spans (with their indexes) and the replay chunks take of it. */
async function sizes(kind: DatabaseKind, url: string, db: SideDb): Promise<Sizes> {
  if (kind === 'postgres') {
    const table = async (name: string) =>
      db.one(
        `select coalesce(sum(pg_total_relation_size(c.oid)), 0) from pg_class c where c.relname = '${name}' or c.oid in (select inhrelid from pg_inherits where inhparent = '${name}'::regclass)`,
      );
    return {
      bytes: await db.one('select pg_database_size(current_database())'),
      spansBytes: await table('spans'),
      replayBytes: await table('replay_chunks'),
    };
  }
  const table = (name: string) =>
    db
      .one(`select coalesce(sum(pgsize), 0) from dbstat where name = '${name}' or tbl_name = '${name}'`)
      .catch(() => NaN);
  const wal = (() => {
    try {
      return statSync(`${url}-wal`).size;
    } catch {
      return 0;
    }
  })();
  return {
    bytes: statSync(url).size + wal,
    spansBytes: await table('spans'),
    replayBytes: await table('replay_chunks'),
  };
}

// ---------------------------------------------------------------------------------------------------------- the views

interface View {
  page: string;
  name: string;
  path: string;
}

interface Known {
  sessionId: string;
  replaySessionId: string;
  traceId: string;
  issueId: string;
  sessionsCursor: string;
  tracesCursor: string;
  issuesCursor: string;
  release: string;
}

/** Every view of the console's pages, with ids and cursors the first answers gave. */
function views(k: Known): View[] {
  const day = NOW - DAY;
  const week = NOW - 7 * DAY;
  const month = NOW - DAYS * DAY;
  const v = (page: string, name: string, path: string): View => ({ page, name, path });
  return [
    v('Sessions', 'default (newest activity)', '/sessions?limit=50'),
    v('Sessions', 'sort=first_seen', '/sessions?limit=50&sort=first_seen'),
    v('Sessions', 'sort=duration', '/sessions?limit=50&sort=duration'),
    v('Sessions', 'sort=errors', '/sessions?limit=50&sort=errors'),
    v('Sessions', 'second page', `/sessions?limit=50&cursor=${k.sessionsCursor}`),
    v('Sessions', 'last 24 h', `/sessions?limit=50&from=${day}`),
    v('Sessions', 'env=staging', '/sessions?limit=50&env=staging'),
    v('Sessions', `release=${k.release}`, `/sessions?limit=50&release=${k.release}`),
    v('Sessions', 'browser=Firefox', '/sessions?limit=50&browser=Firefox'),
    v('Sessions', 'has_errors=true', '/sessions?limit=50&has_errors=true'),
    v('Sessions', 'url=checkout', '/sessions?limit=50&url=checkout'),
    v('Sessions', 'url=rare (1 in 10,000)', `/sessions?limit=50&url=${RARE_PAGE.slice(7)}`),
    v('Sessions', 'user_id=user-42', '/sessions?limit=50&user_id=user-42'),
    v('Sessions', 'attr.plan=enterprise', '/sessions?limit=50&attr.plan=enterprise'),
    v('Sessions', 'min_duration_ms=120000', '/sessions?limit=50&min_duration_ms=120000'),
    v('Sessions', 'facets (30 days)', `/sessions/facets?from=${month}`),
    v('Sessions', 'facets (24 h)', `/sessions/facets?from=${day}`),
    v('Sessions', 'sampling', `/sessions/sampling?from=${week}`),
    v('Session', 'summary', `/sessions/${k.replaySessionId}`),
    v('Session', 'replay', `/sessions/${k.replaySessionId}/replay`),
    v('Session', 'recipes', `/sessions/${k.replaySessionId}/recipes`),
    v('Session', 'spans', `/spans?session_id=${k.sessionId}&limit=100`),
    v('Session', 'logs', `/logs?session_id=${k.sessionId}&limit=100`),
    v('Session', 'metrics', `/metrics?session_id=${k.sessionId}&limit=100`),
    v('Session', 'traces', `/traces?session_id=${k.sessionId}`),
    v('Traces', 'default (24 h)', '/traces?limit=50'),
    v('Traces', '7 days', `/traces?limit=50&from=${week}`),
    v('Traces', '30 days', `/traces?limit=50&from=${month}`),
    v('Traces', 'sort=duration (24 h)', '/traces?limit=50&sort=duration'),
    v('Traces', 'sort=spans (24 h)', '/traces?limit=50&sort=spans'),
    v('Traces', 'sort=errors (7 days)', `/traces?limit=50&sort=errors&from=${week}`),
    v('Traces', 'status=error (7 days)', `/traces?limit=50&status=error&from=${week}`),
    v('Traces', 'name=Navigation (7 days)', `/traces?limit=50&name=Navigation&from=${week}`),
    v('Traces', 'min_duration_ms=3000 (7 days)', `/traces?limit=50&min_duration_ms=3000&from=${week}`),
    v('Traces', 'second page', `/traces?limit=50&cursor=${k.tracesCursor}`),
    v('Traces', 'trace_id', `/traces?trace_id=${k.traceId}`),
    v('Trace', 'detail', `/traces/${k.traceId}`),
    v('Web Vitals', '24 h', `/vitals?from=${day}`),
    v('Web Vitals', '7 days', `/vitals?from=${week}`),
    v('Web Vitals', '30 days by day', `/vitals?from=${month}&bucket=day`),
    v('Web Vitals', 'route=/checkout (7 days)', `/vitals?from=${week}&route=/checkout`),
    v('Issues', 'default (last seen)', '/issues?limit=50'),
    v('Issues', 'sort=events', '/issues?limit=50&sort=events'),
    v('Issues', 'sort=first_seen', '/issues?limit=50&sort=first_seen'),
    v('Issues', 'trend=14d', '/issues?limit=50&trend=14d'),
    v('Issues', 'second page', `/issues?limit=50&cursor=${k.issuesCursor}`),
    v('Issues', 'q=field1234', '/issues?limit=50&q=field1234'),
    v('Issues', `release=${k.release}`, `/issues?limit=50&release=${k.release}`),
    v('Issues', 'user_id=user-42', '/issues?limit=50&user_id=user-42'),
    v('Issues', 'facets', '/issues/facets'),
    v('Issue', 'detail', `/issues/${k.issueId}`),
    v('Incidents', 'default', '/incidents?limit=50'),
    v('Incidents', 'sort=severity', '/incidents?limit=50&sort=severity'),
    v('Incidents', 'sort=updated', '/incidents?limit=50&sort=updated'),
    v('Logs', 'newest', '/logs?limit=100'),
    v('Logs', 'last 24 h', `/logs?limit=100&from=${day}`),
    v('Spans', 'newest', '/spans?limit=100'),
    v('Metrics', 'newest', '/metrics?limit=100'),
    v('Replay chunks', 'newest', '/replay/chunks?limit=50'),
    v('Search', 'a session id', `/search?q=${k.sessionId}`),
    v('Search', 'a trace id', `/search?q=${k.traceId}`),
    v('Usage', 'usage', '/usage'),
    v('Ingest health', '24 h', '/ingest/health'),
  ];
}

interface Figures {
  view: View;
  median: number;
  p95: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

type Get = (path: string) => Promise<{ ms: number; body: Record<string, unknown> }>;

function getter(url: string, key: string): Get {
  return async (path) => {
    const started = performance.now();
    const res = await fetch(`${url}/control-plane${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await res.json()) as Record<string, unknown>;
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
    return { ms, body };
  };
}

/** Ids and cursors for the detail views, from the lists' own answers. */
async function known(get: Get): Promise<Known> {
  type Page = { data: Array<Record<string, unknown>>; next_cursor: string };
  const page = async (path: string) => (await get(path)).body as unknown as Page;
  const sessions = await page('/sessions?limit=50');
  const replays = await page('/sessions?limit=50&sort=first_seen');
  const traces = await page(`/traces?limit=50&from=${NOW - 7 * DAY}`);
  const issues = await page('/issues?limit=50');
  const replay = replays.data.find((s) => Number(s.replay_chunk_count ?? (s as { replay?: unknown }).replay) > 0);
  return {
    sessionId: String(sessions.data[0]!.session_id ?? sessions.data[0]!.id),
    replaySessionId: String(replay?.session_id ?? replay?.id ?? sessions.data[0]!.session_id),
    traceId: String(traces.data[0]!.trace_id),
    issueId: String(issues.data[0]!.id),
    sessionsCursor: sessions.next_cursor,
    tracesCursor: traces.next_cursor,
    issuesCursor: issues.next_cursor,
    release: releaseAt(SHAPE, NOW - 2 * DAY),
  };
}

async function measure(get: Get): Promise<Figures[]> {
  const list = views(await known(get));
  for (const view of list) await get(view.path);
  const times = list.map(() => [] as number[]);
  // Views in turn, so that a slow moment of the machine spreads over all of them.
  for (let r = 0; r < REQUESTS; r++) for (const [i, view] of list.entries()) times[i]!.push((await get(view.path)).ms);
  return list.map((view, i) => {
    const sorted = [...times[i]!].sort((a, b) => a - b);
    return { view, median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95) };
  });
}

// ---------------------------------------------------------------------------------------------------------- the run

interface Result {
  kind: DatabaseKind;
  phases: PhaseFigures[];
  detectionSeconds: number;
  rollupSeconds: number;
  issues: number;
  spans: number;
  replaySessions: number;
  sizes: Sizes;
  figures: Figures[];
}

const work = mkdtempSync(join(tmpdir(), 'svc-bench-scale-'));
const databases = new Set<TempDatabase>();

const LOADED = loadedDatabases(args.loaded, DATABASES);

interface Loaded {
  phases: PhaseFigures[];
  detectionSeconds: number;
  rollupSeconds: number;
}

/** The month through ingest, then what the server's jobs would have done by the time a person looks. */
async function loadMonth(kind: DatabaseKind, url: string, child: IngestChild, db: SideDb): Promise<Loaded> {
  if (kind === 'postgres') await monthPartitionsAhead(url);
  console.error(`${kind}: loading ${SHAPE.sessions.toLocaleString('en')} sessions...`);
  const phases = await load(child);
  const detectionSeconds = await detectionCaughtUp(db);
  const rollupSeconds = await vitalsRolledUp(url);
  if (kind === 'postgres') await partitionsMade(url);
  if (kind === 'postgres') await db.run('vacuum analyze');
  return { phases, detectionSeconds, rollupSeconds };
}

/** An admin key for the loaded database's project: a server started on a database it did not create makes none. */
async function adminKeyOf(url: string): Promise<string> {
  const handle = openDatabase(url);
  try {
    const { id } = await handle.db.selectFrom('projects').select('id').executeTakeFirstOrThrow();
    return (await createKey(handle.db, systemClock, { projectId: id, scope: 'admin' })).key;
  } finally {
    await handle.close();
  }
}

const NOTHING_LOADED: Loaded = { phases: [], detectionSeconds: NaN, rollupSeconds: NaN };

async function run(kind: DatabaseKind, launch: Awaited<ReturnType<typeof childLauncher>>): Promise<Result> {
  const loadedUrl = LOADED.get(kind);
  const database: TempDatabase =
    loadedUrl !== undefined
      ? { url: loadedUrl, drop: async () => undefined }
      : kind === 'sqlite'
        ? { url: join(work, 'svc.db'), drop: async () => undefined }
        : await createTempDatabase('postgres');
  if (loadedUrl === undefined) databases.add(database);
  try {
    return await withChild(
      launch,
      `svc (${kind})`,
      ['svc', database.url],
      async (child) => {
        const db = await sideDb(kind, database.url);
        try {
          const loaded = loadedUrl === undefined ? await loadMonth(kind, database.url, child, db) : NOTHING_LOADED;
          if (args['load-only']) {
            databases.delete(database);
            console.error(`${kind}: loaded, left at ${database.url}`);
            const empty = {
              issues: 0,
              spans: 0,
              replaySessions: 0,
              sizes: { bytes: 0, spansBytes: 0, replayBytes: 0 },
            };
            return { kind, ...loaded, ...empty, figures: [] };
          }
          const issues = await db.one('select count(*) from detection_groups');
          const spans = await db.one('select count(*) from spans');
          const replaySessions = await db.one('select count(distinct session_id) from replay_chunks');
          const size = await sizes(kind, database.url, db);
          console.error(`${kind}: measuring...`);
          const figures = await measure(getter(child.url, child.adminKey ?? (await adminKeyOf(database.url))));
          return { kind, ...loaded, issues, spans, replaySessions, sizes: size, figures };
        } finally {
          await db.close();
        }
      },
      [],
      { SVC_RETENTION_DAYS: '0' },
    );
  } finally {
    if (databases.delete(database)) await database.drop();
  }
}

/** A number for the tables; `–` where SQLite's build has no dbstat table to size one table by. */
const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
const mib = (bytes: number) => fmt(bytes / 2 ** 20, 0);

/** The heading, and how long the load took per signal (none for databases given with `--loaded`). */
function reportLoad(results: Result[]): void {
  console.log(`\n## bench:scale, ${new Date().toISOString().slice(0, 10)}\n`);
  const flags = process.argv.slice(2).join(' ');
  console.log(`\`npm run bench:scale${flags ? ` -- ${flags}` : ''}\`\n`);
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}. ` +
      `${fmt(SHAPE.sessions)} sessions over ${DAYS} days, ${CONNECTIONS} connections while loading; ${REQUESTS} requests per view, one at a time.\n`,
  );
  console.log('| database | phase | records | requests | seconds | records/s |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: |');
  for (const r of results)
    for (const p of r.phases)
      console.log(
        `| ${r.kind} | ${p.phase} | ${fmt(p.records)} | ${fmt(p.requests)} | ${fmt(p.seconds, 1)} | ${fmt(p.records / p.seconds)} |`,
      );
  for (const r of results)
    console.log(
      `${r.kind}: detection caught up after ${fmt(r.detectionSeconds, 1)} s, vitals rolled up in ${fmt(r.rollupSeconds, 1)} s`,
    );
}

function report(results: Result[]): void {
  reportLoad(results);
  console.log(
    '\n| database | issues | detection caught up after (s) | vitals rolled up in (s) | database MiB | per million spans MiB | per replay session KiB |',
  );
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const r of results)
    console.log(
      `| ${r.kind} | ${fmt(r.issues)} | ${fmt(r.detectionSeconds, 1)} | ${fmt(r.rollupSeconds, 1)} | ${mib(r.sizes.bytes)} | ${mib((r.sizes.spansBytes / r.spans) * 1e6)} | ${fmt(r.sizes.replayBytes / r.replaySessions / 1024, 1)} |`,
    );
  console.log(`\n| page | view | ${results.map((r) => `${r.kind} median / p95 ms`).join(' | ')} |`);
  console.log(`| --- | --- |${' ---: |'.repeat(results.length)}`);
  results[0]!.figures.forEach(({ view }, i) => {
    const cells = results.map((r) => `${fmt(r.figures[i]!.median, 1)} / ${fmt(r.figures[i]!.p95, 1)}`);
    console.log(`| ${view.page} | ${view.name} | ${cells.join(' | ')} |`);
  });
  for (const r of results) {
    const within = r.figures.filter((f) => f.p95 <= MOST_MS).length;
    console.log(`\n${r.kind}: ${within} of ${r.figures.length} views at p95 ≤ ${MOST_MS} ms.`);
    const missed = r.figures.filter((f) => f.p95 > TARGET_MS);
    if (missed.length > 0) {
      console.log(
        `${r.kind} missed ${TARGET_MS} ms: ${missed.map((f) => `${f.view.page} ${f.view.name} (${fmt(f.p95)} ms)`).join('; ')}`,
      );
      process.exitCode = 1;
    }
  }
}

async function main(): Promise<void> {
  const launch = await childLauncher(process.cwd(), work);
  const results: Result[] = [];
  for (const kind of DATABASES) results.push(await run(kind, launch));
  if (args['load-only']) {
    reportLoad(results);
    return;
  }
  rmSync(work, { recursive: true, force: true });
  report(results);
}

runBench('bench:scale', main, databases, 6 * 3_600_000);
