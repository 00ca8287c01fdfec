import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { readBody } from '../http/body';
import { parseControlJson } from '../http/json-object';
import type { AppEnv, Services } from '../http/env';
import { ApiError, badRequest } from '../http/errors';
import { createRouter, documentedRoute, errors, jsonAnswer, needs } from '../http/openapi';
import { cursorQuery, limitQuery, pageOf, Time } from '../http/schemas';
import { regroupMapped } from '../issues/merge';
import { iso } from '../shared/time';
import { keysetPage } from '../shared/keyset';
import { readCursor } from '../http/cursor';
import { normalizeDebugId } from './debug-ids';
import { deleteByDebugId, listMaps, storeMaps, type StoredMap } from './store';
import { MAX_MAP_BYTES, MAX_UPLOAD_BYTES, toNewMap, UPLOAD_LIMIT_NAME, type UploadEntry } from './upload-entry';
import { entriesFromForm } from './upload-multipart';
import { entriesFromJson } from './upload-json';

const mapJson = (m: StoredMap) => ({
  debug_id: m.debugId,
  release: m.release,
  url: m.url,
  bytes: m.bytes,
  uploaded_at: iso(m.uploadedMs),
});

const DebugId = z.string().openapi({ format: 'uuid', example: '6a8f1e2c-3b4d-4e5f-8a9b-0c1d2e3f4a5b' });
const StoredMapSchema = z.object({
  debug_id: DebugId.nullable(),
  release: z.string().nullable(),
  url: z.string().nullable(),
  bytes: z.number(),
});
const MapEntry = z.object({
  map: z
    .union([z.record(z.string(), z.unknown()), z.string()])
    .openapi({ description: 'A version 3 source map (plain or with `sections`), or its JSON text' }),
  debug_id: DebugId.optional().openapi({
    description: "Default: the map's own `debugId` (or `debug_id`); must agree with it",
  }),
  url: z
    .string()
    .optional()
    .openapi({ description: "The minified file's URL: `~/assets/x.js` (any origin) or a full URL" }),
  code: z
    .string()
    .optional()
    .openapi({ description: 'The minified file; its `//# debugId=` comment must agree with the map' }),
});
const control = { tags: ['sourcemaps'] };

/** Described from these schemas; read by its own reader (uploadEntries), which bounds the multipart and JSON bodies. */
const uploadRoute = createRoute({
  ...needs('releases.write'),
  ...control,
  method: 'post',
  path: '/',
  summary: 'Upload source maps (stored per project by debug ID, or by release and URL); all or nothing',
  description:
    `Each map at most ${MAX_MAP_BYTES} bytes and each request at most ${MAX_UPLOAD_BYTES} bytes, after decompression (413). ` +
    'Refused with 400 and nothing stored: not JSON, not a version 3 map (`invalid_sourcemap`), a malformed debug ID ' +
    "(`invalid_debug_id`), a file whose `//# debugId=` differs from its map's (`debug_id_mismatch`), a map with neither a " +
    'debug ID nor a release and URL. Uploading a debug ID again replaces its map. Issues that formed without these maps, ' +
    'whose newest error they now place, are merged into the issue of the original frame (`regrouped`; docs/issues.md, "Maps that arrive late").',
  request: {
    body: {
      required: true,
      content: {
        'multipart/form-data': {
          example: { release: '1.4.2', url_prefix: '~/assets/', file: ['app.3f9a1c2b.js', 'app.3f9a1c2b.js.map'] },
          schema: z.object({
            release: z.string().optional(),
            url_prefix: z
              .string()
              .default('~/')
              .openapi({ description: "Prepended to each file's path to make its URL" }),
            file: z.array(z.string().openapi({ format: 'binary' })).openapi({
              description: '`.map` files and their `.js`/`.mjs`/`.cjs` files; filename = the path in the build output',
            }),
          }),
        },
        'application/json': {
          schema: z.object({ release: z.string().optional(), maps: z.array(MapEntry) }),
          example: {
            maps: [
              {
                map: {
                  version: 3,
                  sources: ['src/app.ts'],
                  names: [],
                  mappings: 'AAAA',
                  debugId: '6a8f1e2c-3b4d-4e5f-8a9b-0c1d2e3f4a5b',
                },
              },
            ],
          },
        },
      },
    },
  },
  responses: {
    201: jsonAnswer(
      'Stored',
      z.object({
        stored: z.array(StoredMapSchema),
        regrouped: z
          .array(z.object({ from: z.string(), into: z.string() }))
          .openapi({ description: 'Issues merged into the issue of their original frame: ids `from` → `into`' }),
      }),
    ),
    ...errors(400, 401, 403, 413, 415),
  },
});

const listRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/',
  summary: 'Source maps of the project, newest first (never their content)',
  request: {
    query: z.strictObject({
      release: z.string().optional().openapi({ description: 'Only the maps of this release' }),
      limit: limitQuery(100, 1000),
      cursor: cursorQuery,
    }),
  },
  responses: {
    200: jsonAnswer('A page', pageOf(StoredMapSchema.extend({ uploaded_at: Time }))),
    ...errors(400, 401, 403),
  },
});

const deleteRoute = createRoute({
  ...needs('releases.write'),
  ...control,
  method: 'delete',
  path: '/{debug_id}',
  summary: 'Delete the source map with this debug ID',
  request: {
    params: z.object({ debug_id: DebugId.refine((v) => normalizeDebugId(v) !== null, { message: 'must be a UUID' }) }),
  },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
});

/**
 * Source maps of the key's project (`/control-plane/sourcemaps`, behind the control-key check): upload, list and
 * delete. Maps are never served back: the symbolicator quotes only a frame's context lines (docs/source-maps.md).
 */
export function sourcemapRoutes(services: Services) {
  const app = createRouter();
  documentedRoute(app, uploadRoute, async (c) => {
    // Every map is checked before any is stored: one bad part refuses the whole upload.
    const maps = (await uploadEntries(c)).map(toNewMap);
    const { projectId } = c.get('caller');
    const stored = await storeMaps(services.db, services.clock, projectId, maps);
    const regrouped = await regroupMapped(services, projectId, stored);
    return c.json(
      {
        stored: stored.map(({ debugId, release, url, bytes }) => ({ debug_id: debugId, release, url, bytes })),
        regrouped,
      },
      201,
    );
  });
  return app
    .openapi(listRoute, async (c) => {
      const { limit, release } = c.req.valid('query');
      const cursor = readCursor(c, 'string');
      const rows = await listMaps(services.db, c.get('caller').projectId, {
        limit,
        after: cursor,
        release: release || undefined,
      });
      return c.json(
        keysetPage(rows, limit, mapJson, (m) => ({ t: m.uploadedMs, k: m.id })),
        200,
      );
    })
    .openapi(deleteRoute, async (c) => {
      const debugId = normalizeDebugId(c.req.valid('param').debug_id)!;
      await deleteByDebugId(services.db, c.get('caller').projectId, debugId);
      return c.body(null, 204);
    });
}

async function uploadEntries(c: Context<AppEnv>): Promise<UploadEntry[]> {
  const type = c.req.header('content-type') ?? '';
  const media = type.split(';')[0]!.trim().toLowerCase();
  if (media !== 'application/json' && media !== 'multipart/form-data') {
    throw new ApiError(415, 'unsupported_media_type', 'send the maps as multipart/form-data or application/json', {
      field: 'Content-Type',
    });
  }
  const body = await readBody(c, MAX_UPLOAD_BYTES, UPLOAD_LIMIT_NAME);
  if (media === 'application/json') return entriesFromJson(parseControlJson(body));
  let form: FormData;
  try {
    // The body is read into ordinary memory (never a SharedArrayBuffer), which is what a Response takes.
    form = await new Response(body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': type } }).formData();
  } catch {
    throw badRequest('body is not valid multipart/form-data (check the boundary)', { field: 'Content-Type' });
  }
  return entriesFromForm(form);
}
