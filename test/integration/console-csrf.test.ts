import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeSessions } from '../../server/src/auth/console-sessions';
import { systemClock } from '../../server/src/clock';
import { CSRF_HEADER } from '../../server/src/http/console-auth';
import { databaseKinds } from '../support/databases';
import { createPerson, sessionHeaders, signInAs, type Person, type SignedIn } from '../support/people';
import { startTestServer, type TestServer } from '../support/server';
import { changedTables, snapshotTables } from '../support/table-snapshot';

/**
 * Cross-site request forgery at the control plane, through the real server on SQLite and PostgreSQL: a change from a
 * console session must come with this server's Origin and the session's CSRF token, else it is refused (403) and
 * changes nothing; reading needs neither, and neither does a key. A revoked session, or one whose membership was
 * removed, stops at its next request.
 */

const kinds = await databaseKinds();
const PUBLIC_URL = 'https://svc.example.com';

type ErrorBody = { error: { code: string; message: string; details?: { field?: string } } };

describe.each(kinds)('console sessions and CSRF at the control plane on %s', (kind) => {
  let t: TestServer;
  let tenantId: string;
  let admin: Person;
  let session: SignedIn;
  let channel: string;

  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${t.url}/control-plane${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  /** The changes a forged request could try, one per unsafe method. */
  const changes = () =>
    [
      ['PATCH', `/notifications/channels/${channel}`, { name: 'forged' }],
      ['POST', '/notifications/channels', { type: 'webhook', name: 'forged', config: { url: 'https://x.example/h' } }],
      ['DELETE', `/notifications/channels/${channel}`, undefined],
    ] as const;

  beforeAll(async () => {
    t = await startTestServer(kind, { detection: false, publicUrl: PUBLIC_URL, outbox: { pollMs: 60_000 } });
    tenantId = t.server.bootstrap!.tenantId;
    const { db } = t.server.database;
    admin = await createPerson(db, { tenantId, email: 'ada@example.com', name: 'Ada', role: 'admin' });
    session = await signInAs(db, systemClock, admin);
    const res = await call('POST', '/notifications/channels', sessionHeaders(session, t.url), {
      type: 'webhook',
      name: 'on-call',
      config: { url: 'https://hooks.example.com/svc' },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    channel = ((await res.json()) as { id: string }).id;
  });
  afterAll(async () => t?.close());

  it('refuses a change without Origin, from a foreign Origin, or without or with a wrong CSRF token', async () => {
    const other = await signInAs(t.server.database.db, systemClock, admin);
    const { cookie, csrf } = session;
    const forgeries: Array<[string, Record<string, string>, string]> = [
      ['no Origin', { cookie, [CSRF_HEADER]: csrf }, 'Origin'],
      ['a foreign Origin', { cookie, origin: 'https://evil.example', [CSRF_HEADER]: csrf }, 'Origin'],
      ['Origin null', { cookie, origin: 'null', [CSRF_HEADER]: csrf }, 'Origin'],
      ['no CSRF token', { cookie, origin: t.url }, 'X-Svc-Csrf'],
      ["another session's CSRF token", { cookie, origin: t.url, [CSRF_HEADER]: other.csrf }, 'X-Svc-Csrf'],
      ['a CSRF token cut short', { cookie, origin: t.url, [CSRF_HEADER]: csrf.slice(1) }, 'X-Svc-Csrf'],
    ];
    for (const [method, path, body] of changes()) {
      for (const [what, headers, field] of forgeries) {
        const before = await snapshotTables(t.server.database);
        const res = await call(method, path, headers, body);
        const error = ((await res.json()) as ErrorBody).error;
        expect([method, what, res.status, error.code, error.details?.field]).toEqual([
          method,
          what,
          403,
          'forbidden',
          field,
        ]);
        expect(changedTables(before, await snapshotTables(t.server.database)), `${method} with ${what}`).toEqual([]);
      }
    }
  });

  it("accepts a change with the server's Origin (as requested or its public URL) and the token", async () => {
    for (const origin of [t.url, PUBLIC_URL]) {
      const res = await call('PATCH', `/notifications/channels/${channel}`, sessionHeaders(session, origin), {
        name: `renamed from ${origin}`,
      });
      expect([origin, res.status]).toEqual([origin, 200]);
    }
  });

  it('reads without Origin or token; a key changes without either', async () => {
    const read = await call('GET', `/notifications/channels/${channel}`, { cookie: session.cookie });
    expect(read.status).toBe(200);
    const key = { authorization: `Bearer ${t.controlKey}` };
    const res = await call('PATCH', `/notifications/channels/${channel}`, key, { name: 'renamed by a key' });
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it('a revoked session answers 401 at its next request', async () => {
    const { db } = t.server.database;
    const person = await createPerson(db, { tenantId, email: 'rev@example.com', name: 'Rev', role: 'viewer' });
    const signedIn = await signInAs(db, systemClock, person);
    expect((await call('GET', '/me', { cookie: signedIn.cookie })).status).toBe(200);
    expect(await revokeSessions(db, systemClock, { userId: person.id, tenantId })).toBe(1);
    const res = await call('GET', '/me', { cookie: signedIn.cookie });
    expect([res.status, ((await res.json()) as ErrorBody).error.code]).toEqual([401, 'unauthorized']);
  });

  it('a removed membership ends its sessions at once: removed in the database, or by an admin through the API', async () => {
    const { db } = t.server.database;
    const removed = async (email: string, remove: (person: Person) => Promise<void>) => {
      const person = await createPerson(db, { tenantId, email, name: email, role: 'member' });
      const signedIn = await signInAs(db, systemClock, person);
      expect((await call('GET', '/issues', { cookie: signedIn.cookie })).status).toBe(200);
      await remove(person);
      const res = await call('GET', '/issues', { cookie: signedIn.cookie });
      expect([email, res.status, ((await res.json()) as ErrorBody).error.code]).toEqual([email, 401, 'unauthorized']);
    };
    await removed('gone@example.com', async (person) => {
      await db.deleteFrom('memberships').where('user_id', '=', person.id).execute();
    });
    await removed('dismissed@example.com', async (person) => {
      const res = await call('DELETE', `/members/${person.id}`, sessionHeaders(session, t.url));
      expect(res.status, await res.clone().text()).toBe(204);
    });
  });
});
