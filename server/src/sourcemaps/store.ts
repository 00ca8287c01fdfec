import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzipSync, gzip } from 'node:zlib';
import type { Kysely, Transaction } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { DomainError } from '../shared/domain-errors';
import { splitSources } from './split-map';

const gzipAsync = promisify(gzip);

/** A checked map about to be stored: a debug ID, or a release and a URL (the fallback key), or both. */
export interface NewMap {
  debugId: string | null;
  release: string | null;
  url: string | null;
  text: string;
}

export interface StoredMap {
  debugId: string | null;
  release: string | null;
  url: string | null;
  bytes: number;
  uploadedMs: number;
}

/** Which stored map a frame uses. */
export interface MapRef {
  id: string;
}

/** Source rows per insert: far below PostgreSQL's 65,535 parameters. */
const SOURCE_BATCH = 500;

/**
 * Stores `maps` in one transaction, each replacing the map stored under the same key (its debug ID, else its release
 * and URL), so uploading a build again changes nothing. Splitting and compression run first, outside the transaction.
 */
export async function storeMaps(
  db: Kysely<Database>,
  clock: Clock,
  projectId: string,
  maps: readonly NewMap[],
): Promise<StoredMap[]> {
  const parts = await Promise.all(maps.map((m) => compressedParts(m.text)));
  const now = clock.now();
  await db.transaction().execute(async (tx) => {
    // Uploads to one project take turns (the project's row is locked until commit, as tenancy/apps.ts does for
    // projects): two uploads of one build at once would otherwise both delete nothing and collide on insert.
    await tx
      .updateTable('projects')
      .set((eb) => ({ name: eb.ref('name') }))
      .where('id', '=', projectId)
      .execute();
    for (const [i, map] of maps.entries()) await replaceMap(tx, projectId, map, parts[i]!, now);
  });
  return maps.map((m) => ({
    debugId: m.debugId,
    release: m.release,
    url: m.url,
    bytes: Buffer.byteLength(m.text),
    uploadedMs: now,
  }));
}

interface CompressedParts {
  mappings: Uint8Array;
  sources: Array<{ idx: number; content_gzip: Uint8Array }>;
}

async function replaceMap(
  tx: Transaction<Database>,
  projectId: string,
  map: NewMap,
  parts: CompressedParts,
  now: number,
): Promise<void> {
  let old = tx.deleteFrom('sourcemaps').where('project_id', '=', projectId);
  old = map.debugId
    ? old.where('debug_id', '=', map.debugId)
    : old.where('debug_id', 'is', null).where('release', '=', map.release).where('url', '=', map.url);
  await old.execute();
  const id = randomUUID();
  await tx
    .insertInto('sourcemaps')
    .values({
      id,
      project_id: projectId,
      debug_id: map.debugId,
      release: map.release,
      url: map.url,
      mappings_gzip: parts.mappings,
      bytes: Buffer.byteLength(map.text),
      created_ms: now,
    })
    .execute();
  for (let from = 0; from < parts.sources.length; from += SOURCE_BATCH) {
    await tx
      .insertInto('sourcemap_sources')
      .values(parts.sources.slice(from, from + SOURCE_BATCH).map((source) => ({ map_id: id, ...source })))
      .execute();
  }
}

async function compressedParts(text: string): Promise<CompressedParts> {
  const { index, contents } = splitSources(text);
  const sources = await Promise.all(
    contents.map(async (content, idx) =>
      typeof content === 'string' ? { idx, content_gzip: await gzipAsync(content) } : undefined,
    ),
  );
  return { mappings: await gzipAsync(index), sources: sources.filter((s) => s !== undefined) };
}

export async function findByDebugId(
  db: Kysely<Database>,
  projectId: string,
  debugId: string,
): Promise<MapRef | undefined> {
  return db
    .selectFrom('sourcemaps')
    .select('id')
    .where('project_id', '=', projectId)
    .where('debug_id', '=', debugId)
    .executeTakeFirst();
}

