import { control, created, errorRefs, json, num, obj, ok, param, str, strOrNull, time, type Schema } from './openapi-parts';
import { MAX_MAP_BYTES, MAX_UPLOAD_BYTES } from './sourcemaps/upload-entry';

/** OpenAPI paths of the source map store (docs/source-maps.md gives the pairing rules and examples). */
const debugId: Schema = { type: 'string', format: 'uuid' };
const StoredMap = obj({ debug_id: { ...debugId, type: ['string', 'null'] }, release: strOrNull, url: strOrNull, bytes: num }, ['debug_id', 'release', 'url', 'bytes']);
const ListedMap = obj({ ...(StoredMap.properties as Record<string, Schema>), uploaded_at: time });
const MapEntry = obj(
  {
    map: { oneOf: [{ type: 'object', description: 'A version 3 source map (plain or with `sections`)' }, { type: 'string', description: 'Its JSON text' }] },
    debug_id: { ...debugId, description: "Default: the map's own `debugId` (or `debug_id`); must agree with it" },
    url: { ...str, description: 'The minified file\'s URL: `~/assets/x.js` (any origin) or a full URL' },
    code: { ...str, description: 'The minified file; its `//# debugId=` comment must agree with the map' },
  },
  ['map'],
);

export const SOURCEMAP_PATHS: Record<string, unknown> = {
  '/control-plane/sourcemaps': {
    post: control(
      'Upload source maps (stored per project by debug ID, or by release and URL); all or nothing',
      {
        ...created(obj({ stored: { type: 'array', items: StoredMap } }, ['stored'])),
        '413': { description: 'A map or the request exceeds the upload limits; nothing stored', content: json({ $ref: '#/components/schemas/Error' }) },
        ...errorRefs(415),
      },
      {
        description:
          `Each map at most ${MAX_MAP_BYTES} bytes and each request at most ${MAX_UPLOAD_BYTES} bytes, after decompression (413). ` +
          'Refused with 400 and nothing stored: not JSON, not a version 3 map (`invalid_sourcemap`), a malformed debug ID ' +
          '(`invalid_debug_id`), a file whose `//# debugId=` differs from its map\'s (`debug_id_mismatch`), a map with neither a ' +
          'debug ID nor a release and URL. Uploading a debug ID again replaces its map.',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: obj({
                release: str,
                url_prefix: { ...str, default: '~/', description: 'Prepended to each file\'s path to make its URL' },
                file: { type: 'array', items: { type: 'string', format: 'binary' }, description: '`.map` files and their `.js`/`.mjs`/`.cjs` files; filename = the path in the build output' },
              }),
            },
            ...json(obj({ release: str, maps: { type: 'array', items: MapEntry } }, ['maps'])),
          },
        },
      },
    ),
    get: control('Source maps of the project, newest first (never their content)', ok('A page', obj({ data: { type: 'array', items: ListedMap }, next_cursor: strOrNull }, ['data', 'next_cursor'])), {
      parameters: [
        param('release', 'query', 'Only the maps of this release'),
        param('limit', 'query', 'Page size', { type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
        param('cursor', 'query', '`next_cursor` of the previous page'),
      ],
    }),
  },
  '/control-plane/sourcemaps/{debug_id}': {
    delete: control('Delete the source map with this debug ID', { '204': { description: 'Deleted' }, ...errorRefs(404) }, {
      parameters: [param('debug_id', 'path', 'Debug ID of the map', debugId)],
    }),
  },
};
