/**
 * Entry of the ingest writer thread (see sqlite-thread-writer.ts): owns its own connection to the SQLite file and
 * writes what the main thread sends, with group commit. Replies once each write is committed, or failed.
 */
import { parentPort, workerData } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { configureSqlite } from '../db/sqlite-settings';
import { groupCommit } from './group-commit';
import { sqliteGroupWrite } from './sqlite-group-write';
import type { StoreResult, TelemetryWrite } from './writer';
import { handedOver, type ToWriter } from './sqlite-thread-writer';

const port = parentPort!;
const sqlite = configureSqlite(new SQLite((workerData as { path: string }).path));
const writeGroup = sqliteGroupWrite(sqlite);
const queue = groupCommit<TelemetryWrite, StoreResult>(writeGroup);

port.on('message', (msg: ToWriter) => {
  if (msg.type === 'close') {
    void queue.drain().then(() => {
      sqlite.close();
      port.close();
    });
    return;
  }
  queue.submit(handedOver(msg.write)).then(
    (result) => port.postMessage({ id: msg.id, ok: true, result }),
    (err: unknown) =>
      port.postMessage({
        id: msg.id,
        ok: false,
        message: err instanceof Error ? err.message : String(err),
        // SQLITE_BUSY, SQLITE_FULL, ...: the main thread tells a transient failure (503) from a bad write by it.
        code: (err as { code?: unknown } | null)?.code,
      }),
  );
});
