import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database, TelemetryTable } from '../db/schema';
import { isTransientStorageError } from '../db/transient';
import type { PendingBatch } from '../otlp/records';
import { DomainError, invalid } from '../shared/domain-errors';
import { resolveServiceNames } from '../projects/apps-store';
import { chunkStoreOf } from '../replay/chunk-store';
import { ObjectStorageError } from '../replay/s3-chunk-store';
import type { StoredRow, StoreResult, TelemetryWriter } from './writer';

export interface StoreContext {
  db: Kysely<Database>;
  writer: TelemetryWriter;
  clock: Clock;
  /** Where the cause of a storage failure goes: the answer names none (the caller holds only a public ingest key). */
  log?: (line: string) => void;
}

/**
 * Validates one request's rows and hands them to the writer, which stores a payload whole or not at all. Everything
 * that can refuse a payload is checked here, before the writer may group it with other requests' rows.
 *
 * Every `service.name` must be an app of the key's project or one of its aliases; aliases are stored as the canonical
 * app. Any other name rejects the whole payload with 422 `unknown_service`.
 */
export async function storeBatch<T extends TelemetryTable>(
  ctx: StoreContext,
  projectId: string,
  batch: PendingBatch<T>,
): Promise<StoreResult> {
  if (batch.rows.length === 0) return { stored: 0, duplicates: 0 };
  refuseNul(batch);
  const names = [...new Set(batch.services)];
  const apps = await resolveServiceNames(ctx.db, projectId, names);
  const unknown = names.filter((n) => !apps.has(n));
  if (unknown.length > 0) {
    throw new DomainError(
      'unprocessable',
      'unknown_service',
      `service.name ${unknown.map((n) => JSON.stringify(n)).join(', ')} is neither the name nor an alias of an app in this project; nothing was stored`,
      { field: 'service.name', rejected: unknown },
    );
  }
  const receivedMs = ctx.clock.now();
  const rows = stamped(batch, projectId, (i) => apps.get(batch.services[i]!)!.id, receivedMs);
  try {
    // Replay payloads bound for object storage are put before their rows are written (replay/chunk-store.ts).
    const placed = batch.table === 'replay_chunks' ? await chunkStoreOf(ctx.db).place(ctx.db, rows) : rows;
    return await ctx.writer.write({
      projectId,
      table: batch.table,
      rows: placed,
      receivedMs,
      sessions: batch.sessions,
    });
  } catch (err) {
    if (!isTransientStorageError(err) && !(err instanceof ObjectStorageError)) throw err;
    ctx.log?.(
      `ingest of ${rows.length} ${batch.table} rows answered 503, storage unavailable: ${err instanceof Error ? err.message : String(err)}`,
    );
    throw storageUnavailable();
  }
}

/** Seconds a client is asked to wait before sending a batch again that storage could not take. */
const RETRY_AFTER_SECONDS = 2;

/** A 503 that OTLP exporters and the SDK retry (they do not retry a 500): the batch is not lost. */
function storageUnavailable(): DomainError {
  return new DomainError(
    'unavailable',
    'storage_unavailable',
    `storage is unavailable for the moment; nothing was stored, send the request again after ${RETRY_AFTER_SECONDS} s`,
    { retryAfterSeconds: RETRY_AFTER_SECONDS },
    RETRY_AFTER_SECONDS,
  );
}

/**
 * The batch's rows made stored rows, in place: the normalizer built them for this request alone, and a copy of each
 * was a sixth of the main thread's own work on a request (issue 33). `appOf(i)` is the app of row `i`.
 */
function stamped(batch: PendingBatch, projectId: string, appOf: (i: number) => string, receivedMs: number) {
  const rows = batch.rows as (PendingBatch['rows'][number] & Partial<StoredRow>)[];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    row.project_id = projectId;
    row.app_id = appOf(i);
    row.received_ms = receivedMs;
  }
  return rows as StoredRow[];
}

/**
 * U+0000 is valid in JSON and OTLP strings but PostgreSQL text cannot hold it, so it is refused on both databases
 * alike. JSON columns are unaffected: JSON.stringify escapes it. The columns are walked with `for … in`, which
 * allocates nothing per row.
 */
function refuseNul(batch: PendingBatch): void {
  const refuse = (field: string) =>
    invalid(
      `${field} of a ${batch.table} record contains U+0000 (NUL), which cannot be stored; nothing was stored`,
      'invalid_request',
      {
        field,
      },
    );
  for (const name of batch.services) if (name.includes('\u0000')) throw refuse('service.name');
  for (const row of batch.rows as Record<string, unknown>[]) {
    for (const column in row) {
      const value = row[column];
      if (typeof value === 'string' && value.includes('\u0000')) throw refuse(column);
    }
  }
}
