/**
 * Cost sync throughput and report latency (issue 6): the built reference server in its own process, on SQLite (a file,
 * WAL) and on PostgreSQL, syncing a generated legacy CUR from s3rver (a real S3 protocol server on loopback) through the
 * AWS SDK, with the role assumed from a local STS.
 *
 *   npm run bench:cost [-- --rows 1000000 --databases sqlite,postgres --requests 20 --warmup 3 --mappings 5 --profile
 *                          --dist <folder>]
 *
 * 1. Data: `--rows` hourly line items of November 2026 (bench/cost/dataset.ts: ~1,400 resources × 24 hours × 30 days
 *    for a million), written as AWS writes a legacy CUR (report-files.ts: ~110 real columns, most empty; gzip CSV; the
 *    manifest) and uploaded to s3rver, generated and compressed as a stream. October has no report (an empty period).
 * 2. Baselines in this process, on the same object: fetch + gunzip + count lines (the floor), csv-parse against the
 *    readers' hand-written parser, and the readers' whole readCsvReport (bench/cost/baselines.ts).
 * 3. Per database, a fresh server whose clock starts at 2026-11-30 12:00 UTC (so November is the current month):
 *    - first sync: the account is connected and its first sync (October and November) runs; rows/s are the line items
 *      over the run's duration as the server records it (`last_run.started_at` → `finished_at`), peak RSS is the
 *      server process's VmHWM over the run (reset just before it; VmRSS before it shown beside);
 *    - mappings: `POST /cost/mappings` `--mappings` times, re-attributing every stored resource each time;
 *    - report latency: `GET /cost/summary`, `/cost/by-service`, `/cost/estimate?period=monthly` and
 *      `/cost/recommendations`, each `--warmup` times unmeasured, then `--requests` times one after another;
 *    - re-sync: the daily sync again (November only), replacing the stored month, measured as the first.
 * Targets: ≥ 200,000 rows/s and peak RSS < 300 MB per sync. The figures are printed as markdown with PASS/FAIL; a
 * missed target does not fail the command (an error does).
 *
 * PostgreSQL: a throwaway database on SVC_TEST_POSTGRES_URL's server (default postgres://postgres@127.0.0.1:5432/test),
 * dropped at the end. `--profile` runs the server's CPU profiler over each phase (first sync, mappings and reports,
 * re-sync) and prints where its time went; memory figures then include the profiler's own. `--dist` runs another build
 * of the server than server/dist (a copy with a change to try, beside the repository so it finds node_modules).
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { putLegacyCur } from '../test/support/cost/aws-exports';
import { startFakeSts, type FakeSts } from '../test/support/cost/fake-sts';
import { startLocalS3, type LocalS3 } from '../test/support/cost/s3';
import { createTempDatabase, type DatabaseKind, type TempDatabase } from '../test/support/databases';
import { measureBaselines, type ReportObject } from './cost/baselines';
import { startCostServer } from './cost/child';
import { costControl, type MappingRule } from './cost/control';
import { monthOfLineItems, resourcesFor } from './cost/dataset';
import { measureMappings, measureQueries, measureSync, type Bench } from './cost/phases';
import { baselineTable, databaseTable, fmt, verdicts, type DatabaseFigures } from './cost/report';
import { cpuProfileTables } from './cpu-profile';
import { runBench } from './harness';

// The AWS SDK's notice that it will want Node 22 from 2027 is noise in the benchmark's output.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PERIOD = '2026-11';
const SERVER_NOW = new Date('2026-11-30T12:00:00Z');
const BUCKET = 'acme-billing';
const PREFIX = 'cur/';
const AWS_CONFIG = { role_arn: 'arn:aws:iam::111122223333:role/svc-cost-read', cur_bucket: BUCKET, cur_prefix: PREFIX };
const REPORT_PATHS = [
  '/cost/summary',
  '/cost/by-service',
  '/cost/estimate?period=monthly',
  '/cost/recommendations',
] as const;
/** Rule lists that attribute differently (tags first, or a name prefix overriding them), alternated by the mapping phase. */
const RULES: [MappingRule[], MappingRule[]] = [
  [
    { match: { tag: 'service', pattern: '*' }, attribute_to: 'service' },
    { match: { tag: 'env', pattern: 'prod*' }, attribute_to: 'env' },
    { match: { tag: 'env', pattern: '*' }, attribute_to: 'env' },
  ],
  [
    { match: { resource_name_prefix: 'checkout-' }, attribute_to_service: 'storefront' },
    { match: { resource_name_prefix: 'cart-' }, attribute_to_service: 'storefront' },
    { match: { tag: 'team', pattern: '*' }, attribute_to: 'service' },
    { match: { tag: 'env', pattern: '*' }, attribute_to: 'env' },
  ],
];

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    databases: { type: 'string', default: 'sqlite,postgres' },
    requests: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    mappings: { type: 'string', default: '5' },
    profile: { type: 'boolean', default: false },
    dist: { type: 'string' },
  },
});

