import { promisify } from 'node:util';
import { gunzip, inflate } from 'node:zlib';
import type { Context } from 'hono';
import { ApiError, badRequest } from './errors';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

export type BodyFormat = 'json' | 'protobuf';

/** Media types per format. `text/plain` is what `sendBeacon` sends for a string body; it carries JSON. */
const FORMATS: Record<string, BodyFormat> = {
  'application/json': 'json',
  'text/plain': 'json',
  'application/x-protobuf': 'protobuf',
  'application/protobuf': 'protobuf',
};

export function bodyFormat(c: Context, accepted: readonly BodyFormat[]): BodyFormat {
  const header = c.req.header('content-type');
  const media = header?.split(';')[0]?.trim().toLowerCase() ?? '';
  const format = FORMATS[media];
  if (!format || !accepted.includes(format)) {
    const allowed = Object.entries(FORMATS)
      .filter(([, f]) => accepted.includes(f))
      .map(([m]) => m);
    throw new ApiError(
      415,
      'unsupported_media_type',
      `Content-Type "${media || '(none)'}" is not accepted here; use ${allowed.join(', ')}`,
      {
        field: 'Content-Type',
        accepted: allowed,
      },
    );
  }
  return format;
}

/**
 * How much of a refused body is still read (and dropped) before the 413 goes out. Most HTTP clients write the whole
 * body before they read the answer: a server that stops reading and closes leaves them with EPIPE or ECONNRESET
 * instead of the 413. Past these bounds the answer says `Connection: close` and the connection ends once it is sent.
 */
const DRAIN_BYTES = 64 * 1024 * 1024;
const DRAIN_MS = 5_000;

/** What a 413 says about the limit when the caller does not name it: the server's configured body limit. */
const CONFIGURED_LIMIT = 'SVC_BODY_LIMIT';

const tooLarge = (limit: number, setting: string) =>
  new ApiError(413, 'payload_too_large', `request body exceeds the limit of ${limit} bytes (${setting})`, { limit });

/**
 * Reads the whole body, refusing more than `limit` bytes both on the wire and after decompression, so neither a large
 * upload nor a small gzip bomb can exhaust memory. `Content-Encoding` may be gzip, deflate or identity. `setting` is
 * how a 413 names the limit, so the user knows what would raise it: the `SVC_BODY_LIMIT` setting unless told.
 */
export async function readBody(c: Context, limit: number, setting = CONFIGURED_LIMIT): Promise<Uint8Array> {
  const reader = c.req.raw.body?.getReader();
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > limit) {
    await discardRest(c, reader, declared);
    throw tooLarge(limit, setting);
  }
  const raw = await readLimited(c, reader, limit);
  if (raw === undefined) throw tooLarge(limit, setting);
  const encoding = (c.req.header('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return raw;
  if (encoding !== 'gzip' && encoding !== 'deflate') {
    throw new ApiError(
      415,
      'unsupported_encoding',
      `Content-Encoding "${encoding}" is not supported; use gzip, deflate or identity`,
      {
        field: 'Content-Encoding',
      },
    );
  }
  try {
    const inflateFn = encoding === 'gzip' ? gunzipAsync : inflateAsync;
    return await inflateFn(raw, { maxOutputLength: limit });
  } catch (err) {
    if (err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      throw tooLarge(limit, setting);
    throw badRequest(`body is not valid ${encoding} data`, { field: 'Content-Encoding' });
  }
}

type BodyReader = ReadableStreamDefaultReader<Uint8Array>;

/** The body, or undefined once it exceeds `limit` (the rest then discarded: discardRest). */
async function readLimited(c: Context, reader: BodyReader | undefined, limit: number): Promise<Uint8Array | undefined> {
  if (!reader) return new Uint8Array(0);
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await discardRest(c, reader, 0);
      return undefined;
    }
    parts.push(value);
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
}

/**
 * Reads and drops the rest of a refused body, so the client gets to read the answer, within DRAIN_BYTES and DRAIN_MS;
 * a body declared larger than that is not read at all. Past the bounds the answer closes the connection: the client
 * may then see it reset, but the server spends no more on it.
 */
async function discardRest(c: Context, reader: BodyReader | undefined, declared: number): Promise<void> {
  if (!reader) return;
  if (declared <= DRAIN_BYTES && (await drained(reader))) return;
  c.header('connection', 'close');
  await reader.cancel().catch(() => undefined);
}

/** True when the body ended within the drain bounds. */
async function drained(reader: BodyReader): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), DRAIN_MS)));
  try {
    for (let left = DRAIN_BYTES; left >= 0; ) {
      const next = await Promise.race([reader.read(), late]);
      if (next === 'late') return false;
      if (next.done) return true;
      left -= next.value.byteLength;
    }
    return false;
  } finally {
    clearTimeout(timer);
  }
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Parses a JSON body; invalid UTF-8 or JSON is a 400 naming the problem. */
export function parseJson(bytes: Uint8Array): unknown {
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw badRequest('body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`body is not valid JSON: ${(err as Error).message}`);
  }
}
