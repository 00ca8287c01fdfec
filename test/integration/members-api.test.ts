import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseKinds } from '../support/databases';
import { startMailbox, type Mailbox } from '../support/mailbox';
import { startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/until';

/**
 * People and machine keys on the control plane (issue 31) through the real server over HTTP, on SQLite and PostgreSQL.
 * Everyone comes in through the API: the first owner with the set-up link, the others by invitation (mailed through a
 * real SMTP server on loopback). Covered: invitations and their acceptance, the owner rules (an admin cannot grant,
 * change or remove an owner; the last owner can neither leave nor be demoted), a removed member's session ending at
 * once, sessions listed and ended by their person or an admin, and keys made, listed with creator and last use, and
 * revoked. The server's clock is the test's, so an invitation's expiry is a step of the clock.
 */
const kinds = await databaseKinds();
const PASSWORD = 'correct horse battery';
const DAY_MS = 86_400_000;

type Json = Record<string, any>;
interface Session {
  cookie: string;
  csrf: string;
  id: string;
  email: string;
}

describe.each(kinds)('members and keys on %s', (kind) => {
  let t: TestServer;
  let mailbox: Mailbox;
  let now = Date.UTC(2026, 10, 2, 9, 0, 0);
  let owner: Session;

  beforeAll(async () => {
    mailbox = await startMailbox();
    t = await startTestServer(kind, {
      clock: { now: () => now },
      mail: { smtpUrl: `smtp://127.0.0.1:${mailbox.port}`, from: 'svc@example.test' },
    });
    const token = tokenOf(t.server.setupLink!);
    const res = await send('POST', '/auth/setup', {
      token,
      email: 'owner@example.com',
      name: 'Owner',
      password: PASSWORD,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    owner = sessionOf(res);
  });
  afterAll(async () => {
    await t?.close();
    await mailbox?.close();
  });

  const tokenOf = (link: string) => /#token=([\w-]+)$/.exec(link)?.[1] ?? '';

  /** A request as the console's own page makes it: same Origin, JSON body, and the session's cookie and CSRF token. */
  async function send(
    method: string,
    path: string,
    body?: unknown,
    as?: Session,
    headers: Record<string, string> = {},
  ) {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        origin: t.url,
        ...(as ? { cookie: as.cookie, 'x-svc-csrf': as.csrf } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
  }
  const cp = (method: string, path: string, as: Session, body?: unknown) =>
    send(method, `/control-plane${path}`, body, as);
  function sessionOf(res: { headers: Headers; body: Json }): Session {
    const cookie = /svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
    expect(cookie, 'the session cookie').toBeTruthy();
    return {
      cookie: `svc_session=${cookie}`,
      csrf: res.body.csrf_token,
      id: res.body.person.id,
      email: res.body.person.email,
    };
  }

  /** `email` invited as `role` by `by`, and accepting with a new account: signed in. */
  async function join(email: string, role: string, by: Session = owner): Promise<Session> {
    const invited = await cp('POST', '/members/invitations', by, { email, role });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    const res = await send('POST', '/auth/invitations/accept', {
      token: tokenOf(invited.body.link),
      name: email.split('@')[0],
      password: PASSWORD,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return sessionOf(res);
  }
  const auditCount = async () =>
    Number(
      (
        await t.server.database.db
          .selectFrom('audit_log')
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('invites by e-mail; the invited person accepts, becomes a member and is signed in with the cookie', async () => {
    const invited = await cp('POST', '/members/invitations', owner, { email: 'Bob@Example.com', role: 'member' });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect(invited.body).toMatchObject({ email: 'bob@example.com', role: 'member', projects: null, mailed: true });
    expect(invited.body.link).toMatch(new RegExp(`^${t.url}/join#token=[\\w-]{43}$`));
    expect(invited.body.expires_at).toBe(new Date(now + 7 * DAY_MS).toISOString());
    const { mail } = await eventually('the invitation mail', async () =>
      mailbox.inbox.find((d) => d.recipients.includes('bob@example.com')),
    );
    expect(mail.text).toContain(invited.body.link);
    expect(mail.text).toContain('Owner (owner@example.com) invited you');

    const pending = await cp('GET', '/members/invitations', owner);
    expect(pending.body.data).toEqual([
      expect.objectContaining({
        id: invited.body.id,
        email: 'bob@example.com',
        invited_by: { id: owner.id, email: owner.email },
      }),
    ]);
    expect(JSON.stringify(pending.body)).not.toContain(tokenOf(invited.body.link));

    const token = tokenOf(invited.body.link);
    const inspected = await send('POST', '/auth/invitations/inspect', { token });
    expect(inspected.body).toEqual({
      organisation: { name: 'default' },
      email: 'bob@example.com',
      role: 'member',
      has_account: false,
    });
    const foreign = await send(
      'POST',
      '/auth/invitations/accept',
      { token, name: 'Bob', password: PASSWORD },
      undefined,
      {
        origin: 'https://evil.example',
      },
    );
    expect(foreign.status).toBe(403);
    const short = await send('POST', '/auth/invitations/accept', { token, name: 'Bob', password: 'short' });
    expect([short.status, short.body.error.details]).toEqual([400, { field: 'password' }]);
    const nameless = await send('POST', '/auth/invitations/accept', { token, password: PASSWORD });
    expect([nameless.status, nameless.body.error.details]).toEqual([400, { field: 'name' }]);

    const audited = await auditCount();
    const accepted = await send('POST', '/auth/invitations/accept', { token, name: 'Bob', password: PASSWORD });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body).toMatchObject({ person: { email: 'bob@example.com', name: 'Bob' }, role: 'member' });
    expect(await auditCount()).toBe(audited + 1);
    const bob = sessionOf(accepted);
    const me = await cp('GET', '/me', bob);
    expect([me.status, me.body.person]).toEqual([
      200,
      { id: bob.id, email: 'bob@example.com', name: 'Bob', role: 'member' },
    ]);

    const again = await send('POST', '/auth/invitations/accept', { token, name: 'Bob', password: PASSWORD });
    expect([again.status, again.body.error.code]).toEqual([404, 'invitation_invalid']);
    expect((await cp('GET', '/members/invitations', owner)).body.data).toEqual([]);
    const members = (await cp('GET', '/members', bob)).body.data as Json[];
    // Joined at the same instant of the test's clock: in e-mail order.
    expect(members.map((m) => [m.email, m.role, m.last_seen_at])).toEqual([
      ['bob@example.com', 'member', new Date(now).toISOString()],
      ['owner@example.com', 'owner', new Date(now).toISOString()],
    ]);
  });

  it('refuses invitations beyond the inviter’s role, to members, to unknown projects, and withdrawn or expired ones', async () => {
    const admin = await join('ann@example.com', 'admin');
    const member = await join('mo@example.com', 'member');
    const refusals: Array<[Session, Json, number, string?]> = [
      [admin, { email: 'x@example.com', role: 'owner' }, 403],
      [member, { email: 'x@example.com', role: 'viewer' }, 403],
      [admin, { email: 'mo@example.com', role: 'viewer' }, 409, 'email'],
      [admin, { email: 'x@example.com', role: 'viewer', projects: ['nope'] }, 400, 'projects'],
      [admin, { email: 'x@example.com', role: 'viewer', projects: [] }, 400, 'projects'],
      [admin, { email: 'not an address', role: 'viewer' }, 400, 'email'],
      [admin, { email: 'x@example.com', role: 'boss' }, 400, 'role'],
    ];
    for (const [by, body, status, field] of refusals) {
      const res = await cp('POST', '/members/invitations', by, body);
      expect([JSON.stringify(body), res.status, res.body.error.details?.field]).toEqual([
        JSON.stringify(body),
        status,
        field,
      ]);
    }
    const limited = await cp('POST', '/members/invitations', admin, {
      email: 'lim@example.com',
      role: 'viewer',
      projects: [t.projectId],
    });
    expect(limited.body.projects).toEqual([t.projectId]);
    const withdrawn = await cp('DELETE', `/members/invitations/${limited.body.id}`, admin);
    expect(withdrawn.status).toBe(204);
    const gone = await send('POST', '/auth/invitations/inspect', { token: tokenOf(limited.body.link) });
    expect([gone.status, gone.body.error.code]).toEqual([404, 'invitation_invalid']);

    const later = await cp('POST', '/members/invitations', admin, { email: 'late@example.com', role: 'viewer' });
    now += 7 * DAY_MS + 1;
    const expired = await send('POST', '/auth/invitations/accept', {
      token: tokenOf(later.body.link),
      name: 'Late',
      password: PASSWORD,
    });
    expect([expired.status, expired.body.error.code]).toEqual([404, 'invitation_invalid']);
    // A week on, the owner's session has ended too (a day idle): they sign in again.
    owner = sessionOf(await send('POST', '/auth/sign-in', { email: 'owner@example.com', password: PASSWORD }));
  });

  it('keeps owners to owners: an admin cannot grant, change or remove one; the last owner can neither leave nor be demoted', async () => {
    const admin = await join('adm@example.com', 'admin');
    const viewer = await join('vi@example.com', 'viewer');
    expect((await cp('PATCH', `/members/${viewer.id}`, admin, { role: 'owner' })).status).toBe(403);
    expect((await cp('PATCH', `/members/${admin.id}`, admin, { role: 'owner' })).status).toBe(403);
    expect((await cp('PATCH', `/members/${owner.id}`, admin, { role: 'admin' })).status).toBe(403);
    expect((await cp('DELETE', `/members/${owner.id}`, admin)).status).toBe(403);
    expect((await cp('DELETE', `/members/${admin.id}`, viewer)).status).toBe(403);
    expect((await cp('PATCH', `/members/${viewer.id}`, viewer, { role: 'member' })).status).toBe(403);

    const demote = await cp('PATCH', `/members/${owner.id}`, owner, { role: 'admin' });
    expect([demote.status, demote.body.error.code]).toEqual([409, 'last_owner']);
    expect(demote.body.error.message).toContain('owner@example.com');
    const leave = await cp('DELETE', `/members/${owner.id}`, owner);
    expect([leave.status, leave.body.error.code]).toEqual([409, 'last_owner']);

    const promoted = await cp('PATCH', `/members/${admin.id}`, owner, { role: 'owner', projects: [t.projectId] });
    expect(promoted.body).toMatchObject({ role: 'owner', projects: [t.projectId] });
    expect((await cp('PATCH', `/members/${admin.id}`, owner, { projects: ['elsewhere'] })).body.error.details).toEqual({
      field: 'projects',
    });
    // Two owners: either may now step down, and the other is the last.
    const back = await cp('PATCH', `/members/${admin.id}`, admin, { role: 'admin', projects: null });
    expect(back.body).toMatchObject({ role: 'admin', projects: null });
  });

  it("ends a removed member's session at once, and lets a member leave", async () => {
    const carol = await join('carol@example.com', 'member');
    expect((await cp('GET', '/me', carol)).status).toBe(200);
    expect((await cp('DELETE', `/members/${carol.id}`, owner)).status).toBe(204);
    const after = await cp('GET', '/me', carol);
    expect(after.status).toBe(401);
    expect((await cp('GET', '/members', owner)).body.data.map((m: Json) => m.email)).not.toContain('carol@example.com');

    // Invited again, the account exists: its password, not a new one, accepts.
    const invited = await cp('POST', '/members/invitations', owner, { email: 'carol@example.com', role: 'viewer' });
    const token = tokenOf(invited.body.link);
    expect((await send('POST', '/auth/invitations/inspect', { token })).body.has_account).toBe(true);
    const wrong = await send('POST', '/auth/invitations/accept', { token, password: 'not her password at all' });
    expect([wrong.status, wrong.body.error.code]).toEqual([401, 'invalid_credentials']);
    const back = sessionOf(await send('POST', '/auth/invitations/accept', { token, password: PASSWORD }));
    expect((await cp('GET', '/me', back)).body.person).toMatchObject({ email: 'carol@example.com', role: 'viewer' });

    const left = await cp('DELETE', `/members/${back.id}`, back);
    expect(left.status).toBe(204);
    expect(left.headers.get('set-cookie')).toMatch(/svc_session=;/);
    expect((await cp('GET', '/me', back)).status).toBe(401);
  });

  it('lists and ends my sessions; an admin ends all of someone’s', async () => {
    const dan = await join('dan@example.com', 'member');
    const signIn = await send('POST', '/auth/sign-in', { email: 'dan@example.com', password: PASSWORD });
    const second = sessionOf(signIn);
    const mine = (await cp('GET', '/me/sessions', dan)).body.data as Json[];
    expect(mine.map((s) => [s.method, s.current])).toEqual(
      expect.arrayContaining([
        ['invite', true],
        ['password', false],
      ]),
    );
    expect(mine).toHaveLength(2);
    const other = mine.find((s) => !s.current)!;
    expect((await cp('DELETE', `/me/sessions/${other.id}`, dan)).status).toBe(204);
    expect((await cp('GET', '/me', second)).status).toBe(401);
    expect((await cp('DELETE', `/me/sessions/${other.id}`, dan)).status).toBe(404);
    // Someone else's session is not mine to end.
    const ownerSessions = (await cp('GET', '/me/sessions', owner)).body.data as Json[];
    expect((await cp('DELETE', `/me/sessions/${ownerSessions[0]!.id}`, dan)).status).toBe(404);

    const third = sessionOf(await send('POST', '/auth/sign-in', { email: 'dan@example.com', password: PASSWORD }));
    expect((await cp('DELETE', `/members/${dan.id}/sessions`, dan)).status).toBe(403);
    const ended = await cp('DELETE', `/members/${dan.id}/sessions`, owner);
    expect(ended.body).toEqual({ revoked: 2 });
    expect((await cp('GET', '/me', dan)).status).toBe(401);
    expect((await cp('GET', '/me', third)).status).toBe(401);
  });

  it('makes named keys shown once, lists them with creator and last use, and revokes them', async () => {
    const made = await cp('POST', '/keys', owner, { scope: 'control', name: 'CI deploys', expires_in_days: 30 });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      scope: 'control',
      name: 'CI deploys',
      created_by: { id: owner.id, email: owner.email },
      last_used_at: null,
      expires_at: new Date(now + 30 * DAY_MS).toISOString(),
      revoked_at: null,
    });
    expect(made.body.key).toMatch(/^svc_control_/);
    const key = made.body.key as string;

    const asKey = await fetch(`${t.url}/control-plane/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(asKey.status).toBe(200);
    const listed = (await cp('GET', '/keys', owner)).body.data as Json[];
    expect(JSON.stringify(listed)).not.toContain(key);
    const row = listed.find((k) => k.id === made.body.id)!;
    expect(row).toMatchObject({
      name: 'CI deploys',
      created_by: { email: owner.email },
      last_used_at: new Date(now).toISOString(),
    });
    expect(listed.find((k) => k.name === 'default control key')).toMatchObject({ created_by: null });

    for (const [body, field] of [
      [{ scope: 'admin', name: 'root' }, 'scope'],
      [{ scope: 'read' }, 'name'],
      [{ scope: 'read', name: ' padded ' }, 'name'],
      [{ scope: 'read', name: 'x', expires_in_days: 0 }, 'expires_in_days'],
    ] as const) {
      const res = await cp('POST', '/keys', owner, body);
      expect([res.status, res.body.error.details?.field]).toEqual([400, field]);
    }
    const member = await join('kim@example.com', 'member');
    expect((await cp('GET', '/keys', member)).status).toBe(403);
    expect((await cp('POST', '/keys', member, { scope: 'read', name: 'mine' })).status).toBe(403);

    expect((await cp('DELETE', `/keys/${made.body.id}`, owner)).status).toBe(204);
    const refused = await fetch(`${t.url}/control-plane/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(refused.status).toBe(403);
    expect((await cp('GET', '/keys', owner)).body.data.find((k: Json) => k.id === made.body.id).revoked_at).toBe(
      new Date(now).toISOString(),
    );
    expect((await cp('DELETE', '/keys/no-such-key', owner)).status).toBe(404);
  });

  it('leaves one audit entry per change, naming the person, with no key or link in it', async () => {
    const before = await auditCount();
    const invited = await cp('POST', '/members/invitations', owner, { email: 'eve@example.com', role: 'viewer' });
    const made = await cp('POST', '/keys', owner, { scope: 'read', name: 'dashboards' });
    await cp('DELETE', `/keys/${made.body.id}`, owner);
    await cp('DELETE', `/members/invitations/${invited.body.id}`, owner);
    const entries = await t.server.database.db
      .selectFrom('audit_log')
      .selectAll()
      .orderBy('id')
      .offset(before)
      .limit(100)
      .execute();
    expect(entries.map((e) => [e.operation, e.actor_label, e.target_type])).toEqual([
      ['POST /control-plane/members/invitations', owner.email, 'invitation'],
      ['POST /control-plane/keys', owner.email, 'key'],
      ['DELETE /control-plane/keys/{id}', owner.email, 'key'],
      ['DELETE /control-plane/members/invitations/{id}', owner.email, 'invitation'],
    ]);
    const text = JSON.stringify(entries);
    expect(text).not.toContain(made.body.key);
    expect(text).not.toContain(tokenOf(invited.body.link));
  });
});
