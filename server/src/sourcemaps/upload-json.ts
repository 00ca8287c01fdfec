import { invalid } from '../shared/domain-errors';
import { normalizeDebugId } from './debug-ids';
import { mapTooLarge, MAX_MAP_BYTES, optionalText, type UploadEntry } from './upload-entry';

/** Entries per request: far above any build's file count, small enough to answer an error listing them. */
export const MAX_MAPS_PER_REQUEST = 10_000;
const MAX_URL = 2048;
export const MAX_RELEASE = 200;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function onlyFields(value: Json, allowed: readonly string[], where: string): void {
  const extra = Object.keys(value).find((k) => !allowed.includes(k));
  if (extra !== undefined)
    throw invalid(`unknown field ${where}${extra}: it takes ${allowed.join(', ')}`, 'invalid_request', {
      field: `${where}${extra}`,
    });
}

/** The entries of a JSON upload: `{"release"?, "maps": [{"map", "debug_id"?, "url"?, "code"?}]}` (docs/source-maps.md). */
export function entriesFromJson(body: unknown): UploadEntry[] {
  if (!isObject(body)) throw invalid('body must be a JSON object: {"release"?, "maps": [...]}');
  onlyFields(body, ['release', 'maps'], '');
  const release = optionalText(body.release, 'release', MAX_RELEASE);
  const maps = body.maps;
  if (!Array.isArray(maps) || maps.length === 0 || maps.length > MAX_MAPS_PER_REQUEST) {
    throw invalid(`maps must be an array of 1 to ${MAX_MAPS_PER_REQUEST} entries`, 'invalid_request', {
      field: 'maps',
    });
  }
  return maps.map((item: unknown, i) => entryFromJson(item, `maps[${i}]`, release));
}

function entryFromJson(item: unknown, where: string, release: string | null): UploadEntry {
  if (!isObject(item))
    throw invalid(`${where} must be an object: {"map", "debug_id"?, "url"?, "code"?}`, 'invalid_request', {
      field: where,
    });
  onlyFields(item, ['map', 'debug_id', 'url', 'code'], `${where}.`);
  const field = `${where}.map`;
  const text = mapText(item.map, field);
  const declaredId = item.debug_id === undefined ? null : normalizeDebugId(item.debug_id);
  if (item.debug_id !== undefined && !declaredId) {
    throw invalid(`${where}.debug_id must be a UUID`, 'invalid_debug_id', { field: `${where}.debug_id` });
  }
  if (item.code !== undefined && typeof item.code !== 'string')
    throw invalid(`${where}.code must be the minified file's text`, 'invalid_request', { field: `${where}.code` });
  return {
    field,
    text,
    declaredId,
    code: item.code === undefined ? null : { field: `${where}.code`, text: item.code },
    release,
    url: optionalText(item.url, `${where}.url`, MAX_URL),
  };
}

/** The map's JSON text: given as text, or as an object (written back as text, the form it is stored in). */
function mapText(value: unknown, field: string): string {
  if (typeof value === 'string') return value;
  if (!isObject(value))
    throw invalid(`${field}: a source map is a JSON object or its JSON text`, 'invalid_sourcemap', { field });
  const text = JSON.stringify(value);
  if (text.length > MAX_MAP_BYTES) throw mapTooLarge(field);
  return text;
}
