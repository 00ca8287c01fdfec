import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../server/src/clock';
import { createKey, createProject, createTenant, listKeys, openDatabase } from '../../server/src/index';
import { childEnv } from '../support/child-env';
import { databaseKinds } from '../support/databases';
import { traceBody } from '../support/otlp';
import { createLastingDatabase, startServerProcess, type ServerProcess } from '../support/server-process';
import type { TempDatabase } from '../support/databases';

const kinds = await databaseKinds();
const CLI = resolve(__dirname, '../../server/dist/cli.js');

interface Project {
  id: string;
  name: string;
  created_at: string;
}
interface NewKey {
  id: string;
  project_id: string;
  scope: string;
  name: string;
  key: string;
}
interface ErrorBody {
  error: { code: string; message: string; details?: { field?: string } };
}

describe.each(kinds)('project management over HTTP, %s', (kind) => {
  let database: TempDatabase;
  let server: ServerProcess;
  let adminKey: string;
  let controlKey: string;
  let ingestKey: string;

  /** The CLI on the server's database, as an operator on its host runs it. */
  const cli = (...args: string[]) => {
    const res = spawnSync(process.execPath, [CLI, ...args, '--database-url', database.url], {
      encoding: 'utf8',
      env: childEnv(),
    });
    expect(res.status, res.stderr).toBe(0);
    return res.stdout;
  };
  const call = async (
    method: string,
    path: string,
    key: string | undefined,
    body?: unknown,
    contentType = 'application/json',
  ) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...(body === undefined ? {} : { 'content-type': contentType }),
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as unknown };
  };
  const projects = async (key = adminKey) =>
    ((await call('GET', '/control-plane/projects', key)).body as { data: Project[] }).data;
  const send = (key: string, name: string) =>
    fetch(`${server.url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify(traceBody([{ name }])),
    });
  const spanNames = async (key: string) => {
    const res = await call('GET', '/control-plane/spans', key);
    expect(res.status).toBe(200);
    return (res.body as { data: { name: string }[] }).data.map((s) => s.name).sort();
  };
  /** The keys and projects the database holds, to show a refused request changed neither. */
  const snapshot = async () => {
    const handle = openDatabase(database.url);
    try {
      return {
        keys: (await listKeys(handle.db)).length,
        projects: (await handle.db.selectFrom('projects').select('id').execute()).length,
      };
    } finally {
      await handle.close();
    }
  };

  beforeAll(async () => {
    database = await createLastingDatabase(kind);
    server = await startServerProcess({ 'database-url': database.url });
    controlKey = server.controlKey!;
    ingestKey = /ingest key:\s+(\S+)/.exec(server.output())![1]!;
    adminKey = /^(svc_admin_\S+)$/m.exec(cli('keys', 'create', '--scope', 'admin'))![1]!;
  });
  afterAll(async () => {
    await server?.stop();
    await database?.drop();
  });

  it('needs an admin key: 401 without a key, 403 naming the admin key to a control key (an ingest key is told what it is), and nothing changes', async () => {
    const before = await snapshot();
    const none = await call('GET', '/control-plane/projects', undefined);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    for (const [key, says] of [
      [controlKey, 'admin key (made with: svc-server keys create --scope admin)'],
      [ingestKey, 'this is an ingest key'],
    ] as const) {
      for (const [method, path, body] of [
        ['GET', '/control-plane/projects', undefined],
        ['POST', '/control-plane/projects', { name: 'sneaky' }],
      ] as const) {
        const res = await call(method, path, key, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect((res.body as ErrorBody).error.code).toBe('forbidden');
        expect((res.body as ErrorBody).error.message).toContain(says);
      }
    }
    expect(await snapshot()).toEqual(before);
  });

  it('creates a project with its app and keys; the keys of each project see only its own data', async () => {
    const created = await call('POST', '/control-plane/projects', adminKey, { name: 'shop' });
    expect(created.status).toBe(201);
    const b = created.body as Project & { app: string; ingest_key: NewKey; control_key: NewKey };
    expect(b).toMatchObject({
      name: 'shop',
      app: 'web-app',
      ingest_key: { scope: 'ingest', project_id: b.id },
      control_key: { scope: 'control', project_id: b.id },
    });
    expect(b.ingest_key.key).toMatch(/^svc_ingest_/);
    expect(b.control_key.key).toMatch(/^svc_control_/);
    expect((await projects()).map((p) => p.name)).toEqual(['default', 'shop']);

    expect((await send(ingestKey, 'from-a')).status).toBe(200);
    expect((await send(b.ingest_key.key, 'from-b')).status).toBe(200);
    expect(await spanNames(controlKey)).toEqual(['from-a']);
    expect(await spanNames(b.control_key.key)).toEqual(['from-b']);

    // More keys for the new project: they act on it, and on it only.
    const moreControl = await call('POST', `/control-plane/projects/${b.id}/keys`, adminKey, {
      scope: 'control',
      name: 'ci',
    });
    expect(moreControl.status).toBe(201);
    expect(moreControl.body).toMatchObject({ project_id: b.id, scope: 'control', name: 'ci', expires_at: null });
    const moreIngest = await call('POST', `/control-plane/projects/${b.id}/keys`, adminKey, { scope: 'ingest' });
    expect(moreIngest.status).toBe(201);
    expect((await send((moreIngest.body as NewKey).key, 'from-b-again')).status).toBe(200);
    expect(await spanNames((moreControl.body as NewKey).key)).toEqual(['from-b', 'from-b-again']);
    expect(await spanNames(controlKey)).toEqual(['from-a']);
  });

  it('a read key views everything its project has and changes nothing; the CLI makes one too', async () => {
    expect((await send(ingestKey, 'seen-by-read')).status).toBe(200);
    const created = await call('POST', `/control-plane/projects/${(await projects())[0]!.id}/keys`, adminKey, {
      scope: 'read',
      name: 'viewer',
    });
    expect(created.status).toBe(201);
    const readKey = (created.body as NewKey).key;
    expect(readKey).toMatch(/^svc_read_/);
    expect(cli('keys', 'create', '--scope', 'read', '--name', 'from-cli', '--project', 'default')).toMatch(
      /svc_read_\S+/,
    );
    expect(await spanNames(readKey)).toContain('seen-by-read');

    const channels = async () => (await call('GET', '/control-plane/notifications/channels', readKey)).body;
    const before = { ...(await snapshot()), channels: await channels() };
    const channel = { type: 'webhook', name: 'ops', config: { url: 'https://hooks.example.com/x' } };
    for (const [method, path, body] of [
      ['POST', '/control-plane/notifications/channels', channel],
      ['POST', '/control-plane/sourcemaps', {}],
      ['DELETE', '/control-plane/sourcemaps/8f1b3c4d-2a5e-4f60-9b7a-1c2d3e4f5a6b', undefined],
    ] as const) {
      const res = await call(method, path, readKey, body);
      expect(res.status, `${method} ${path}`).toBe(403);
      expect((res.body as ErrorBody).error.message).toContain(
        `a read key can only view (GET); ${method} needs a control key`,
      );
    }
    expect({ ...(await snapshot()), channels: await channels() }).toEqual(before);
    // Project management stays an admin key's.
    expect((await call('GET', '/control-plane/projects', readKey)).status).toBe(403);
  });

  it.each([
    [{}, 400, 'name'],
    [{ name: '' }, 400, 'name'],
    [{ name: 42 }, 400, 'name'],
    [{ name: 'x'.repeat(129) }, 400, 'name'],
    [{ name: 'nul\u0000inside' }, 400, 'name'],
    [{ name: ' padded' }, 400, 'name'],
    [{ name: 'fine', owner: 'me' }, 400, 'owner'],
    [{ name: 'default' }, 409, 'name'],
  ])('refuses project %j with %i naming the field, and changes nothing', async (body, status, field) => {
    const before = await snapshot();
    const res = await call('POST', '/control-plane/projects', adminKey, body);
    expect(res.status).toBe(status);
    const { error } = res.body as ErrorBody;
    expect(error.code).toBe(status === 409 ? 'name_taken' : 'invalid_request');
    expect(error.details).toEqual({ field });
    expect(error.message).toContain(field);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a body that is not a JSON object', async () => {
    const before = await snapshot();
    expect(
      (await call('POST', '/control-plane/projects', adminKey, 'name=x', 'application/x-www-form-urlencoded')).status,
    ).toBe(415);
    expect((await call('POST', '/control-plane/projects', adminKey, '{"name":')).status).toBe(400);
    expect((await call('POST', '/control-plane/projects', adminKey, ['shop'])).status).toBe(400);
    expect(await snapshot()).toEqual(before);
  });

  it('refuses bad key requests with the field named, and changes nothing', async () => {
    const [project] = await projects();
    const before = await snapshot();
    const cases: Array<[string, unknown, number, string]> = [
      [project!.id, { scope: 'admin' }, 400, 'scope'],
      [project!.id, { scope: 'owner' }, 400, 'scope'],
      [project!.id, {}, 400, 'scope'],
      [project!.id, { scope: 'ingest', name: 'nul\u0000inside' }, 400, 'name'],
      [project!.id, { scope: 'ingest', expires: 'never' }, 400, 'expires'],
      ['no-such-project', { scope: 'ingest' }, 404, 'id'],
    ];
    for (const [id, body, status, field] of cases) {
      const res = await call('POST', `/control-plane/projects/${id}/keys`, adminKey, body);
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect((res.body as ErrorBody).error.details).toEqual({ field });
    }
    const adminScope = await call('POST', `/control-plane/projects/${project!.id}/keys`, adminKey, { scope: 'admin' });
    expect((adminScope.body as ErrorBody).error.message).toContain('svc-server keys create --scope admin');
    expect(await snapshot()).toEqual(before);
  });

  it('gives one name to one project when clients race for it', async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => call('POST', '/control-plane/projects', adminKey, { name: 'raced' })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect((await projects()).filter((p) => p.name === 'raced')).toHaveLength(1);
  });

  it("another tenant's admin key sees and touches only its own tenant", async () => {
    const handle = openDatabase(database.url);
    let otherAdmin: string;
    try {
      const tenantId = await createTenant(handle.db, systemClock, 'other');
      const projectId = await createProject(handle.db, systemClock, tenantId, 'elsewhere');
      otherAdmin = (await createKey(handle.db, systemClock, { projectId, scope: 'admin' })).key;
    } finally {
      await handle.close();
    }
    expect((await projects(otherAdmin)).map((p) => p.name)).toEqual(['elsewhere']);
    const [first] = await projects();
    const foreign = await call('POST', `/control-plane/projects/${first!.id}/keys`, otherAdmin, { scope: 'control' });
    expect(foreign.status).toBe(404);
    // Names are unique per tenant: this tenant may have its own "default".
    expect((await call('POST', '/control-plane/projects', otherAdmin, { name: 'default' })).status).toBe(201);
    expect((await projects()).map((p) => p.name)).toEqual(['default', 'shop', 'raced']);
  });

  it('answers other paths under /control-plane/projects with the 404 error, and refuses a revoked admin key', async () => {
    const other = await call('GET', '/control-plane/projects/anything', adminKey);
    expect(other.status).toBe(404);
    expect((other.body as ErrorBody).error.code).toBe('not_found');

    const [header, revoked] = cli('keys', 'create', '--scope', 'admin', '--tenant', 'default').split('\n');
    cli('keys', 'revoke', /^created admin key (\S+)/.exec(header!)![1]!);
    const res = await call('GET', '/control-plane/projects', revoked!);
    expect(res.status).toBe(403);
    expect((res.body as ErrorBody).error.message).toBe('API key has been revoked');
  });

  it('an admin key acts on the project X-Svc-Project names, in its tenant only, and /me lists the projects it may switch to', async () => {
    const inProject = async (method: string, path: string, key: string, project?: string, body?: unknown) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(project ? { 'x-svc-project': project } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const names = (body: Record<string, unknown>) => (body.data as Array<{ name: string }>).map((d) => d.name).sort();
    const [first, shop] = await projects();
    const shopIngest = (
      (await call('POST', `/control-plane/projects/${shop!.id}/keys`, adminKey, { scope: 'ingest' })).body as NewKey
    ).key;
    expect((await send(shopIngest, 'admin-sees-shop')).status).toBe(200);

    // No header: the tenant's oldest project; the header: the project it names.
    expect(names((await inProject('GET', '/control-plane/spans', adminKey)).body)).toEqual(await spanNames(controlKey));
    expect(names((await inProject('GET', '/control-plane/spans', adminKey, shop!.id)).body)).toContain(
      'admin-sees-shop',
    );
    expect(names((await inProject('GET', '/control-plane/spans', adminKey, first!.id)).body)).not.toContain(
      'admin-sees-shop',
    );
    const me = (await inProject('GET', '/control-plane/me', adminKey, shop!.id)).body;
    expect(me).toMatchObject({
      project: { id: shop!.id, name: 'shop' },
      tenant: { name: 'default' },
      key: { scope: 'admin' },
    });
    expect((me.projects as Project[]).map((p) => p.name)).toEqual((await projects()).map((p) => p.name));
    // It changes what a control key may, in the project named.
    const channel = { type: 'webhook', name: 'from-admin', config: { url: 'https://hooks.example.com/admin' } };
    expect((await inProject('POST', '/control-plane/notifications/channels', adminKey, shop!.id, channel)).status).toBe(
      201,
    );
    expect(
      names(await inProject('GET', '/control-plane/notifications/channels', adminKey, shop!.id).then((r) => r.body)),
    ).toEqual(['from-admin']);
    expect(
      names((await call('GET', '/control-plane/notifications/channels', controlKey)).body as Record<string, unknown>),
    ).not.toContain('from-admin');

    // Another tenant's project, or none, is a 404 naming the header; a project key may name only its own project.
    const handle = openDatabase(database.url);
    const elsewhere = await handle.db
      .selectFrom('projects')
      .select('id')
      .where('name', '=', 'elsewhere')
      .executeTakeFirstOrThrow()
      .finally(() => handle.close());
    for (const project of [elsewhere.id, 'no-such-project']) {
      const res = await inProject('GET', '/control-plane/spans', adminKey, project);
      expect(res.status).toBe(404);
      expect((res.body as unknown as ErrorBody).error.details).toEqual({ field: 'X-Svc-Project' });
    }
    expect((await inProject('GET', '/control-plane/spans', controlKey, shop!.id)).status).toBe(403);
    expect((await inProject('GET', '/control-plane/spans', controlKey, first!.id)).status).toBe(200);
  });

  it("GET /setup: the project's ingest key to a read key too (never a control key), its apps, and its first data once it arrives", async () => {
    const created = (await call('POST', '/control-plane/projects', adminKey, { name: 'setup-demo' }))
      .body as Project & { ingest_key: NewKey; control_key: NewKey };
    const readKey = (
      (await call('POST', `/control-plane/projects/${created.id}/keys`, adminKey, { scope: 'read' })).body as NewKey
    ).key;
    type Setup = {
      project: Project;
      ingest_url: string;
      ingest_keys: Array<{ key: string | null; name: string; display_prefix: string }>;
      apps: unknown;
      first_data: unknown;
    };
    const setup = async () => {
      const res = await call('GET', '/control-plane/setup', readKey);
      expect(res.status).toBe(200);
      return res.body as Setup;
    };
    const empty = await setup();
    expect(empty).toMatchObject({
      project: { id: created.id, name: 'setup-demo' },
      ingest_url: server.url,
      apps: [{ name: 'web-app', aliases: [] }],
      first_data: null,
    });
    expect(empty.ingest_keys).toEqual([
      {
        id: created.ingest_key.id,
        name: 'default ingest key',
        display_prefix: created.ingest_key.key.slice(0, 17),
        key: created.ingest_key.key,
        created_at: expect.any(String),
        expires_at: null,
      },
    ]);
    expect(JSON.stringify(empty)).not.toContain(created.control_key.key);
    expect(JSON.stringify(empty)).not.toContain(readKey);

    const first = await fetch(`${server.url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': created.ingest_key.key },
      body: JSON.stringify(traceBody([{ name: 'first', sessionId: 'the-first-session' }])),
    });
    expect(first.status).toBe(200);
    expect((await setup()).first_data).toEqual({
      received_at: expect.any(String),
      session: { session_id: 'the-first-session', app: 'web-app' },
    });
  });
});
