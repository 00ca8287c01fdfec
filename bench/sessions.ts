/**
 * The console's sessions page with 100,000 stored sessions (issue 20: its first page answers in under 200 ms server
 * time), on SQLite (a file, WAL) and on PostgreSQL.
 *
 *   npm run bench:sessions [-- --sessions 100000 --requests 30 --databases sqlite,postgres --server-dist server/dist]
 *
 * Per database: the built server (server/dist, as `npm start` runs it) starts on an empty database, which migrates it
 * and creates the default project and app; then `--sessions` session rows are inserted directly through the server's
 * own connection, 500 per statement, in one transaction (ingesting them over OTLP would take minutes and measure ingest, which
 * bench:ingest does). The rows are what ingest stores: seeded random environments, releases, browsers, pages, errors,
 * durations, users and attributes, their last activity spread over 30 days. PostgreSQL is then ANALYZEd, as its
 * autovacuum does after a bulk insert; SQLite is not (the server never runs ANALYZE), so its planner works without
 * statistics, as in production.
 *
 * Each view of the page (the default, each sort, each filter, a second page, the facets) is requested `--requests`
 * times in turn after one warm-up, one request at a time over loopback; a request's time is its `Server-Timing`
 * total when the server sends one, else the time to the whole response in this process. Printed: the median and p95
 * per view, as the Markdown of docs/benchmarks.md. Exits non-zero when a p95 misses the target.
 *
 * PostgreSQL: a throwaway database on SVC_TEST_POSTGRES_URL's server (default postgres://postgres@127.0.0.1:5432/test),
 * dropped at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql, type Insertable, type Kysely } from 'kysely';
import type { Database } from '../server/src/db/schema';
import type * as ServerModule from '../server/src/index';
import { createTempDatabase, type DatabaseKind, type TempDatabase } from '../test/support/databases';
import { pickWeighted, prng, runBench, SHOP_PAGES } from './harness';
import { fillTraces, TRACE_VIEWS } from './trace-fill';

const { values: args } = parseArgs({
  options: {
    sessions: { type: 'string', default: '100000' },
    requests: { type: 'string', default: '30' },
    databases: { type: 'string', default: 'sqlite,postgres' },
    /** Also store this many spans (10 per trace, all in the last 24 hours) and time the trace search. */
    traces: { type: 'string', default: '0' },
    /** Another build of the server (e.g. one kept aside while server/dist is rebuilt), relative to the working directory. */
    'server-dist': { type: 'string', default: join('server', 'dist') },
  },
});
const SESSIONS = Number(args.sessions);
const REQUESTS = Number(args.requests);
const SPANS = Number(args.traces);
if (!Number.isInteger(SPANS) || SPANS < 0 || SPANS % 500 !== 0) throw new Error('--traces must be a multiple of 500');
if (!Number.isInteger(SESSIONS) || SESSIONS < 1000) throw new Error('--sessions must be an integer ≥ 1000');
if (!Number.isInteger(REQUESTS) || REQUESTS < 5) throw new Error('--requests must be an integer ≥ 5');
const DATABASES = args.databases.split(',').map((name) => name.trim()) as DatabaseKind[];
for (const name of DATABASES)
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`unknown database "${name}" (known: sqlite, postgres)`);

const TARGET_MS = 200;
const DAY = 86_400_000;
/** The newest session's last activity; the oldest is 30 days before. */
const NOW = Date.UTC(2027, 5, 1);
/** Rows per INSERT: 35 columns each stays under SQLite's and PostgreSQL's bound-parameter limits. */
const INSERT_BATCH = 500;

const ENVS = [
  ['prod', 70],
  ['staging', 25],
  ['dev', 5],
] as const;
const RELEASES = Array.from({ length: 12 }, (_, i) => [`2027.${i + 1}.0`, i + 1] as const);
/** browser, os, device, share. */
/** Browser, major version, OS and device type, with how often each is drawn. */
const CLIENTS: ReadonlyArray<
  readonly [readonly [browser: string, version: string | null, os: string, device: string], number]
