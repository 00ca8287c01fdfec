import { Hono, type Context } from 'hono';
import type { AppEnv, Services } from '../http/env';
import { parseJson, readBody } from '../http/body';
import { ApiError, badRequest } from '../http/errors';
import { checkParams, iso, keysetPage, readCursor, readLimit } from '../query/params';
import { normalizeDebugId } from './debug-ids';
import { deleteByDebugId, listMaps, storeMaps, type StoredMap } from './store';
import { MAX_UPLOAD_BYTES, toNewMap, UPLOAD_LIMIT_NAME, type UploadEntry } from './upload-entry';
import { entriesFromForm } from './upload-multipart';
import { entriesFromJson } from './upload-json';

const mapJson = (m: StoredMap) => ({ debug_id: m.debugId, release: m.release, url: m.url, bytes: m.bytes, uploaded_at: iso(m.uploadedMs) });

/**
 * Source maps of the key's project (`/control-plane/sourcemaps`, behind the control-key check): upload, list and
 * delete. Maps are never served back: the symbolicator quotes only a frame's context lines (docs/source-maps.md).
 */
export function sourcemapRoutes(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.post('/', async (c) => {
    // Every map is checked before any is stored: one bad part refuses the whole upload.
    const maps = (await uploadEntries(c)).map(toNewMap);
    const stored = await storeMaps(services.db, services.clock, c.get('caller').projectId, maps);
    return c.json({ stored: stored.map(({ debugId, release, url, bytes }) => ({ debug_id: debugId, release, url, bytes })) }, 201);
  });

  app.get('/', async (c) => {
    checkParams(c, ['release', 'limit', 'cursor']);
    const limit = readLimit(c, 100, 1000);
    const cursor = readCursor(c, 'string');
    const release = c.req.query('release') || undefined;
    const rows = await listMaps(services.db, c.get('caller').projectId, { limit, after: cursor, release });
    return c.json(keysetPage(rows, limit, mapJson, (m) => ({ t: m.uploadedMs, k: m.id })));
  });

  app.delete('/:debug_id', async (c) => {
    const raw = c.req.param('debug_id');
    const debugId = normalizeDebugId(raw);
    if (!debugId) throw badRequest('debug_id must be a UUID', { field: 'debug_id' });
    if (!(await deleteByDebugId(services.db, c.get('caller').projectId, debugId))) {
      throw new ApiError(404, 'not_found', `no source map with debug ID ${debugId} in this project`, { field: 'debug_id' });
    }
    return c.body(null, 204);
  });
  return app;
}

async function uploadEntries(c: Context<AppEnv>): Promise<UploadEntry[]> {
  const type = c.req.header('content-type') ?? '';
  const media = type.split(';')[0]!.trim().toLowerCase();
  if (media !== 'application/json' && media !== 'multipart/form-data') {
    throw new ApiError(415, 'unsupported_media_type', 'send the maps as multipart/form-data or application/json', { field: 'Content-Type' });
  }
  const body = await readBody(c, MAX_UPLOAD_BYTES, UPLOAD_LIMIT_NAME);
  if (media === 'application/json') return entriesFromJson(parseJson(body));
  let form: FormData;
  try {
    // The body is read into ordinary memory (never a SharedArrayBuffer), which is what a Response takes.
    form = await new Response(body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch {
    throw badRequest('body is not valid multipart/form-data (check the boundary)', { field: 'Content-Type' });
  }
  return entriesFromForm(form);
}