function count(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${min}`);
  return n;
}
const ROWS = count('rows', args.rows, 1);
const REQUESTS = count('requests', args.requests, 1);
const WARMUP = count('warmup', args.warmup, 0);
const MAPPINGS = count('mappings', args.mappings, 1);
const DIST = args.dist === undefined ? join(ROOT, 'server', 'dist') : resolve(args.dist);
const DATABASES = args.databases.split(',').map((name) => name.trim()) as DatabaseKind[];
for (const name of DATABASES)
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`unknown database "${name}" (known: sqlite, postgres)`);

/** Generous for a server anywhere near the target; far beyond it is a hang. */
const WATCHDOG_MS = (180 + (ROWS / 1e6) * 120 + DATABASES.length * (120 + (ROWS / 1e6) * 300)) * 1000;

const work = mkdtempSync(join(tmpdir(), 'svc-bench-cost-'));
/** What must be undone even when the watchdog ends the run: throwaway PostgreSQL databases. */
const databases = new Set<TempDatabase>();
const log = (line: string) => console.error(line);

async function openDatabase(kind: DatabaseKind): Promise<TempDatabase> {
  // The SQLite file goes with the work directory at the end.
  if (kind === 'sqlite') return { url: join(work, `svc-${Date.now()}.db`), drop: async () => undefined };
  return createTempDatabase('postgres');
}

async function measureDatabase(kind: DatabaseKind, s3: LocalS3, sts: FakeSts): Promise<DatabaseFigures> {
  const database = await openDatabase(kind);
  databases.add(database);
  const server = await startCostServer(ROOT, {
    dist: DIST,
    databaseUrl: database.url,
    s3: s3.endpoint,
    sts: sts.url,
    now: SERVER_NOW,
    work,
  });
  const firstRequest = s3.requests.length;
  const profiles: { title: string; dir: string }[] = [];
  /** Runs `phase`, under the server's CPU profiler with `--profile`. */
  const phase = async <T>(title: string, run: () => Promise<T>): Promise<T> => {
    if (!args.profile) return run();
    const dir = join(work, `profile-${kind}-${profiles.length + 1}`);
    mkdirSync(dir);
    await server.startProfile();
    const result = await run();
    await server.stopProfile(join(dir, 'server.cpuprofile'));
    profiles.push({ title: `${kind}, ${title}`, dir });
    return result;
  };
  try {
    const bench: Bench = { server, control: costControl(server.url, server.controlKey) };
    log(`${kind}: first sync of ${fmt(ROWS)} line items...`);
    const { providerId, result: sync } = await phase('first sync', () =>
      measureSync(bench, { providerId: null, config: AWS_CONFIG, rows: ROWS }),
    );
    log(
      `${kind}: ${fmt(sync.lineItems / sync.seconds)} rows/s; mappings (${MAPPINGS} saves) and report latency (${WARMUP} + ${REQUESTS} requests per endpoint)...`,
    );
    const { mappings, queries } = await phase('mappings and reports', async () => ({
      mappings: await measureMappings(bench, RULES, MAPPINGS),
      queries: await measureQueries(bench, REPORT_PATHS, { requests: REQUESTS, warmup: WARMUP }),
    }));
    log(`${kind}: re-sync...`);
    const { result: resync } = await phase('re-sync', () =>
      measureSync(bench, { providerId, config: AWS_CONFIG, rows: ROWS }),
    );
    const requests = s3.requests.slice(firstRequest);
    return {
      database: kind === 'sqlite' ? 'SQLite (file, WAL)' : 'PostgreSQL',
      sync,
      resync,
      mappings,
      queries,
      s3Requests: {
        total: requests.length,
        writes: requests.filter((r) => r.method !== 'GET' && r.method !== 'HEAD').length,
      },
    };
  } finally {
    await server.stop();
    // The server's own code (its source, or the bundle's chunks wherever --dist puts them) and the database drivers.
    const inclusive = /server\/(src|dist)\/|\/chunk-\w+\.js$|node_modules\/(kysely|better-sqlite3|pg)\//;
    for (const { title, dir } of profiles)
      console.log(`\n${cpuProfileTables({ dir, root: ROOT, title, inclusive })}\n`);
    await database.drop();
    databases.delete(database);
  }
}

async function main(): Promise<void> {
  const s3 = await startLocalS3();
  const sts = await startFakeSts();
  try {
    await s3.createBucket(BUCKET);
    log(
      `generating and uploading ${fmt(ROWS)} line items (${fmt(resourcesFor({ period: PERIOD, rows: ROWS }))} resources)...`,
    );
    const started = performance.now();
    const target = { s3: s3.admin, bucket: BUCKET, prefix: PREFIX };
    const { assemblies } = await putLegacyCur(target, {
      name: 'hourly',
      period: PERIOD,
      assemblies: [[monthOfLineItems({ period: PERIOD, rows: ROWS })]],
    });
    const key = assemblies[0]!.keys[0]!;
    const { ContentLength: gzipBytes = 0 } = await s3.admin.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    log(`uploaded ${key} (${fmt(gzipBytes / 2 ** 20, 1)} MiB) in ${fmt((performance.now() - started) / 1000, 1)} s`);

    const object: ReportObject = { s3: s3.admin, bucket: BUCKET, key };
    const baselines = await measureBaselines(object, ROWS, log);
    const figures: DatabaseFigures[] = [];
    for (const kind of DATABASES) figures.push(await measureDatabase(kind, s3, sts));

    const rawBytes = baselines[0]!.bytes;
    console.log(`\n## bench:cost, ${new Date().toISOString().slice(0, 10)}\n`);
    const flags = process.argv.slice(2).join(' ');
    console.log(`\`npm run bench:cost${flags ? ` -- ${flags}` : ''}\`\n`);
    console.log(
      `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}. ` +
        `Report: legacy CUR, ${fmt(ROWS)} hourly line items of ${PERIOD} (${fmt(resourcesFor({ period: PERIOD, rows: ROWS }))} resources), ` +
        `one gzip CSV of ${fmt(gzipBytes / 2 ** 20, 1)} MiB (${fmt(rawBytes / 2 ** 20)} MiB, ${fmt(rawBytes / ROWS)} bytes a row, uncompressed), ` +
        'on s3rver behind a recording proxy in the benchmark process; the server (built, plain node) in its own process, ' +
        (args.dist === undefined ? '' : `run from ${DIST}, `) +
        `clock at ${SERVER_NOW.toISOString()}.\n`,
    );
    console.log(`### Baselines\n\n${baselineTable(baselines)}\n`);
    for (const f of figures) console.log(`${databaseTable(f, baselines[0]!)}\n`);
    console.log(
      verdicts(figures)
        .map((line) => `- ${line}`)
        .join('\n'),
    );
  } finally {
    await sts.close();
    await s3.close();
    if (!args.profile) rmSync(work, { recursive: true, force: true });
    else console.log(`\n(profiles kept in ${work})`);
  }
}

runBench('bench:cost', main, databases, WATCHDOG_MS);