> = [
  [['Chrome', '124', 'Windows', 'desktop'], 35],
  [['Chrome', '124', 'macOS', 'desktop'], 10],
  [['Chrome', '124', 'Android', 'mobile'], 20],
  [['Safari', '17', 'iOS', 'mobile'], 15],
  [['Safari', '17', 'macOS', 'desktop'], 5],
  [['Firefox', '126', 'Linux', 'desktop'], 5],
  [['Edge', '124', 'Windows', 'desktop'], 8],
  [['Other', null, 'Other', 'desktop'], 2],
];
const PATHS = [...SHOP_PAGES, ...Array.from({ length: 30 }, (_, i) => `/products/${1000 + i}`)];
/** A page one session in about ten thousand visits: the `url` filter's worst case short of no match at all. */
const RARE_PATH = '/promo/rare-landing-page';

/** One stored session, as ingest would have folded it. */
function sessionRow(
  random: () => number,
  projectId: string,
  appId: string,
  i: number,
): Insertable<Database['sessions']> {
  const last = NOW - Math.floor(random() * 30 * DAY);
  // Mostly short visits, a long tail up to about two hours.
  const duration = Math.min(Math.floor(-Math.log(1 - random()) * 4 * 60_000), 2 * 3_600_000);
  const [browser, browserVersion, os, device] = pickWeighted(random, CLIENTS);
  const pageCount = 1 + Math.floor(random() * 8);
  const urls = [...new Set(Array.from({ length: pageCount }, () => PATHS[Math.floor(random() * PATHS.length)]!))];
  if (random() < 0.0001) urls.push(RARE_PATH);
  const errors = random() < 0.15 ? 1 + Math.floor(random() * 10) : 0;
  const user = random() < 0.6 ? `user-${Math.floor(random() * 20_000)}` : null;
  return {
    project_id: projectId,
    session_id: `s-${i.toString(36).padStart(6, '0')}-${Math.floor(random() * 1e9).toString(36)}`,
    app_id: appId,
    first_ms: last - duration,
    last_ms: last,
    duration_ms: duration,
    span_count: 20 + Math.floor(random() * 200),
    log_count: 5 + Math.floor(random() * 50),
    metric_count: 5,
    replay_chunk_count: Math.floor(random() * 20),
    recipe_count: Math.floor(random() * 10),
    error_count: errors,
    last_received_ms: last,
    user_id: user,
    user_email: null,
    user_name: null,
    user_ms: user === null ? null : last - duration,
    attributes: JSON.stringify({
      plan: pickWeighted(random, [
        ['free', 70],
        ['pro', 25],
        ['enterprise', 5],
      ] as const),
    }),
    attributes_ms: last - duration,
    replay_mode: 'full',
    sample_rate: 1,
    env: pickWeighted(random, ENVS),
    release: pickWeighted(random, RELEASES),
    browser,
    browser_version: browserVersion,
    os,
    device,
    urls: JSON.stringify(urls),
    page_count: urls.length,
    entry_url: urls[0]!,
    entry_ms: last - duration,
  };
}

/** The page paths of the sessions, as ingest keeps them beside their facts (sessions/tables.ts). */
const pagesOf = (rows: Array<Insertable<Database['sessions']>>): Array<Insertable<Database['session_pages']>> =>
  rows.flatMap((r) =>
    (JSON.parse(r.urls!) as string[]).map((path) => ({
      project_id: r.project_id,
      path,
      session_id: r.session_id,
      received_ms: r.last_received_ms,
    })),
  );

/** One transaction: the fill is setup, not what is measured. */
async function fill(db: Kysely<Database>, projectId: string, appId: string): Promise<void> {
  const random = prng(20);
  // A build from before the page paths (the "before" of docs/benchmarks.md) has no such table.
  const pages = await sql`select 1 from session_pages limit 1`.execute(db).then(
    () => true,
    () => false,
  );
  await db.transaction().execute(async (tx) => {
    for (let i = 0; i < SESSIONS; i += INSERT_BATCH) {
      const rows = Array.from({ length: Math.min(INSERT_BATCH, SESSIONS - i) }, (_, j) =>
        sessionRow(random, projectId, appId, i + j),
      );
      await tx.insertInto('sessions').values(rows).execute();
      if (pages) await tx.insertInto('session_pages').values(pagesOf(rows)).execute();
    }
    if (pages)
      await sql`insert into page_paths (project_id, path) select distinct project_id, path from session_pages`.execute(
        tx,
      );
  });
}

interface View {
  name: string;
  /** Path under /control-plane, or a function of the first page's answer (for a second page). */
  path: string | ((first: { next_cursor: string | null }) => string);
}

