import type { Readable } from 'node:stream';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandInput,
  type S3Client,
} from '@aws-sdk/client-s3';
import { AwsAccessError, isPassThrough } from './errors';

export interface ListedObject {
  key: string;
  lastModifiedMs: number;
}

/** A Parquet file as hyparquet reads it (its `AsyncBuffer`): the size, and byte ranges on demand. */
export interface RangedFile {
  byteLength: number;
  slice(start: number, end?: number): Promise<ArrayBuffer>;
}

/**
 * Read-only access to the report bucket: ListObjectsV2, GetObject (whole or ranged) and HeadObject, nothing else — the
 * role needs only s3:ListBucket and s3:GetObject. Every S3 failure becomes an error saying what to fix.
 */
export class ReportBucket {
  constructor(
    private readonly s3: S3Client,
    readonly name: string,
  ) {}

  /**
   * The "folders" `depth` levels under `prefix` that hold objects (each ending in `/`), sorted.
   *
   * Found from object keys, jumping past each folder's subtree once seen (StartAfter = the folder with its final `/`
   * raised to `0`, the next key that can follow all of it), rather than from a delimiter listing's CommonPrefixes:
   * s3rver and some S3-compatible stores leave out a folder that directly holds only folders, as report and export
   * folders do. One request covers many folders when their subtrees are small; a large subtree costs one more.
   */
  async folders(prefix: string, depth: number, signal: AbortSignal): Promise<string[]> {
    const found = new Set<string>();
    let startAfter: string | undefined;
    for (;;) {
      const page = await this.list({ Prefix: prefix, StartAfter: startAfter }, signal);
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [o.Key] : []));
      let last: string | undefined;
      for (const key of keys) {
        const folder = folderAt(key, prefix, depth);
        if (folder) found.add(folder);
        last = key;
      }
      if (!page.IsTruncated || last === undefined) return [...found].sort();
      const folder = folderAt(last, prefix, depth);
      startAfter = folder ? `${folder.slice(0, -1)}0` : last;
    }
  }

  /** Every object under `prefix`, at any depth. */
  async objects(prefix: string, signal: AbortSignal): Promise<ListedObject[]> {
    const out: ListedObject[] = [];
    for await (const page of this.pages(prefix, signal)) {
      for (const o of page.Contents ?? []) {
        if (o.Key) out.push({ key: o.Key, lastModifiedMs: o.LastModified?.getTime() ?? 0 });
      }
    }
    return out;
  }

  /** A small object (a manifest) as text, or null when there is no such key. */
  async text(key: string, signal: AbortSignal): Promise<string | null> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.name, Key: key }), { abortSignal: signal });
      return out.Body ? await out.Body.transformToString('utf8') : '';
    } catch (err) {
      if (isNotFound(err)) return null;
      throw this.failure(err, 'GetObject', key);
    }
  }

  /** An object's body as a byte stream; the caller destroys it when done. */
  async stream(key: string, signal: AbortSignal): Promise<Readable> {
    try {
      const out = await this.s3.send(new GetObjectCommand({ Bucket: this.name, Key: key }), { abortSignal: signal });
      // In Node the SDK's body is an http.IncomingMessage (a Readable) with its helper methods mixed in.
      return out.Body as Readable;
    } catch (err) {
      throw this.failure(err, 'GetObject', key);
    }
  }

  /** A file read by ranged GETs: one HeadObject for the size, then only the bytes the reader asks for. */
  async ranged(key: string, signal: AbortSignal): Promise<RangedFile> {
    let byteLength: number;
    try {
      const head = await this.s3.send(new HeadObjectCommand({ Bucket: this.name, Key: key }), { abortSignal: signal });
      byteLength = head.ContentLength ?? 0;
    } catch (err) {
      throw this.failure(err, 'HeadObject', key);
    }
    const slice = async (start: number, end = byteLength): Promise<ArrayBuffer> => {
      if (end <= start) return new ArrayBuffer(0);
      try {
        const out = await this.s3.send(
          new GetObjectCommand({ Bucket: this.name, Key: key, Range: `bytes=${start}-${end - 1}` }),
          { abortSignal: signal },
        );
        const bytes = out.Body ? await out.Body.transformToByteArray() : new Uint8Array(0);
        return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
      } catch (err) {
        throw this.failure(err, 'GetObject', key);
      }
    };
    return { byteLength, slice };
  }

  private async *pages(prefix: string, signal: AbortSignal) {
    let token: string | undefined;
    do {
      const page = await this.list({ Prefix: prefix, ContinuationToken: token }, signal);
      yield page;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  private async list(input: Omit<ListObjectsV2CommandInput, 'Bucket'> & { Prefix: string }, signal: AbortSignal) {
    try {
      return await this.s3.send(new ListObjectsV2Command({ Bucket: this.name, ...input }), { abortSignal: signal });
    } catch (err) {
      throw this.failure(err, 'ListObjectsV2', input.Prefix);
    }
  }

  /** Names the bucket and key and says what to fix; the SDK's own error stays as `cause`. */
  private failure(err: unknown, operation: string, key: string): Error {
    if (isPassThrough(err)) return err;
    const name = err instanceof Error ? err.name : 'Error';
    const where = `s3://${this.name}/${key}`;
    const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    let message: string;
    if (name === 'NoSuchBucket') {
      message = `bucket "${this.name}" does not exist (config.cur_bucket)`;
    } else if (name === 'AccessDenied' || status === 403) {
      message =
        `access denied: ${operation} ${where}. The role in config.role_arn needs s3:ListBucket on the bucket and ` +
        's3:GetObject on the report prefix (and kms:Decrypt if the bucket uses SSE-KMS)';
    } else {
      message = `S3 ${operation} ${where} failed (${name}${status ? ` ${status}` : ''}: ${err instanceof Error ? err.message : String(err)})`;
    }
    return new AwsAccessError(message, { cause: err });
  }
}

function isNotFound(err: unknown): boolean {
  const name = err instanceof Error ? err.name : '';
  return name === 'NoSuchKey' || name === 'NotFound';
}

/** `prefix` plus the first `depth` path segments of `key` after it, when the key lies that deep in folders. */
function folderAt(key: string, prefix: string, depth: number): string | null {
  let end = prefix.length - 1;
  for (let i = 0; i < depth; i++) {
    end = key.indexOf('/', end + 1);
    if (end < 0) return null;
  }
  return key.slice(0, end + 1);
}
