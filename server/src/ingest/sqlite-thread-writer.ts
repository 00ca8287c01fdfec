import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { fromColumns, toColumns, type RowColumns } from './row-columns';
import type { StoreResult, TelemetryWrite, TelemetryWriter } from './writer';

/** A write as it crosses to the thread: its rows as columns when they share theirs (row-columns.ts). */
type WriteMessage = Omit<TelemetryWrite, 'rows'> & { rows: TelemetryWrite['rows'] | RowColumns };
export type ToWriter = { type: 'write'; id: number; write: WriteMessage } | { type: 'close' };
type FromWriter =
  | { id: number; ok: true; result: StoreResult }
  | { id: number; ok: false; message: string; code?: unknown };

/** The message that hands a write to the thread: `postMessage` structured-clones it on the main thread. */
export const handoverMessage = (id: number, write: TelemetryWrite): ToWriter => ({
  type: 'write',
  id,
  write: { ...write, rows: toColumns(write.rows) ?? write.rows },
});

/** The write a message carries, as the writer takes it. */
export const handedOver = ({ rows, ...write }: WriteMessage): TelemetryWrite => ({
  ...write,
  rows: Array.isArray(rows) ? rows : fromColumns(rows),
});

/** A failure reported by the thread, with the SQLite error code it carried. */
function writeError(message: string, code: unknown): Error {
  return Object.assign(new Error(message), typeof code === 'string' ? { code } : {});
}

/**
 * The writer thread's module, beside this one in the server's build. Running from TypeScript sources there is none,
 * and the in-thread writer serves instead.
 */
const THREAD_MODULE = new URL('./sqlite-writer-thread.js', import.meta.url);
export const writerThreadAvailable = (): boolean =>
  THREAD_MODULE.protocol === 'file:' && existsSync(fileURLToPath(THREAD_MODULE));

/**
 * SQLite ingest on a thread of its own, for file databases: inserting and committing rows is about half of the
 * ingest CPU, and here it runs on the second core while the main thread parses and validates the next requests. The
 * thread opens its own connection to the same file (WAL allows one writer beside the server's readers) and replies to
 * each write after the COMMIT that holds it.
 *
 * If the thread dies, writes waiting for it fail (their requests get a 503: nothing was acknowledged) and later
 * writes go to `fallback`, the in-thread writer, so ingest carries on.
 */
export function sqliteThreadWriter(
  path: string,
  fallback: () => TelemetryWriter,
  log: (line: string) => void,
): TelemetryWriter {
  const worker = new Worker(THREAD_MODULE, { workerData: { path } });
  const pending = new Map<number, { resolve(r: StoreResult): void; reject(e: Error): void }>();
  let nextId = 0;
  let closing = false;
  let dead = false;
  let replacement: TelemetryWriter | undefined;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));

  worker.on('message', (msg: FromWriter) => {
    const p = pending.get(msg.id);
    pending.delete(msg.id);
    if (msg.ok) p?.resolve(msg.result);
    else p?.reject(writeError(msg.message, msg.code));
  });
  const stopped = (why: string) => {
    if (dead || (closing && pending.size === 0)) return;
    dead = true;
    log(`ingest writer thread stopped (${why}); writing on the main thread from now on`);
    replacement ??= fallback();
    // Nothing of these writes was committed, and the next ones go to the fallback: the client may send them again.
    for (const p of pending.values())
      p.reject(writeError(`ingest writer thread stopped: ${why}`, 'SVC_WRITER_STOPPED'));
    pending.clear();
  };
  worker.on('error', (err) => stopped(err.message));
  worker.on('exit', (code) => stopped(`exit code ${code}`));

  return {
    get kind() {
      return replacement ? replacement.kind : 'sqlite, writer thread';
    },
    write(write) {
      if (replacement) return replacement.write(write);
      if (write.rows.length === 0) return Promise.resolve({ stored: 0, duplicates: 0 });
      return new Promise<StoreResult>((resolve, reject) => {
        const id = nextId++;
        pending.set(id, { resolve, reject });
        worker.postMessage(handoverMessage(id, write));
      });
    },
    async close() {
      closing = true;
      if (!replacement) {
        // The thread drains its queue, closes its connection and exits; replies for the last writes come first.
        worker.postMessage({ type: 'close' } satisfies ToWriter);
        await exited;
      }
      await replacement?.close();
    },
  };
}
