/**
 * Notification latency and throughput (issue 5): the built reference server in its own process, on SQLite (a file,
 * WAL) and on PostgreSQL, delivering webhooks to a local receiver in this process.
 *
 *   npm run bench:notify [-- --incidents 200 --duration-s 30 --warmup-s 5 --concurrency 16 --backlog 10000
 *                            --databases sqlite,postgres --outbox-concurrency 32 --profile]
 *
 * Per database, three phases against one webhook channel (bench/notify/phases.ts):
 * 1. Latency: `--incidents` incidents one at a time under a rule with `delay_seconds: 0`, each timed from just before
 *    its `POST /control-plane/incidents` to its webhook's arrival at the receiver (matched by `incident_id`).
 * 2. Sustained pipeline: `--concurrency` clients open incidents as fast as they are answered for `--warmup-s` +
 *    `--duration-s` while the outbox delivers them; deliveries per minute are the webhooks that arrived in the window.
 * 3. Backlog drain: `--backlog` incidents under a rule delayed by an hour, then the server's clock jumps an hour and
 *    the outbox sends them all with nothing else running (0 skips this phase).
 * Finally the receiver's own capacity: the same webhook replayed from this process, `--outbox-concurrency` at a time.
 *
 * PostgreSQL: a throwaway database on SVC_TEST_POSTGRES_URL's server (default postgres://postgres@127.0.0.1:5432/test),
 * dropped at the end. `--profile` runs the server under `node --cpu-prof` and prints where its time goes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createTempDatabase, type DatabaseKind, type TempDatabase } from '../test/support/databases';
import { startServerChild } from './notify/child';
import { controlPlane } from './notify/control';
import { measureDrain, measureLatency, measurePipeline, measureReceiver, type Bench } from './notify/phases';
import { cpuProfileTables } from './cpu-profile';
import { runBench } from './harness';
import { startReceiver, type Receiver } from './notify/receiver';
import { allTargetsMet, databaseTable, fmt, type DatabaseFigures } from './notify/report';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The outbox's default concurrency (server/src/notify/outbox/worker.ts). */
const SERVER_OUTBOX_CONCURRENCY = 32;

const { values: args } = parseArgs({
  options: {
    incidents: { type: 'string', default: '200' },
    'duration-s': { type: 'string', default: '30' },
    'warmup-s': { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16' },
    backlog: { type: 'string', default: '10000' },
    databases: { type: 'string', default: 'sqlite,postgres' },
    'outbox-concurrency': { type: 'string' },
    profile: { type: 'boolean', default: false },
  },
});

function count(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${min}`);
  return n;
}
const INCIDENTS = count('incidents', args.incidents, 1);
const DURATION_MS = count('duration-s', args['duration-s'], 1) * 1000;
const WARMUP_MS = count('warmup-s', args['warmup-s'], 0) * 1000;
const CONCURRENCY = count('concurrency', args.concurrency, 1);
const BACKLOG = count('backlog', args.backlog, 0);
const OUTBOX_CONCURRENCY =
  args['outbox-concurrency'] === undefined ? undefined : count('outbox-concurrency', args['outbox-concurrency'], 1);
const DATABASES = args.databases.split(',').map((name) => name.trim()) as DatabaseKind[];
for (const name of DATABASES)
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`unknown database "${name}" (known: sqlite, postgres)`);

/** Generous for a server that meets the targets (≥ 10,000 deliveries/min); far beyond it is a hang. */
const WATCHDOG_MS =
  (60 + DATABASES.length * (60 + INCIDENTS * 0.5 + (WARMUP_MS + 2 * DURATION_MS) / 1000 + BACKLOG * 0.05 + 120)) * 1000;

const work = mkdtempSync(join(tmpdir(), 'svc-bench-notify-'));
/** What must be undone even when the watchdog ends the run: throwaway PostgreSQL databases. */
const databases = new Set<TempDatabase>();

async function openDatabase(kind: DatabaseKind): Promise<TempDatabase> {
  // The SQLite file goes with the work directory at the end.
  if (kind === 'sqlite') return { url: join(work, 'svc.db'), drop: async () => undefined };
  return createTempDatabase('postgres');
}

async function measureDatabase(kind: DatabaseKind, receiver: Receiver): Promise<DatabaseFigures> {
  const database = await openDatabase(kind);
  databases.add(database);
  const profileDir = join(work, `profile-${kind}`);
  const server = await startServerChild(ROOT, database.url, {
    outboxConcurrency: OUTBOX_CONCURRENCY,
    nodeArgs: args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  });
  try {
    const control = controlPlane(server.url, server.controlKey);
    const bench: Bench = {
      server,
      control,
      receiver,
      channelId: await control.webhookChannel('bench receiver', receiver.url),
    };
    console.error(`${kind}: latency, ${INCIDENTS} incidents one at a time...`);
    const { result: latency, ruleId } = await measureLatency(bench, INCIDENTS);
    console.error(
      `${kind}: sustained pipeline, ${CONCURRENCY} clients, ${WARMUP_MS / 1000} s + ${DURATION_MS / 1000} s...`,
    );
    const pipeline = await measurePipeline(bench, {
      concurrency: CONCURRENCY,
      warmupMs: WARMUP_MS,
      durationMs: DURATION_MS,
    });
    await control.deleteRule(ruleId);
    if (BACKLOG > 0) console.error(`${kind}: backlog drain, ${fmt(BACKLOG)} deliveries...`);
    const drain = BACKLOG > 0 ? await measureDrain(bench, { backlog: BACKLOG, concurrency: CONCURRENCY }) : undefined;
    return { database: kind === 'sqlite' ? 'SQLite (file, WAL)' : 'PostgreSQL', latency, pipeline, drain };
  } finally {
    await server.stop();
    if (args.profile)
      console.log(
        `\n${cpuProfileTables({ dir: profileDir, root: ROOT, title: kind, inclusive: /server\/(src|dist)\/|node_modules\/(kysely|better-sqlite3|pg)\// })}\n`,
      );
    await database.drop();
    databases.delete(database);
  }
}

async function main(): Promise<void> {
  const receiver = await startReceiver();
  try {
    const figures: DatabaseFigures[] = [];
    for (const kind of DATABASES) figures.push(await measureDatabase(kind, receiver));
    console.error('receiver baseline...');
    const receiverPerMinute = await measureReceiver(receiver, {
      concurrency: OUTBOX_CONCURRENCY ?? SERVER_OUTBOX_CONCURRENCY,
      durationMs: 5_000,
    });

    console.log(`\n## bench:notify, ${new Date().toISOString().slice(0, 10)}\n`);
    const flags = process.argv.slice(2).join(' ');
    console.log(`\`npm run bench:notify${flags ? ` -- ${flags}` : ''}\`\n`);
    console.log(
      `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}; ` +
        `server in its own process (outbox concurrency ${OUTBOX_CONCURRENCY ?? `${SERVER_OUTBOX_CONCURRENCY}, the default`}), ` +
        'receiver and load generator in the benchmark process, all on loopback.\n',
    );
    for (const f of figures) console.log(`${databaseTable(f, receiverPerMinute, CONCURRENCY)}\n`);
    if (!allTargetsMet(figures)) process.exitCode = 1;
  } finally {
    await receiver.close();
    if (!args.profile) rmSync(work, { recursive: true, force: true });
    else console.log(`(profiles kept in ${work})`);
  }
}

runBench('bench:notify', main, databases, WATCHDOG_MS);