const SESSION_VIEWS: View[] = [
  { name: 'default (newest last activity)', path: '/sessions?limit=50' },
  { name: 'sort=first_seen', path: '/sessions?limit=50&sort=first_seen' },
  { name: 'sort=duration', path: '/sessions?limit=50&sort=duration' },
  { name: 'sort=duration&order=asc', path: '/sessions?limit=50&sort=duration&order=asc' },
  { name: 'sort=errors', path: '/sessions?limit=50&sort=errors' },
  { name: 'second page (cursor)', path: (first) => `/sessions?limit=50&cursor=${first.next_cursor}` },
  { name: 'app + last 24 h', path: `/sessions?limit=50&app=web-app&from=${NOW - DAY}&to=${NOW + 1}` },
  { name: 'env=staging', path: '/sessions?limit=50&env=staging' },
  { name: 'release=2027.1.0 (1.3 %)', path: '/sessions?limit=50&release=2027.1.0' },
  { name: 'browser=Firefox', path: '/sessions?limit=50&browser=Firefox' },
  { name: 'has_errors=true', path: '/sessions?limit=50&has_errors=true' },
  { name: 'has_errors=true&sort=errors', path: '/sessions?limit=50&has_errors=true&sort=errors' },
  { name: 'min_duration_ms=1800000', path: '/sessions?limit=50&min_duration_ms=1800000' },
  { name: 'url=checkout', path: '/sessions?limit=50&url=checkout' },
  { name: `url=rare (≈${Math.round(SESSIONS / 10_000)} matches)`, path: '/sessions?limit=50&url=rare-landing' },
  { name: 'user_id=user-42', path: '/sessions?limit=50&user_id=user-42' },
  { name: 'attr.plan=enterprise', path: '/sessions?limit=50&attr.plan=enterprise' },
  {
    name: 'env+release+browser+has_errors, sort=duration',
    path: '/sessions?limit=50&env=prod&release=2027.12.0&browser=Chrome&has_errors=true&sort=duration',
  },
  { name: 'facets (all time)', path: '/sessions/facets' },
  { name: 'facets (last 24 h)', path: `/sessions/facets?from=${NOW - DAY}` },
];

const VIEWS: View[] = [...SESSION_VIEWS, ...(SPANS > 0 ? TRACE_VIEWS : [])];

interface Figures {
  view: string;
  median: number;
  p95: number;
  rows: number;
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;

/** `Server-Timing: total;dur=12.3` when the server sends it, else undefined. */
function serverTiming(res: Response): number | undefined {
  const dur = /dur=([\d.]+)/.exec(res.headers.get('server-timing') ?? '')?.[1];
  return dur === undefined ? undefined : Number(dur);
}

async function measure(url: string, controlKey: string): Promise<Figures[]> {
  const headers = { authorization: `Bearer ${controlKey}` };
  const get = async (path: string) => {
    const started = performance.now();
    const res = await fetch(`${url}/control-plane${path}`, { headers });
    const body = (await res.json()) as { data?: unknown[]; next_cursor: string | null };
    const ms = serverTiming(res) ?? performance.now() - started;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return { ms, body };
  };
  const first = (await get('/sessions?limit=50')).body;
  const firstTraces = SPANS > 0 ? (await get('/traces?limit=50')).body : first;
  const paths = VIEWS.map((v) =>
    typeof v.path === 'string' ? v.path : v.path(v.name.startsWith('traces:') ? firstTraces : first),
  );
  for (const path of paths) await get(path);
  const times = VIEWS.map(() => [] as number[]);
  const rows = VIEWS.map(() => 0);
  // Views in turn, so that a slow moment of the machine spreads over all of them.
  for (let r = 0; r < REQUESTS; r++) {
    for (const [i, path] of paths.entries()) {
      const { ms, body } = await get(path);
      times[i]!.push(ms);
      rows[i] = body.data?.length ?? Object.values(body).reduce((n, v) => n + (Array.isArray(v) ? v.length : 0), 0);
    }
  }
  return VIEWS.map((v, i) => {
    const sorted = [...times[i]!].sort((a, b) => a - b);
    return { view: v.name, median: quantile(sorted, 0.5), p95: quantile(sorted, 0.95), rows: rows[i]! };
  });
}

const work = mkdtempSync(join(tmpdir(), 'svc-bench-sessions-'));
const databases = new Set<TempDatabase>();

type StartServer = typeof ServerModule.startServer;

async function measureDatabase(
  kind: DatabaseKind,
  startServer: StartServer,
): Promise<{ kind: DatabaseKind; fillSeconds: number; figures: Figures[] }> {
  const database: TempDatabase =
    kind === 'sqlite'
      ? { url: join(work, 'svc.db'), drop: async () => undefined }
      : await createTempDatabase('postgres');
  databases.add(database);
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: database.url,
    secretKey: 'bench-sessions-secret-key-0123456789abcdef',
    log: () => undefined,
    detection: false,
  });
  try {
    const boot = server.bootstrap!;
    const { db } = server.database;
    const app = await db
      .selectFrom('apps')
      .select('id')
      .where('project_id', '=', boot.projectId)
      .executeTakeFirstOrThrow();
    console.error(`${kind}: inserting ${SESSIONS.toLocaleString('en')} sessions...`);
    const started = performance.now();
    await fill(db, boot.projectId, app.id);
    if (kind === 'postgres') await sql`analyze sessions`.execute(db);
    if (SPANS > 0) {
      console.error(`${kind}: inserting ${SPANS.toLocaleString('en')} spans...`);
      await fillTraces(db, kind, boot.projectId, app.id, SPANS);
    }
    const fillSeconds = (performance.now() - started) / 1000;
    console.error(`${kind}: ${fillSeconds.toFixed(1)} s; measuring ${VIEWS.length} views × ${REQUESTS} requests...`);
    const figures = await measure(server.url, boot.controlKey.key);
    for (const f of figures)
      console.error(`${kind}: ${f.view}: median ${f.median.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, ${f.rows} rows`);
    return { kind, fillSeconds, figures };
  } finally {
    await server.close();
    await database.drop();
    databases.delete(database);
  }
}

