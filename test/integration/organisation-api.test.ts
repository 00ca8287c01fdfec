import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readOidcSettings } from '../../server/src/auth/oidc/settings';
import { systemClock } from '../../server/src/clock';
import { createKey } from '../../server/src/index';
import { databaseKinds } from '../support/databases';
import { createPerson, sessionHeaders, signInAs, type SignedIn } from '../support/people';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The organisation and its single sign-on policy (issue 31, docs/teams.md "Organisation") through the real server over
 * HTTP, on SQLite and PostgreSQL: everyone reads it (with the server's SVC_OIDC_* settings, never the client's
 * secret), an owner renames it and sets, changes and removes its policy, each change leaving exactly one audit entry
 * with the changed fields before and after; bad input is a 400 naming the field and an admin a 403, neither changing
 * anything.
 */
const kinds = await databaseKinds();
const CLIENT_SECRET = 'organisation-test-client-secret';
const OIDC = readOidcSettings({
  SVC_OIDC_ISSUER: 'https://sso.example.com',
  SVC_OIDC_CLIENT_ID: 'svc',
  SVC_OIDC_CLIENT_SECRET: CLIENT_SECRET,
  SVC_OIDC_ALLOWED_DOMAINS: 'example.com',
  SVC_OIDC_GROUP_ROLES: 'svc-admins=admin',
  SVC_OIDC_NAME: 'Example SSO',
});
const ENVIRONMENT_POLICY = {
  allowed_domains: ['example.com'],
  group_roles: { 'svc-admins': 'admin' },
  default_role: 'viewer',
};

type Json = Record<string, any>;

