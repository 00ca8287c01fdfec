import { invalid } from '../shared/domain-errors';
import { CONTROL_MAX_DEPTH, nestsDeeperThan } from '../json/nesting';
import { normalizeDebugId } from './debug-ids';

/** A map that passed the checks: its text as it will be stored and the debug ID it names, if any. */
export interface CheckedMap {
  text: string;
  debugId: string | null;
}

const invalidMap = (field: string, message: string) => invalid(`${field}: ${message}`, 'invalid_sourcemap', { field });

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const stringsOrNulls = (v: unknown) => Array.isArray(v) && v.every((s) => typeof s === 'string' || s === null);
/** Base64 VLQ digits and the two separators: anything else cannot decode. */
const MAPPINGS = /^[A-Za-z0-9+/,;]*$/;

/**
 * Checks that `text` is a source map the symbolicator can read: JSON, version 3, with `mappings` and `sources`, or an
 * index map whose `sections` each embed such a map (sections that point at a `url` are refused: nothing would fetch
 * it). Throws a 400 naming `field` otherwise.
 */
export function checkSourceMap(text: string, field: string): CheckedMap {
  if (nestsDeeperThan(text, CONTROL_MAX_DEPTH))
    throw invalidMap(field, `nests arrays and objects deeper than ${CONTROL_MAX_DEPTH} levels; no source map does`);
  let map: unknown;
  try {
    map = JSON.parse(text);
  } catch (err) {
    throw invalidMap(field, `not valid JSON: ${(err as Error).message}`);
  }
  if (!isObject(map)) throw invalidMap(field, 'a source map is a JSON object');
  if ('sections' in map) checkSections(map, field);
  else checkPlainMap(map, field);
  return { text, debugId: ownDebugId(map, field) };
}

function checkPlainMap(map: Json, field: string): void {
  if (map.version !== 3)
    throw invalidMap(field, `not a version 3 source map ("version": ${JSON.stringify(map.version) ?? 'missing'})`);
  if (typeof map.mappings !== 'string' || !MAPPINGS.test(map.mappings))
    throw invalidMap(field, '"mappings" must be a string of base64 VLQ segments');
  if (!stringsOrNulls(map.sources)) throw invalidMap(field, '"sources" must be an array of strings');
  if (map.names !== undefined && !stringsOrNulls(map.names))
    throw invalidMap(field, '"names" must be an array of strings');
  if (map.sourcesContent !== undefined && !stringsOrNulls(map.sourcesContent))
    throw invalidMap(field, '"sourcesContent" must be an array of strings or nulls');
  if (map.sourceRoot !== undefined && map.sourceRoot !== null && typeof map.sourceRoot !== 'string')
    throw invalidMap(field, '"sourceRoot" must be a string');
}

/** An index map: version 3 with `sections`, each `{offset: {line, column}, map}`, in order. */
function checkSections(map: Json, field: string): void {
  if (map.version !== 3)
    throw invalidMap(field, `not a version 3 source map ("version": ${JSON.stringify(map.version) ?? 'missing'})`);
  if (!Array.isArray(map.sections)) throw invalidMap(field, '"sections" must be an array');
  map.sections.forEach((section: unknown, i) => {
    const where = `${field} sections[${i}]`;
    if (!isObject(section)) throw invalidMap(where, 'a section is an object');
    const offset = section.offset;
    if (!isObject(offset) || !Number.isSafeInteger(offset.line) || !Number.isSafeInteger(offset.column)) {
      throw invalidMap(where, '"offset" must be {"line", "column"} integers');
    }
    if (section.url !== undefined)
      throw invalidMap(where, 'sections that refer to a "url" are not supported: embed the map');
    if (!isObject(section.map) || 'sections' in section.map)
      throw invalidMap(where, '"map" must be a version 3 source map (sections do not nest)');
    checkPlainMap(section.map, where);
  });
}

function ownDebugId(map: Json, field: string): string | null {
  const raw = map.debugId ?? map.debug_id;
  if (raw === undefined || raw === null) return null;
  const id = normalizeDebugId(raw);
  if (!id)
    throw invalid(`${field}: "debugId" must be a UUID (got ${JSON.stringify(raw).slice(0, 60)})`, 'invalid_debug_id', {
      field,
    });
  return id;
}
