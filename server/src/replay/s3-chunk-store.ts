import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { StoredRow } from '../ingest/writer';
import type { ChunkPayloadRef, ChunkStore } from './chunk-store';
import type { ReplayStorageSettings } from './storage-settings';

/** Keys per DeleteObjects request: S3's limit. */
export const DELETE_OBJECTS_MAX = 1000;
/** Objects fetched at once for one read (a replay page holds at most a few MB of them). */
const READ_CONCURRENCY = 8;

/** An object storage request failed: ingest answers 503 (the SDK sends the chunk again), a job logs and retries. */
export class ObjectStorageError extends Error {
  readonly code = 'SVC_OBJECT_STORAGE';
}

const digest = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex').slice(0, 32);

/**
 * The object of a chunk: `<prefix><project>/<session>/<replay>/<seq>-<content>`, session and replay ids as digests
 * (they are free text, a `/` or 128 multibyte characters must not reshape or overflow the key). The same chunk sent
 * again lands on the same key, so a retry's put overwrites its own object; a different payload under the same seq gets
 * a key of its own, and loses to the stored row like any duplicate (its object is an orphan the sweeper takes).
 */
export function chunkObjectKey(prefix: string, row: StoredRow, data: Uint8Array): string {
  return `${prefix}${row.project_id}/${digest(String(row.session_id))}/${digest(String(row.replay_id))}/${String(row.seq)}-${digest(data)}`;
}

/** Payloads in an S3-compatible bucket; credentials come from the AWS SDK's default chain, never from our settings. */
export async function openS3ChunkStore(settings: ReplayStorageSettings): Promise<ChunkStore> {
  // Loaded only when a bucket is configured: the AWS SDK is the heaviest of the server's imports to load.
  const sdk = await import('@aws-sdk/client-s3');
  const s3 = new sdk.S3Client({
    region: settings.region,
    ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
    // Plain bodies rather than aws-chunked ones with checksum trailers, which S3-compatible servers often refuse.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  try {
    await s3.send(new sdk.HeadBucketCommand({ Bucket: settings.bucket }));
  } catch (err) {
    s3.destroy();
    const where = settings.endpoint ? ` at ${settings.endpoint}` : '';
    throw new Error(`SVC_REPLAY_S3_BUCKET: bucket "${settings.bucket}"${where} cannot be used: ${messageOf(err)}`);
  }
  return new S3ChunkStore(sdk, s3, settings.bucket, settings.prefix);
}

class S3ChunkStore implements ChunkStore {
  readonly where: string;

  constructor(
    private readonly sdk: typeof import('@aws-sdk/client-s3'),
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly prefix: string,
  ) {
    this.where = `s3://${bucket}/${prefix}`;
  }

  place(db: Kysely<Database>, rows: StoredRow[]): Promise<StoredRow[]> {
    return Promise.all(rows.map((row) => placeRow(db, row, this.prefix, (key, data) => this.put(key, data))));
  }

  async payloads(chunks: readonly ChunkPayloadRef[]): Promise<Uint8Array[]> {
    const out = new Array<Uint8Array>(chunks.length);
    let next = 0;
    const worker = async () => {
      for (let i = next++; i < chunks.length; i = next++) {
        const { object_key: key, data } = chunks[i]!;
        out[i] = key === null ? data : await this.get(key);
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, chunks.length) }, worker));
    return out;
  }

  async release(keys: readonly string[]): Promise<void> {
    for (let i = 0; i < keys.length; i += DELETE_OBJECTS_MAX) {
      const batch = keys.slice(i, i + DELETE_OBJECTS_MAX);
      const Delete = { Objects: batch.map((Key) => ({ Key })), Quiet: true };
      const answer = await this.send('delete', () =>
        this.s3.send(new this.sdk.DeleteObjectsCommand({ Bucket: this.bucket, Delete })),
      );
      // A key already gone is not an error for S3; any other per-key error is.
      const errors = (answer.Errors ?? []).filter((e) => e.Code !== 'NoSuchKey');
      if (errors.length > 0)
        throw this.failed(
          'delete',
          `${errors.length} of ${batch.length} keys, e.g. ${errors[0]!.Key}: ${errors[0]!.Code}`,
        );
    }
  }

  async *objectsBefore(beforeMs: number): AsyncIterable<string[]> {
    let token: string | undefined;
    do {
      const list = new this.sdk.ListObjectsV2Command({
        Bucket: this.bucket,
        Prefix: this.prefix,
        ContinuationToken: token,
      });
      const page = await this.send('listing', () => this.s3.send(list));
      const keys = (page.Contents ?? []).flatMap((o) =>
        o.Key !== undefined && o.LastModified !== undefined && o.LastModified.getTime() < beforeMs ? [o.Key] : [],
      );
      if (keys.length > 0) yield keys;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  close(): void {
    this.s3.destroy();
  }

  private async put(key: string, data: Uint8Array): Promise<void> {
    await this.send('put', () =>
      this.s3.send(new this.sdk.PutObjectCommand({ Bucket: this.bucket, Key: key, Body: data })),
    );
  }

  private async get(key: string): Promise<Uint8Array> {
    try {
      const answer = await this.s3.send(new this.sdk.GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return (await answer.Body?.transformToByteArray()) ?? new Uint8Array();
    } catch (err) {
      if (err instanceof this.sdk.NoSuchKey) return new Uint8Array();
      throw this.failed('read', err);
    }
  }

  /** One request; a failure becomes an ObjectStorageError saying what was asked of which bucket. */
  private async send<Output>(what: string, request: () => Promise<Output>): Promise<Output> {
    try {
      return await request();
    } catch (err) {
      throw this.failed(what, err);
    }
  }

  private failed(what: string, err: unknown): ObjectStorageError {
    return new ObjectStorageError(`object storage ${what} failed (${this.where}): ${messageOf(err)}`);
  }
}

/**
 * One row placed: unless the chunk is already stored (an SDK retry: the writer reports it a duplicate, and no second
 * object is written), its payload is put and the row keeps the key and the size.
 */
async function placeRow(
  db: Kysely<Database>,
  row: StoredRow,
  prefix: string,
  put: (key: string, data: Uint8Array) => Promise<void>,
): Promise<StoredRow> {
  const stored = await db
    .selectFrom('replay_chunks')
    .select('id')
    .where('project_id', '=', row.project_id)
    .where('session_id', '=', String(row.session_id))
    .where('replay_id', '=', String(row.replay_id))
    .where('seq', '=', Number(row.seq))
    .executeTakeFirst();
  if (stored) return row;
  const data = row.data as Uint8Array;
  const key = chunkObjectKey(prefix, row, data);
  await put(key, data);
  return { ...row, data: new Uint8Array(), object_key: key, stored_bytes: data.byteLength };
}

const messageOf = (err: unknown): string => (err instanceof Error ? err.message || err.name : String(err));
