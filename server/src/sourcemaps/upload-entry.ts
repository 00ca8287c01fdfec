import { DomainError, invalid } from '../shared/domain-errors';
import { debugIdComment, normalizeDebugId } from './debug-ids';
import type { NewMap } from './store';
import { checkSourceMap } from './validate';

/** Largest map accepted, bytes of JSON text (after any decompression of the request). */
export const MAX_MAP_BYTES = 32 * 1024 * 1024;
/** Largest upload request, bytes after decompression: maps, their minified files and the form around them. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;
/** How a 413 names the limits, so the user knows which one was hit. */
export const UPLOAD_LIMIT_NAME = 'the source map upload limit of 64 MiB per request';

/** One map of an upload request, as either body format gives it. */
export interface UploadEntry {
  /** How errors name it: `maps[2].map`, `file[assets/index.js.map]`. */
  field: string;
  text: string;
  /** The debug ID the request declares for it, beside the map's own. */
  declaredId: string | null;
  /** Its minified file, whose `//# debugId=` comment must agree. */
  code: { field: string; text: string } | null;
  release: string | null;
  url: string | null;
}

export const mapTooLarge = (field: string) =>
  new DomainError(
    'too_large',
    'payload_too_large',
    `${field} exceeds the limit of ${MAX_MAP_BYTES} bytes per source map`,
    {
      field,
      limit: MAX_MAP_BYTES,
    },
  );

/**
 * The map to store for an entry: checked, with the one debug ID its map, its declaration and its minified file agree
 * on (any of them may be silent), and a key to find it by.
 */
export function toNewMap(entry: UploadEntry): NewMap {
  if (Buffer.byteLength(entry.text) > MAX_MAP_BYTES) throw mapTooLarge(entry.field);
  const checked = checkSourceMap(entry.text, entry.field);
  const fromCode = entry.code ? debugIdComment(entry.code.text) : undefined;
  const codeId = fromCode === undefined ? null : normalizeDebugId(fromCode);
  if (entry.code && fromCode !== undefined && !codeId) {
    throw invalid(`${entry.code.field}: its //# debugId= comment is not a UUID`, 'invalid_debug_id', {
      field: entry.code.field,
    });
  }
  const debugId = agreedId(entry, [
    [entry.field, checked.debugId],
    [`${entry.field} debug_id`, entry.declaredId],
    [entry.code?.field ?? '', codeId],
  ]);
  if (!debugId && !(entry.release && entry.url)) {
    throw invalid(
      `${entry.field}: a map without a debug ID needs a release and a URL to be found by`,
      'invalid_request',
      {
        field: entry.field,
      },
    );
  }
  return { debugId, release: entry.release, url: entry.url, text: checked.text };
}

function agreedId(entry: UploadEntry, claims: ReadonlyArray<readonly [string, string | null]>): string | null {
  const named = claims.filter((c): c is readonly [string, string] => c[1] !== null);
  const differing = named.find(([, id]) => id !== named[0]![1]);
  if (differing) {
    throw invalid(
      `${entry.field}: debug IDs differ (${named.map(([where, id]) => `${where}: ${id}`).join('; ')})`,
      'debug_id_mismatch',
      { field: differing[0] },
    );
  }
  return named[0]?.[1] ?? null;
}

/** An optional text field (release, URL): non-empty, at most `max` characters, no U+0000 (PostgreSQL text cannot hold it). */
export function optionalText(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '' || value.length > max || value.includes('\u0000')) {
    throw invalid(`${field} must be a non-empty string of at most ${max} characters`, 'invalid_request', { field });
  }
  return value.trim();
}