describe.each(kinds)('organisation on %s', (kind) => {
  let t: TestServer;
  let tenantId: string;
  const as: Record<'owner' | 'admin' | 'viewer', SignedIn> = {} as never;
  let adminKey: string;

  beforeAll(async () => {
    t = await startTestServer(kind, { detection: false, oidc: OIDC });
    tenantId = t.server.bootstrap!.tenantId;
    const { db } = t.server.database;
    for (const role of ['owner', 'admin', 'viewer'] as const) {
      const person = await createPerson(db, { tenantId, email: `${role}@example.com`, name: role, role });
      as[role] = await signInAs(db, systemClock, person);
    }
    adminKey = (await createKey(db, systemClock, { projectId: t.projectId, scope: 'admin', name: 'org admin' })).key;
  });
  afterAll(async () => t?.close());

  async function call(method: string, who: SignedIn | string, body?: unknown) {
    const auth = typeof who === 'string' ? { authorization: `Bearer ${who}` } : sessionHeaders(who, t.url);
    const res = await fetch(`${t.url}/control-plane/organisation`, {
      method,
      headers: { ...auth, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  }
  const stored = () =>
    t.server.database.db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirstOrThrow();
  const auditEntries = () => t.server.database.db.selectFrom('audit_log').selectAll().orderBy('id').execute();
  /** The entries `work` appended. */
  async function appended(work: () => Promise<unknown>) {
    const before = (await auditEntries()).length;
    await work();
    return (await auditEntries()).slice(before);
  }
  /** The one entry a change appended, as the audit log's API shows it. */
  async function oneEntry(work: () => Promise<unknown>) {
    expect(await appended(work)).toHaveLength(1);
    const listed = await fetch(`${t.url}/control-plane/audit?target_type=organisation&limit=1`, {
      headers: sessionHeaders(as.owner, t.url),
    });
    return ((await listed.json()) as { data: Json[] }).data[0]!;
  }

  it('answers everyone with the organisation and the SSO settings in force, never the client secret', async () => {
    for (const who of [as.viewer, as.admin, adminKey]) {
      const res = await call('GET', who);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        id: tenantId,
        name: 'default',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        sso: {
          enabled: true,
          name: 'Example SSO',
          issuer: 'https://sso.example.com/',
          policy: ENVIRONMENT_POLICY,
          policy_source: 'environment',
        },
      });
      expect(JSON.stringify(res.body)).not.toContain(CLIENT_SECRET);
    }
  });

  it('an owner renames it: the new name everywhere, one audit entry with the name before and after', async () => {
    let renamed: Awaited<ReturnType<typeof call>> | undefined;
    const entry = await oneEntry(async () => (renamed = await call('PATCH', as.owner, { name: 'Acme Corp' })));
    expect(renamed?.status, JSON.stringify(renamed?.body)).toBe(200);
    expect(renamed?.body).toMatchObject({ id: tenantId, name: 'Acme Corp', sso: { policy_source: 'environment' } });
    expect((await stored()).name).toBe('Acme Corp');
    const me = await fetch(`${t.url}/control-plane/me`, { headers: sessionHeaders(as.viewer, t.url) });
    expect(((await me.json()) as Json).tenant.name).toBe('Acme Corp');
    expect(entry).toMatchObject({
      actor: { kind: 'person', label: 'owner@example.com' },
      operation: 'PATCH /control-plane/organisation',
      target: { type: 'organisation', id: tenantId },
      changes: { before: { name: 'default' }, after: { name: 'Acme Corp' } },
      status: 200,
    });
  });

  it("sets its own policy from the environment's, changes parts of it, and removes it, one entry each", async () => {
    const mapped = { 'svc-admins': 'admin', Engineering: 'member' };
    const first = await oneEntry(async () => {
      const res = await call('PATCH', as.owner, { sso_policy: { group_roles: mapped } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // What it left out comes from the policy in force: the environment's.
      expect(res.body.sso).toMatchObject({
        policy: { ...ENVIRONMENT_POLICY, group_roles: mapped },
        policy_source: 'organisation',
      });
    });
    expect(first.changes).toEqual({
      before: { sso_policy: null },
      after: { sso_policy: { ...ENVIRONMENT_POLICY, group_roles: mapped } },
    });

    const second = await oneEntry(async () => {
      const body = { sso_policy: { allowed_domains: ['Corp.Example.COM', 'corp.example.com'], default_role: 'none' } };
      const res = await call('PATCH', as.owner, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    });
    const policy = { allowed_domains: ['corp.example.com'], group_roles: mapped, default_role: 'none' };
    expect(second.changes).toEqual({
      before: { sso_policy: { ...ENVIRONMENT_POLICY, group_roles: mapped } },
      after: { sso_policy: policy },
    });
    expect((await call('GET', as.viewer)).body.sso).toMatchObject({ policy, policy_source: 'organisation' });
    expect(JSON.parse((await stored()).sso_policy!)).toEqual(policy);

    const cleared = await oneEntry(async () => {
      const res = await call('PATCH', as.owner, { sso_policy: null });
      expect(res.body.sso).toMatchObject({ policy: ENVIRONMENT_POLICY, policy_source: 'environment' });
    });
    expect(cleared.changes).toEqual({ before: { sso_policy: policy }, after: { sso_policy: null } });
    expect((await stored()).sso_policy).toBeNull();
  });

  it('answers bad input with a 400 naming the field, and changes nothing', async () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`group-${i}`, 'member']));
    const cases: Array<[body: unknown, field: string]> = [
      [{ name: '' }, 'name'],
      [{ name: 'x'.repeat(101) }, 'name'],
      [{ name: ' Acme' }, 'name'],
      [{ name: 42 }, 'name'],
      [{ colour: 'red' }, 'colour'],
      [{ sso_policy: 'strict' }, 'sso_policy'],
      [{ sso_policy: { allowed_domains: 'example.com' } }, 'sso_policy.allowed_domains'],
      [{ sso_policy: { allowed_domains: ['example.com', 'not a domain'] } }, 'sso_policy.allowed_domains[1]'],
      [{ sso_policy: { allowed_domains: ['localhost'] } }, 'sso_policy.allowed_domains[0]'],
      [{ sso_policy: { group_roles: { devs: 'boss' } } }, 'sso_policy.group_roles.devs'],
      [{ sso_policy: { group_roles: { '': 'admin' } } }, 'sso_policy.group_roles[""]'],
      [{ sso_policy: { group_roles: many } }, 'sso_policy.group_roles'],
      [{ sso_policy: { default_role: 'root' } }, 'sso_policy.default_role'],
      [{ sso_policy: { defaults: 'viewer' } }, 'sso_policy.defaults'],
    ];
    const before = await stored();
    const added = await appended(async () => {
      for (const [body, field] of cases) {
        const res = await call('PATCH', as.owner, body);
        const what = JSON.stringify(body);
        expect([what, res.status, res.body.error?.code, res.body.error?.details?.field]).toEqual([
          what,
          400,
          'invalid_request',
          field,
        ]);
        expect(res.body.error.message).toContain(field);
      }
    });
    expect(added).toEqual([]);
    expect(await stored()).toEqual(before);
  });

  it('refuses an admin (person or key) with 403: only owners manage the organisation', async () => {
    const before = await stored();
    const added = await appended(async () => {
      for (const who of [as.admin, adminKey, as.viewer]) {
        const res = await call('PATCH', who, { name: 'Taken over', sso_policy: { allowed_domains: ['evil.test'] } });
        expect(res.status).toBe(403);
        expect(res.body.error.code).toBe('forbidden');
        expect(res.body.error.message).toContain('org.manage');
      }
    });
    expect(added).toEqual([]);
    expect(await stored()).toEqual(before);
  });
});

describe('organisation on a server without single sign-on', () => {
  it('says single sign-on is off, with the policy of the SVC_OIDC_* defaults', async () => {
    const t = await startTestServer(kinds[0]!, { detection: false });
    try {
      const res = await fetch(`${t.url}/control-plane/organisation`, {
        headers: { authorization: `Bearer ${t.controlKey}` },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as Json).sso).toEqual({
        enabled: false,
        name: null,
        issuer: null,
        policy: { allowed_domains: [], group_roles: {}, default_role: 'viewer' },
        policy_source: 'environment',
      });
    } finally {
      await t.close();
    }
  });
});