async function main(): Promise<void> {
  // The built server (`npm run bench:sessions` builds it first), loaded from the working directory, the repository root.
  const dist = pathToFileURL(join(process.cwd(), args['server-dist'], 'index.js')).href;
  const { startServer } = (await import(dist)) as typeof ServerModule;
  const results: Array<Awaited<ReturnType<typeof measureDatabase>>> = [];
  for (const kind of DATABASES) results.push(await measureDatabase(kind, startServer));
  rmSync(work, { recursive: true, force: true });

  console.log(`\n## bench:sessions, ${new Date().toISOString().slice(0, 10)}\n`);
  const flags = process.argv.slice(2).join(' ');
  console.log(`\`npm run bench:sessions${flags ? ` -- ${flags}` : ''}\`\n`);
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}. ` +
      `${SESSIONS.toLocaleString('en')} sessions${SPANS > 0 ? ` and ${SPANS.toLocaleString('en')} spans (10 per trace, all in the last 24 hours)` : ''} in one project, ${REQUESTS} requests per view, one at a time over loopback; ` +
      `time to the whole response (the server sends no Server-Timing), target < ${TARGET_MS} ms.\n`,
  );
  const fmt = (ms: number) => ms.toFixed(1);
  const header = `| View | ${results.map((r) => `${r.kind === 'sqlite' ? 'SQLite' : 'PostgreSQL'} median / p95 (ms)`).join(' | ')} | Rows |`;
  console.log(header);
  console.log(`|${' --- |'.repeat(results.length + 2)}`);
  VIEWS.forEach((view, i) => {
    const cells = results.map((r) => `${fmt(r.figures[i]!.median)} / ${fmt(r.figures[i]!.p95)}`);
    console.log(`| ${view.name} | ${cells.join(' | ')} | ${results[0]!.figures[i]!.rows} |`);
  });
  console.log(`\nFilling: ${results.map((r) => `${r.kind} ${r.fillSeconds.toFixed(1)} s`).join(', ')}.`);
  const missed = results.flatMap((r) =>
    r.figures.filter((f) => f.p95 >= TARGET_MS).map((f) => `${r.kind}: ${f.view} (p95 ${fmt(f.p95)} ms)`),
  );
  if (missed.length > 0) {
    console.log(`\nMissed the target: ${missed.join('; ')}`);
    process.exitCode = 1;
  }
}

runBench('bench:sessions', main, databases, 20 * 60_000);