/**
 * The map of `release` stored under the first of `urls` (most preferred first) that has one; the newest on a tie. When
 * the frame's file has a debug ID, a map stored under another ID belongs to other content and is not taken.
 */
export async function findByReleaseUrl(
  db: Kysely<Database>,
  projectId: string,
  release: string,
  urls: readonly string[],
  debugId: string | undefined,
): Promise<MapRef | undefined> {
  let q = db
    .selectFrom('sourcemaps')
    .select(['id', 'url'])
    .where('project_id', '=', projectId)
    .where('url', 'in', urls)
    .where('release', '=', release);
  if (debugId) q = q.where('debug_id', 'is', null);
  const rows = await q.orderBy('created_ms', 'desc').execute();
  for (const url of urls) {
    const row = rows.find((r) => r.url === url);
    if (row) return { id: row.id };
  }
  return undefined;
}

/**
 * A stored map's JSON without its sources (split-map.ts); undefined once it was replaced or deleted. Decompressed on
 * this thread: parsing the result blocks it longer anyway, and a hop to the thread pool costs more than a small
 * source's gunzip when the machine is busy.
 */
export async function readMapIndex(db: Kysely<Database>, id: string): Promise<string | undefined> {
  const row = await db.selectFrom('sourcemaps').select('mappings_gzip').where('id', '=', id).executeTakeFirst();
  return row ? gunzipSync(row.mappings_gzip).toString('utf8') : undefined;
}

/** Thrown when a map was replaced (uploaded again) or deleted between reading its index and one of its sources. */
export class MapReplacedError extends Error {
  constructor(readonly mapId: string) {
    super(`source map ${mapId} was replaced while it was read`);
    this.name = 'MapReplacedError';
  }
}

/**
 * The content of source `idx` of a stored map, or null when the map has none for it. Throws MapReplacedError when the
 * map itself is gone: its sources went with it, which is not the same as a map without sources.
 */
export async function readSourceContent(db: Kysely<Database>, id: string, idx: number): Promise<string | null> {
  const row = await db
    .selectFrom('sourcemap_sources')
    .select('content_gzip')
    .where('map_id', '=', id)
    .where('idx', '=', idx)
    .executeTakeFirst();
  if (row) return gunzipSync(row.content_gzip).toString('utf8');
  const map = await db.selectFrom('sourcemaps').select('id').where('id', '=', id).executeTakeFirst();
  if (!map) throw new MapReplacedError(id);
  return null;
}

export interface ListedMap extends StoredMap {
  id: string;
}

/** A newest-first page of the project's maps (without their text): `limit + 1` rows, for keysetPage. */
export async function listMaps(
  db: Kysely<Database>,
  projectId: string,
  options: { limit: number; after?: { t: number; k: string }; release?: string },
): Promise<ListedMap[]> {
  let q = db
    .selectFrom('sourcemaps')
    .select(['id', 'debug_id', 'release', 'url', 'bytes', 'created_ms'])
    .where('project_id', '=', projectId);
  if (options.release !== undefined) q = q.where('release', '=', options.release);
  const after = options.after;
  if (after)
    q = q.where((eb) =>
      eb.or([eb('created_ms', '<', after.t), eb.and([eb('created_ms', '=', after.t), eb('id', '<', after.k)])]),
    );
  const rows = await q
    .orderBy('created_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    debugId: r.debug_id,
    release: r.release,
    url: r.url,
    bytes: r.bytes,
    uploadedMs: r.created_ms,
  }));
}

/** Deletes the project's map with this debug ID; not_found (naming `debug_id`) when there is none. */
export async function deleteByDebugId(db: Kysely<Database>, projectId: string, debugId: string): Promise<void> {
  const res = await db
    .deleteFrom('sourcemaps')
    .where('project_id', '=', projectId)
    .where('debug_id', '=', debugId)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) {
    throw new DomainError('not_found', 'not_found', `no source map with debug ID ${debugId} in this project`, {
      field: 'debug_id',
    });
  }
}
