/**
 * The main thread's share of storing an ingest request, measured on its own (issue 33, docs/benchmarks.md "Ingest"):
 * `storeBatch` (validation, the app lookup, stamping the rows) and the hand-over to the SQLite writer thread, whose
 * `postMessage` structured-clones the write. The writer here is a port that takes the message and answers at once,
 * so the figures hold no SQLite work. Bodies are bench:ingest's (100 spans, one session each), parsed and normalized
 * beforehand; each round times the same requests. Deterministic figures: the bytes each write is cloned to, and the
 * bytes allocated per request (with a young generation large enough that no collection runs during a round).
 *
 *   node --expose-gc --max-semi-space-size=256 --import tsx bench/ingest-handover.ts [--requests 400] [--rounds 7]
 */
import { MessageChannel } from 'node:worker_threads';
import { parseArgs } from 'node:util';
import { serialize } from 'node:v8';
import { openDatabase } from '../server/src/db/connect';
import { migrateToLatest } from '../server/src/db/migrate';
import { storeBatch } from '../server/src/ingest/store';
import { handoverMessage } from '../server/src/ingest/sqlite-thread-writer';
import type { TelemetryWrite, TelemetryWriter } from '../server/src/ingest/writer';
import { normalizeTraces } from '../server/src/otlp/traces';
import { createProject, createTenant } from '../server/src/projects/store';
import { registerApp } from '../server/src/projects/apps-store';
import { freshBody, singleSessionTemplate } from './ingest-bodies';

const { values: args } = parseArgs({
  options: { requests: { type: 'string', default: '400' }, rounds: { type: 'string', default: '7' } },
});
const REQUESTS = Number(args.requests);
const ROUNDS = Number(args.rounds);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const clock = { now: () => Date.now() };
const handle = openDatabase(':memory:');
await migrateToLatest(handle);
const tenantId = await createTenant(handle.db, clock, 'bench');
const projectId = await createProject(handle.db, clock, tenantId, 'bench');
await registerApp(handle.db, clock, projectId, 'web-app');

// Nobody reads the far end (reading would be the writer thread's work), and each round has a channel of its own.
let channel = new MessageChannel();
/** Set for one untimed request: the bytes its message serializes to. */
let cloned: number | undefined = 0;
const writer: TelemetryWriter = {
  kind: 'a port',
  write(write: TelemetryWrite) {
    const message = handoverMessage(0, write);
    if (cloned === undefined) cloned = serialize(message).length;
    channel.port1.postMessage(message);
    return Promise.resolve({ stored: write.rows.length, duplicates: 0 });
  },
  close: () => Promise.resolve(),
};
const ctx = { db: handle.db, writer, clock };

const templates = Array.from({ length: 64 }, (_, i) => singleSessionTemplate(i + 1, 100));
/** Fresh batches for one round: normalizing is not what is timed, and storeBatch may take the rows over. */
const batches = (n = REQUESTS) =>
  Array.from({ length: n }, (_, i) =>
    normalizeTraces(JSON.parse(freshBody(templates[i % templates.length]!).bytes.toString('utf8'))),
  );

const rounds: { cpuUs: number; allocated: number }[] = [];
for (let r = 0; r < ROUNDS; r++) {
  const round = batches();
  channel.port1.close();
  channel = new MessageChannel();
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const cpu = process.cpuUsage();
  for (const batch of round) await storeBatch(ctx, projectId, batch);
  const used = process.cpuUsage(cpu);
  const allocated = process.memoryUsage().heapUsed - heapBefore;
  rounds.push({ cpuUs: (used.user + used.system) / REQUESTS, allocated: allocated / REQUESTS });
}
// The first round warms the code up.
const timed = rounds.slice(1);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`requests of 100 spans, ${REQUESTS} a round, ${timed.length} rounds after a warm-up one`);
console.log(
  `main-thread CPU per request, median (min-max): ${(median(timed.map((t) => t.cpuUs)) / 1000).toFixed(3)} ms (${(Math.min(...timed.map((t) => t.cpuUs)) / 1000).toFixed(3)}-${(Math.max(...timed.map((t) => t.cpuUs)) / 1000).toFixed(3)})`,
);
console.log(`bytes allocated per request, median: ${Math.round(median(timed.map((t) => t.allocated)))}`);
cloned = undefined;
await storeBatch(ctx, projectId, batches(1)[0]!);
console.log(`bytes cloned to the writer per request: ${cloned}`);
channel.port1.close();
await handle.close();
