import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/**
 * WAL checkpoints off the request path. SQLite's automatic checkpoint runs in the COMMIT that takes the WAL past
 * `wal_autocheckpoint` pages (1,000 by default, every few 100-span requests): that request pays for copying the WAL
 * back into the database file and for the fsync, on the event loop. Here a worker thread with its own connection
 * checkpoints every `CHECKPOINT_INTERVAL_MS`, on the other core. The automatic checkpoint stays at SQLite's default as
 * a safety net: it bounds the WAL if the worker falls behind, and a PASSIVE checkpoint racing continuous writes may
 * never let the WAL restart from its beginning, whereas the automatic one, run by the only writer right after its
 * commit, does. A higher threshold gained about 15 % throughput but made each in-request checkpoint longer, which
 * pushed the p99 at half the maximum rate over 50 ms (docs/benchmarks.md).
 */
export const CHECKPOINT_INTERVAL_MS = 200;
/** 4 MiB of WAL with 4 KiB pages: about 8 100-span requests (each writes about 130 pages to the WAL). */
export const AUTOCHECKPOINT_PAGES = 1_000;
/** After the WAL restarts, a file grown past this is truncated back to it, so disk use stays bounded. */
export const JOURNAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * The worker's whole program: its own connection, a PASSIVE checkpoint (which never waits for the server's readers or
 * writers; what it cannot copy now, the next run copies) every interval, and a clean close on 'stop'. It is inline
 * source, not a module file, so the same code runs from the tsup bundle, under tsx and under Vitest; `eval` workers
 * are CommonJS, hence `require`.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.path);
db.pragma('busy_timeout = 5000');
const timer = setInterval(() => db.pragma('wal_checkpoint(PASSIVE)'), workerData.intervalMs);
parentPort.once('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** Starts checkpointing the file database `sqlite` is connected to. `stop()` resolves once the worker has exited. */
export function startCheckpointer(sqlite: SQLite.Database, log: (line: string) => void): { stop(): Promise<void> } {
  sqlite.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
  sqlite.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES}`);
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      path: sqlite.name,
      intervalMs: CHECKPOINT_INTERVAL_MS,
    },
  });
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('error', (err) => {
    // Ingest goes on: the automatic checkpoint still bounds the WAL, only inside requests again.
    log(`WAL checkpoint worker failed, falling back to automatic checkpoints: ${err.message}`);
  });
  worker.unref();
  return {
    stop() {
      // Referenced again, or a process with nothing else to do would exit before the worker closes its connection.
      worker.ref();
      worker.postMessage('stop');
      return exited;
    },
  };
}
