import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_PERMISSIONS, ROLES, SCOPE_PERMISSIONS, type Permission, type Role } from '../../server/src/auth/roles';
import { systemClock } from '../../server/src/clock';
import { PROJECT_HEADER } from '../../server/src/http/auth';
import { createKey, createProject } from '../../server/src/index';
import { controlOperations, operationName, type ControlOperation } from '../support/control-operations';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import { errorLog } from '../support/error-logs';
import { createPerson, sessionHeaders, signInAs } from '../support/people';
import { inPermissionOrder, operationsByPermission, permissionsDoc } from '../support/permissions-doc';
import { startTestServer, type TestServer } from '../support/server';
import { changedTables, snapshotTables } from '../support/table-snapshot';

/**
 * The proof of issue 31's roles: every control-plane operation of the served OpenAPI document declares the permission
 * it needs, and every operation is tried by every role (a console session, with the same-origin proof a console page
 * sends) and every key scope. What the role or scope lacks (auth/roles.ts) is refused with a 403 and changes no table;
 * what it has is not refused (whatever the operation then answers: 2xx, 400, 404, 409…). On SQLite and PostgreSQL.
 */

const kinds = await databaseKinds();
const DUMMY_ID = '00000000-0000-4000-8000-000000000000';

/** Objects the requests name in their paths, by the path segment before the parameter (`/issues/{id}`: `issues`). */
type Seeded = Record<string, string>;

/**
 * Bodies other than the operation's documented example: ids of this server's objects, or an invalid body where a valid
 * one would reach outside (a cost connection's first sync calls the cloud at once).
 */
const BODIES: Record<string, (s: Seeded) => unknown> = {
  'POST /control-plane/notifications/rules': (s) => ({ name: 'matrix rule', channels: [s.channels] }),
  'PATCH /control-plane/notifications/rules/{id}': (s) => ({ channels: [s.channels] }),
  'PUT /control-plane/notifications/rules/order': (s) => ({ ids: [s.rules] }),
  'PATCH /control-plane/issues': (s) => ({ ids: [s.issues], status: 'ignored' }),
  'POST /control-plane/cost/providers': () => ({}),
};

/**
 * Operations whose handler asks more than the declared permission for the request the matrix makes. Removing a
 * membership declares `project.view` because anyone may leave; removing someone else's (as here) needs
 * `members.manage`, which the handler checks.
 */
const NEEDED: Record<string, Permission> = {
  'DELETE /control-plane/members/{user_id}': 'members.manage',
};
const neededFor = (op: ControlOperation) => NEEDED[operationName(op)] ?? op.permission;

/** A role's session or a key's scope, with the headers its requests carry. */
interface MatrixActor {
  label: string;
  permissions: readonly Permission[];
  headers: Record<string, string>;
}

interface World {
  t: TestServer;
  tenantId: string;
  projectB: string;
  seeded: Seeded;
  actors: MatrixActor[];
}

const fillPath = (path: string, seeded: Seeded) =>
  path.replace(
    /\/([^/{]+)\/\{[^}]+\}/g,
    (_, segment: string) => `/${segment}/${encodeURIComponent(seeded[segment] ?? DUMMY_ID)}`,
  );

async function send(world: World, op: ControlOperation, actor: MatrixActor) {
  const name = operationName(op);
  const hasBody = op.method !== 'GET' && op.method !== 'DELETE';
  const body = BODIES[name]?.(world.seeded) ?? op.example ?? {};
  const res = await fetch(`${world.t.url}${fillPath(op.path, world.seeded)}`, {
    method: op.method,
    headers: { ...actor.headers, ...(hasBody && { 'content-type': 'application/json' }) },
    body: hasBody ? JSON.stringify(body) : undefined,
    redirect: 'manual',
  });
  const text = await res.text();
  const code = /"code":"([^"]+)"/.exec(text)?.[1];
  return { status: res.status, code, text: text.slice(0, 300) };
}

