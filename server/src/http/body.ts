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
    throw new ApiError(415, 'unsupported_media_type', `Content-Type "${media || '(none)'}" is not accepted here; use ${allowed.join(', ')}`, {
      field: 'Content-Type',
      accepted: allowed,
    });
  }
  return format;
}

const tooLarge = (limit: number) =>
  new ApiError(413, 'payload_too_large', `request body exceeds the limit of ${limit} bytes (SVC_BODY_LIMIT)`, { limit });

/**
 * Reads the whole body, refusing more than `limit` bytes both on the wire and after decompression, so neither a large
 * upload nor a small gzip bomb can exhaust memory. `Content-Encoding` may be gzip, deflate or identity.
 */
export async function readBody(c: Context, limit: number): Promise<Uint8Array> {
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const raw = await readLimited(c.req.raw.body, limit);
  const encoding = (c.req.header('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return raw;
  if (encoding !== 'gzip' && encoding !== 'deflate') {
    throw new ApiError(415, 'unsupported_encoding', `Content-Encoding "${encoding}" is not supported; use gzip, deflate or identity`, {
      field: 'Content-Encoding',
    });
  }
  try {
    const inflateFn = encoding === 'gzip' ? gunzipAsync : inflateAsync;
    return await inflateFn(raw, { maxOutputLength: limit });
  } catch (err) {
    if (err instanceof RangeError || (err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(limit);
    throw badRequest(`body is not valid ${encoding} data`, { field: 'Content-Encoding' });
  }
}

async function readLimited(stream: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array> {
  if (!stream) return new Uint8Array(0);
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge(limit);
    }
    parts.push(value);
  }
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
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
