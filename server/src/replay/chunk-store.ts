import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { StoredRow } from '../ingest/writer';

/**
 * Where replay chunk payloads live (docs/replays.md, "Object storage"): in the `data` column of their rows (the
 * default), or in an S3-compatible bucket with the row keeping only the index and the object's key. Every code path
 * that writes, reads or deletes payloads goes through this seam: ingest, the replay and records APIs, export,
 * retention, deletion on request and the orphan sweeper.
 */
export interface ChunkStore {
  /** Where payloads go, for the start-up banner: `database` or `s3://bucket/prefix`. */
  readonly where: string;
  /**
   * Ingest's rows as they are to be inserted. Object storage puts each payload first, under a key derived from the
   * chunk and its content, and returns the row with the key instead of the bytes: a crash before the insert leaves an
   * object no row names, which the sweeper deletes; a row never names an object that was not written.
   */
  place(db: Kysely<Database>, rows: StoredRow[]): Promise<StoredRow[]>;
  /** Each chunk's payload, in order; zero bytes for one whose object is missing (storedEvents reports it unreadable). */
  payloads(chunks: readonly ChunkPayloadRef[]): Promise<Uint8Array[]>;
  /** Deletes the objects under these keys; nothing to do for the database. */
  release(keys: readonly string[]): Promise<void>;
  /** The keys of the objects last written before `beforeMs`, a listing page at a time: the sweeper's candidates. */
  objectsBefore(beforeMs: number): AsyncIterable<string[]>;
  close(): void;
}

/** What a read needs of a stored chunk's row to find its payload. */
export interface ChunkPayloadRef {
  data: Uint8Array;
  object_key: string | null;
}

/** Payloads in the rows themselves: nothing to place, read or delete beyond the row. */
export const DATABASE_CHUNKS: ChunkStore = {
  where: 'database',
  place: async (_db, rows) => rows,
  // A row naming an object, written while a bucket was configured, reads as missing on a server without one.
  payloads: async (chunks) => chunks.map((c) => (c.object_key === null ? c.data : new Uint8Array())),
  release: async () => undefined,
  objectsBefore: async function* () {},
  close: () => undefined,
};

/**
 * The store of each open database's chunks. The payloads are part of what the database holds, so the store travels
 * with the database handle: the many readers of chunks (replay pages, exports, reproduction tests, breadcrumbs) and
 * its deleters (retention, erasure) find it from the `db` they are given, without each threading a second handle.
 */
const stores = new WeakMap<Kysely<Database>, ChunkStore>();

export function bindChunkStore(db: Kysely<Database>, store: ChunkStore): void {
  stores.set(db, store);
}

export const chunkStoreOf = (db: Kysely<Database>): ChunkStore => stores.get(db) ?? DATABASE_CHUNKS;

/** True when some chunk's payload lives in object storage (found by the partial index on object_key). */
export async function anyChunkInObjects(db: Kysely<Database>): Promise<boolean> {
  const row = await db
    .selectFrom('replay_chunks')
    .select('id')
    .where('object_key', 'is not', null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** `rows` with `data` holding each one's payload, wherever it lives. */
export async function withPayloads<R extends ChunkPayloadRef>(db: Kysely<Database>, rows: readonly R[]): Promise<R[]> {
  const payloads = await chunkStoreOf(db).payloads(rows);
  return rows.map((row, i) => ({ ...row, data: payloads[i]! }));
}
