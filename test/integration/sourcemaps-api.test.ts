import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds, type TempDatabase } from '../support/databases';
import { createLastingDatabase, startServerProcess, type ServerProcess } from '../support/server-process';

const kinds = await databaseKinds();

interface Listed {
  debug_id: string | null;
  release: string | null;
  url: string | null;
  bytes: number;
  uploaded_at: string;
}
interface ErrorBody {
  error: { code: string; message: string; details?: { field?: string } };
}

const ID_A = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const ID_B = '1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e';
const ID_C = '2c3d4e5f-6a7b-4c8d-ae9f-1a2b3c4d5e6f';

const sourceMap = (extra: Record<string, unknown> = {}) => ({
  version: 3,
  file: 'index.js',
  sources: ['../src/main.ts'],
  sourcesContent: ['export const main = () => 1;\n'],
  names: [],
  mappings: 'AAAA,aAAa',
  ...extra,
});
const minified = (id: string | null, mapName = 'index-abc.js.map') =>
  `console.log(1);\n${id ? `//# debugId=${id}\n` : ''}//# sourceMappingURL=${mapName}\n`;

describe.each(kinds)('source map API, %s', (kind) => {
  let database: TempDatabase;
  let server: ServerProcess;
  let controlKey: string;
  let ingestKey: string;

  const upload = async (body: BodyInit, headers: Record<string, string> = {}, key = controlKey) => {
    const res = await fetch(`${server.url}/control-plane/sourcemaps`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const uploadJson = (body: unknown, key?: string) =>
    upload(JSON.stringify(body), { 'content-type': 'application/json' }, key);
  const form = (parts: Array<[string, string] | [string, string, string]>) => {
    const data = new FormData();
    for (const [name, value, filename] of parts) {
      if (filename === undefined) data.append(name, value);
      else data.append(name, new Blob([value]), filename);
    }
    return data;
  };
  const list = async (query = '') => {
    const res = await fetch(`${server.url}/control-plane/sourcemaps${query}`, {
      headers: { authorization: `Bearer ${controlKey}` },
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { data: Listed[]; next_cursor: string | null };
  };
  const remove = (id: string) =>
    fetch(`${server.url}/control-plane/sourcemaps/${id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${controlKey}` },
    });
  /** A refused upload answers `status` with `code` naming `field`, and leaves the stored maps as they were. */
  const refused = async (
    attempt: Promise<{ status: number; body: unknown }>,
    status: number,
    code: string,
    field?: string,
  ) => {
    const before = await list();
    const res = await attempt;
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    const error = (res.body as ErrorBody).error;
    expect(error.code).toBe(code);
    if (field !== undefined) expect(error.details?.field).toBe(field);
    expect(await list()).toEqual(before);
  };

  beforeAll(async () => {
    database = await createLastingDatabase(kind);
    server = await startServerProcess({ 'database-url': database.url });
    controlKey = server.controlKey!;
    ingestKey = server.ingestKey!;
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('stores a JSON upload by debug ID and by release and URL, and replaces a map uploaded again', async () => {
    const text = JSON.stringify(sourceMap({ debugId: ID_A.toUpperCase() }));
    const first = await uploadJson({
      release: 'shop@1.0.0',
      maps: [
        { map: text, url: '~/assets/a.js' },
        { map: sourceMap(), url: 'https://cdn.example/b.js' },
      ],
    });
    expect(first).toEqual({
      status: 201,
      body: {
        stored: [
          { debug_id: ID_A, release: 'shop@1.0.0', url: '~/assets/a.js', bytes: Buffer.byteLength(text) },
          {
            debug_id: null,
            release: 'shop@1.0.0',
            url: 'https://cdn.example/b.js',
            bytes: JSON.stringify(sourceMap()).length,
          },
        ],
        // No issue of the project formed without these maps (issues-api.test.ts merges one).
        regrouped: [],
      },
    });
    const again = await uploadJson({ maps: [{ map: sourceMap(), debug_id: ID_A, code: minified(ID_A) }] });
    expect(again.status).toBe(201);
    const { data } = await list();
    expect(data.map((m) => [m.debug_id, m.release, m.url])).toEqual(
      expect.arrayContaining([
        [ID_A, null, null],
        [null, 'shop@1.0.0', 'https://cdn.example/b.js'],
      ]),
    );
    expect(data).toHaveLength(2);
    expect(Date.parse(data[0]!.uploaded_at)).toBeGreaterThan(0);
  });

  it('keeps one map when the same debug ID is uploaded by several requests at once', async () => {
    const id = '3d4e5f6a-7b8c-4d9e-8f0a-2b3c4d5e6f70';
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => uploadJson({ maps: [{ map: sourceMap({ debugId: id }) }] })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
    expect((await list()).data.filter((m) => m.debug_id === id)).toHaveLength(1);
    expect((await remove(id)).status).toBe(204);
  });

  it('stores a multipart upload, pairing each map with its minified file for its URL and debug ID', async () => {
    const res = await upload(
      form([
        ['release', 'shop@2.0.0'],
        ['url_prefix', '~/static/'],
        ['file', JSON.stringify(sourceMap({ debugId: ID_B })), 'assets/index-abc.js.map'],
        ['file', minified(ID_B), 'assets/index-abc.js'],
        ['file', JSON.stringify(sourceMap()), 'assets/vendor-def.js.map'],
        ['file', minified(ID_C, 'maps/chunk.map'), 'assets/chunk-123.mjs'],
        ['file', JSON.stringify(sourceMap()), 'assets/maps/chunk.map'],
      ]),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((res.body as { stored: unknown[] }).stored).toEqual([
      { debug_id: ID_B, release: 'shop@2.0.0', url: '~/static/assets/index-abc.js', bytes: expect.any(Number) },
      { debug_id: null, release: 'shop@2.0.0', url: '~/static/assets/vendor-def.js', bytes: expect.any(Number) },
      // The map has no id of its own: it takes its file's.
      { debug_id: ID_C, release: 'shop@2.0.0', url: '~/static/assets/chunk-123.mjs', bytes: expect.any(Number) },
    ]);
  });

  it('refuses each bad upload with a clear 4xx and stores nothing', async () => {
    const good = { map: sourceMap({ debugId: ID_C }) };
    await refused(uploadJson({ maps: [good] }, ingestKey), 403, 'forbidden');
    await refused(upload('{"maps": [', { 'content-type': 'application/json' }), 400, 'invalid_request');
    await refused(upload('x', { 'content-type': 'text/plain' }), 415, 'unsupported_media_type', 'Content-Type');
    await refused(
      uploadJson({ maps: [good, { map: '{not json', debug_id: ID_A }] }),
      400,
      'invalid_sourcemap',
      'maps[1].map',
    );
    await refused(
      uploadJson({ maps: [{ map: sourceMap({ version: 2, debugId: ID_A }) }] }),
      400,
      'invalid_sourcemap',
      'maps[0].map',
    );
    await refused(
      uploadJson({ maps: [{ map: sourceMap({ mappings: 42, debugId: ID_A }) }] }),
      400,
      'invalid_sourcemap',
      'maps[0].map',
    );
    await refused(
      uploadJson({
        maps: [{ map: { version: 3, sections: [{ offset: { line: 0, column: 0 }, url: 'x.map' }], debugId: ID_A } }],
      }),
      400,
      'invalid_sourcemap',
    );
    await refused(
      uploadJson({ maps: [{ map: sourceMap({ debugId: 'not-a-uuid' }) }] }),
      400,
      'invalid_debug_id',
      'maps[0].map',
    );
    await refused(
      uploadJson({ maps: [{ map: sourceMap({ debugId: ID_A }), debug_id: ID_B }] }),
      400,
      'debug_id_mismatch',
      'maps[0].map debug_id',
    );
    await refused(
      uploadJson({ maps: [{ map: sourceMap({ debugId: ID_A }), code: minified(ID_B) }] }),
      400,
      'debug_id_mismatch',
      'maps[0].code',
    );
    await refused(
      uploadJson({ release: '1.0', maps: [good, { map: sourceMap() }] }),
      400,
      'invalid_request',
      'maps[1].map',
    );
    await refused(uploadJson({ maps: [{ map: sourceMap(), url: '~/a.js' }] }), 400, 'invalid_request', 'maps[0].map');
    await refused(
      upload(
        form([
          ['file', JSON.stringify(sourceMap({ debugId: ID_A })), 'a.js.map'],
          ['file', minified(ID_B, 'a.js.map'), 'a.js'],
        ]),
      ),
      400,
      'debug_id_mismatch',
      'file[a.js]',
    );
    await refused(upload(form([['file', 'not json', 'a.js.map']])), 400, 'invalid_sourcemap', 'file[a.js.map]');
    await refused(
      upload(form([['file', JSON.stringify(sourceMap()), 'a.js.map']])),
      400,
      'invalid_request',
      'file[a.js.map]',
    );
    await refused(upload(form([['file', 'body {}', 'a.css']])), 400, 'invalid_request', 'file[a.css]');
    await refused(
      upload(form([['file', JSON.stringify(sourceMap({ debugId: ID_A }))]])),
      400,
      'invalid_request',
      'file',
    );
    await refused(upload(form([['release', '1.0']])), 400, 'invalid_request', 'file');
  });

  it('refuses a map over the per-map cap and a request over the per-request cap (413)', async () => {
    const huge = JSON.stringify(sourceMap({ debugId: ID_A, sourcesContent: ['x'.repeat(32 * 1024 * 1024)] }));
    await refused(upload(form([['file', huge, 'big.js.map']])), 413, 'payload_too_large', 'file[big.js.map]');
    await refused(uploadJson({ maps: [{ map: huge }] }), 413, 'payload_too_large', 'maps[0].map');
    const bomb = gzipSync(Buffer.alloc(65 * 1024 * 1024, ' '));
    await refused(
      upload(bomb, { 'content-type': 'application/json', 'content-encoding': 'gzip' }),
      413,
      'payload_too_large',
    );
  });

  it('lists page by page and deletes by debug ID', async () => {
    const first = await list('?limit=1');
    expect(first.data).toHaveLength(1);
    const second = await list(`?limit=1&cursor=${first.next_cursor}`);
    expect(second.data[0]!.uploaded_at <= first.data[0]!.uploaded_at).toBe(true);
    expect(second.data[0]).not.toEqual(first.data[0]);
    expect((await list('?release=shop@2.0.0')).data).toHaveLength(3);

    expect((await remove(ID_B.toUpperCase())).status).toBe(204);
    expect((await list()).data.map((m) => m.debug_id)).not.toContain(ID_B);
    const again = await remove(ID_B);
    expect([again.status, ((await again.json()) as ErrorBody).error.code]).toEqual([404, 'not_found']);
    expect((await remove('nope')).status).toBe(400);
  });
});
