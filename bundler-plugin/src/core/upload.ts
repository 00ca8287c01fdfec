import { readFile, stat } from 'node:fs/promises';
import type { InjectedFile } from './inject';
import { toUploadPath } from './scan';

/**
 * Most bytes of files in one upload request. The server takes up to 64 MiB per request and 32 MiB per map; requests of
 * 8 MiB also stay under the body limits reverse proxies are commonly given. A file and its map always travel together,
 * so a pair bigger than this goes alone (and the server's answer says whether it fits its caps).
 */
export const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

export interface UploadOptions {
  /** The svc server's base URL, e.g. https://svc.example.com */
  url: string;
  /** A control key of the project (`svc_control_…`). */
  controlKey: string;
  release?: string | undefined;
  /** Joined to each file's path under the uploaded directory to give its URL; `~/` matches any origin. Default `~/`. */
  urlPrefix?: string | undefined;
  maxRequestBytes?: number | undefined;
}

/** One stored map, as the server lists it in its answer. */
export interface StoredMap {
  debug_id: string | null;
  release: string | null;
  url: string | null;
  bytes: number;
}

/** One file part of a request; read from disk only when its request is sent. */
interface Part {
  name: string;
  path: string;
  size: number;
  type: string;
}

const part = async (dir: string, path: string, type: string): Promise<Part> => ({
  name: toUploadPath(dir, path),
  path,
  size: (await stat(path)).size,
  type,
});

/** Each file that has a map, as the parts of one request: the JavaScript file and its map. */
async function pairsOf(dir: string, files: readonly InjectedFile[]): Promise<Part[][]> {
  const withMaps = files.filter((f): f is InjectedFile & { map: string } => f.map !== null);
  return Promise.all(
    withMaps.map(async (f) => [
      await part(dir, f.file, 'application/javascript'),
      await part(dir, f.map, 'application/json'),
    ]),
  );
}

/** Groups pairs into requests of at most `limit` bytes of files each (one oversized pair alone). */
function batches(pairs: Part[][], limit: number): Part[][] {
  const out: Part[][] = [];
  let current: Part[] = [];
  let size = 0;
  for (const pair of pairs) {
    const bytes = pair.reduce((n, p) => n + p.size, 0);
    if (current.length > 0 && size + bytes > limit) {
      out.push(current);
      current = [];
      size = 0;
    }
    current.push(...pair);
    size += bytes;
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** The server's error shape, `{"error":{"code","message","details":{"field"}}}`, as one line; else the body as sent. */
function describeAnswer(status: number, body: string): string {
  try {
    const { error } = JSON.parse(body) as { error?: { code?: string; message?: string; details?: { field?: string } } };
    if (error?.code)
      return `${status} ${error.code}: ${error.message ?? ''}${error.details?.field ? ` (field ${error.details.field})` : ''}`;
  } catch {
    // not JSON: quoted below as it came
  }
  return `${status}: ${body.slice(0, 500)}`;
}

async function send(endpoint: string, parts: Part[], options: UploadOptions): Promise<StoredMap[]> {
  const form = new FormData();
  if (options.release !== undefined) form.append('release', options.release);
  form.append('url_prefix', options.urlPrefix ?? '~/');
  for (const p of parts) form.append('file', new Blob([await readFile(p.path)], { type: p.type }), p.name);
  const names = parts.map((p) => p.name).join(', ');
  let res: Response;
  try {
    res = await fetch(endpoint, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.controlKey}` },
      body: form,
    });
  } catch (error) {
    const cause = (error as Error & { cause?: Error }).cause?.message ?? (error as Error).message;
    throw new Error(`could not reach svc at ${endpoint}: ${cause}`);
  }
  const body = await res.text();
  if (res.status !== 201)
    throw new Error(`svc refused the source maps (${names}): ${describeAnswer(res.status, body)}`);
  return (JSON.parse(body) as { stored: StoredMap[] }).stored;
}

/**
 * Uploads the maps of `files` (and the files, which the server checks each map's debug ID against) from `dir`, where
 * the build wrote them, to `POST /control-plane/sourcemaps`. Resolves with everything the server stored; rejects with
 * the server's answer when it refuses a request (the requests before it stay stored).
 */
export async function uploadSourceMaps(
  dir: string,
  files: readonly InjectedFile[],
  options: UploadOptions,
): Promise<StoredMap[]> {
  const endpoint = `${options.url.replace(/\/+$/, '')}/control-plane/sourcemaps`;
  const stored: StoredMap[] = [];
  for (const parts of batches(await pairsOf(dir, files), options.maxRequestBytes ?? MAX_REQUEST_BYTES)) {
    stored.push(...(await send(endpoint, parts, options)));
  }
  return stored;
}