/** A control-plane call with a key, for seeding; the answer's `id`. */
async function seed(t: TestServer, path: string, body: unknown): Promise<string> {
  const res = await fetch(`${t.url}/control-plane${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.controlKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { id?: string };
  if (res.status !== 201 || !answer.id) throw new Error(`seeding ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer.id;
}

/**
 * An issue and an incident first (no rule yet, so nothing is queued for delivery while the refusals are checked),
 * then a channel and a rule; a person and a key that allowed requests may remove.
 */
async function seedObjects(t: TestServer, tenantId: string): Promise<Seeded> {
  const { db } = t.server.database;
  const logs = await fetch(`${t.url}/otlp/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': t.ingestKey },
    body: JSON.stringify(errorLog({ atMs: Date.now() - 5000, sessionId: 'matrix-session' })),
  });
  if (logs.status !== 200) throw new Error(`ingest: ${logs.status} ${await logs.text()}`);
  await issueDetector(t, systemClock).runOnce();
  const listed = await fetch(`${t.url}/control-plane/issues`, { headers: { authorization: `Bearer ${t.controlKey}` } });
  const issue = ((await listed.json()) as { data: Array<{ id: string }> }).data[0];
  if (!issue) throw new Error('seeding: the error log made no issue');
  const incident = await seed(t, '/incidents', { title: 'matrix', severity: 'low' });
  const channel = await seed(t, '/notifications/channels', {
    type: 'webhook',
    name: 'matrix',
    config: { url: 'https://hooks.example.com/svc' },
  });
  const rule = await seed(t, '/notifications/rules', { name: 'matrix', channels: [channel] });
  const target = await createPerson(db, { tenantId, email: 'target@example.com', name: 'Target', role: 'member' });
  const key = await createKey(db, systemClock, { projectId: t.projectId, scope: 'read', name: 'disposable' });
  return {
    issues: issue.id,
    incidents: incident,
    channels: channel,
    notifications: channel,
    rules: rule,
    apps: t.appName,
    integrations: 'telephony',
    projects: t.projectId,
    members: target.id,
    keys: key.id,
    'test-runs': 'matrix-run',
  };
}

async function actorsOf(t: TestServer, tenantId: string): Promise<MatrixActor[]> {
  const { db } = t.server.database;
  const project = { [PROJECT_HEADER]: t.projectId };
  const people = await Promise.all(
    ROLES.map(async (role: Role): Promise<MatrixActor> => {
      const person = await createPerson(db, { tenantId, email: `${role}@example.com`, name: role, role });
      const session = await signInAs(db, systemClock, person);
      const headers = { ...sessionHeaders(session, t.url), ...project };
      return { label: `${role} (session)`, permissions: ROLE_PERMISSIONS[role], headers };
    }),
  );
  const keys = await Promise.all(
    (['read', 'control', 'admin'] as const).map(async (scope): Promise<MatrixActor> => {
      const { key } = await createKey(db, systemClock, { projectId: t.projectId, scope, name: `matrix ${scope}` });
      const headers = { authorization: `Bearer ${key}`, ...project };
      return { label: `${scope} key`, permissions: SCOPE_PERMISSIONS[scope], headers };
    }),
  );
  const ingest = { authorization: `Bearer ${t.ingestKey}`, ...project };
  return [...people, ...keys, { label: 'ingest key', permissions: SCOPE_PERMISSIONS.ingest, headers: ingest }];
}

describe.each(kinds)('permission matrix on %s', (kind) => {
  let world: World;
  let operations: ControlOperation[];
  const cases = (allowed: boolean) =>
    operations.flatMap((op) =>
      world.actors
        .filter((actor) => {
          const needed = neededFor(op);
          return (needed !== undefined && actor.permissions.includes(needed)) === allowed;
        })
        .map((actor) => ({ op, actor })),
    );

  beforeAll(async () => {
    const t = await startTestServer(kind, { detection: false, secretKey: 'm'.repeat(40), outbox: { pollMs: 60_000 } });
    const tenantId = t.server.bootstrap!.tenantId;
    const projectB = await createProject(t.server.database.db, systemClock, tenantId, 'matrix-b');
    world = { t, tenantId, projectB, seeded: await seedObjects(t, tenantId), actors: await actorsOf(t, tenantId) };
    operations = await controlOperations(t.url);
  });
  afterAll(async () => world?.t.close());

  it('every control-plane operation declares the permission it needs (x-svc-permission)', () => {
    expect(operations.length).toBeGreaterThan(50);
    const undeclared = operations.filter((op) => op.permission === undefined).map(operationName);
    expect(undeclared, 'operations without a known x-svc-permission').toEqual([]);
  });

  it('refuses what a role or key scope lacks with 403 forbidden, and changes no table', async () => {
    const { database } = world.t.server;
    let baseline = await snapshotTables(database);
    const problems: string[] = [];
    const refused = cases(false);
    for (const { op, actor } of refused) {
      const res = await send(world, op, actor);
      const what = `${actor.label} ${operationName(op)}`;
      if (res.status !== 403 || res.code !== 'forbidden') problems.push(`${what}: ${res.status} ${res.text}`);
      const after = await snapshotTables(database);
      const changed = changedTables(baseline, after);
      if (changed.length > 0) problems.push(`${what} changed ${changed.join(', ')}`);
      baseline = after;
    }
    expect(problems).toEqual([]);
    // The ingest key alone is refused every operation.
    expect(refused.length).toBeGreaterThan(operations.length);
  }, 300_000);

  it('does not refuse what a role or key scope has (any answer but 401 and 403)', async () => {
    const allowed = cases(true);
    // Removals last, so the other operations find the objects they name.
    const ordered = [
      ...allowed.filter((c) => c.op.method !== 'DELETE'),
      ...allowed.filter((c) => c.op.method === 'DELETE'),
    ];
    const problems: string[] = [];
    for (const { op, actor } of ordered) {
      const res = await send(world, op, actor);
      if (res.status === 401 || res.status === 403)
        problems.push(`${actor.label} ${operationName(op)}: ${res.status} ${res.text}`);
    }
    expect(problems).toEqual([]);
    expect(allowed.length).toBeGreaterThan(operations.length);
  }, 300_000);

  it('a member limited to project A gets 404 naming X-Svc-Project for project B', async () => {
    const { t, tenantId, projectB } = world;
    const { db } = t.server.database;
    const limited = await createPerson(db, {
      tenantId,
      email: 'limited@example.com',
      name: 'Limited',
      role: 'member',
      projects: [t.projectId],
    });
    const session = await signInAs(db, systemClock, limited);
    const issues = (project: string) =>
      fetch(`${t.url}/control-plane/issues`, {
        headers: { ...sessionHeaders(session, t.url), [PROJECT_HEADER]: project },
      });
    const other = await issues(projectB);
    const body = (await other.json()) as { error: { code: string; message: string; details?: { field?: string } } };
    expect([other.status, body.error.code, body.error.details?.field]).toEqual([404, 'not_found', 'X-Svc-Project']);
    expect(body.error.message).toContain(projectB);
    expect((await issues(t.projectId)).status).toBe(200);
  });

  it('an admin limited to project A neither lists, makes keys for, nor creates other projects', async () => {
    const { t, tenantId, projectB } = world;
    const { db } = t.server.database;
    const admin = await createPerson(db, {
      tenantId,
      email: 'limited-admin@example.com',
      name: 'Limited admin',
      role: 'admin',
      projects: [t.projectId],
    });
    const session = await signInAs(db, systemClock, admin);
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${t.url}/control-plane${path}`, {
        method,
        headers: { ...sessionHeaders(session, t.url), 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const before = await snapshotTables(t.server.database);
    const listed = (await (await call('GET', '/projects')).json()) as { data: Array<{ id: string }> };
    expect(listed.data.map((p) => p.id)).toEqual([t.projectId]);
    expect((await call('POST', `/projects/${projectB}/keys`, { scope: 'control' })).status).toBe(404);
    expect((await call('POST', '/projects', { name: 'escape' })).status).toBe(403);
    expect(changedTables(before, await snapshotTables(t.server.database))).toEqual([]);
    expect((await call('POST', `/projects/${t.projectId}/keys`, { scope: 'read', name: 'mine' })).status).toBe(201);
  });

  it("docs/teams.md's tables say what auth/roles.ts grants, and its operations list is the document's", () => {
    const doc = permissionsDoc();
    expect(doc.roles).toEqual(inPermissionOrder(ROLE_PERMISSIONS));
    expect(doc.scopes).toEqual(inPermissionOrder(SCOPE_PERMISSIONS));
    const generated = operationsByPermission(operations);
    expect(doc.operations, `docs/teams.md, between the operations markers, should read:\n${generated}`).toBe(generated);
  });
});
