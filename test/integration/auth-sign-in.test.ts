import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertMembership, insertUser } from '../../server/src/auth/users-store';
import { hashPassword } from '../../server/src/auth/passwords';
import { databaseKinds } from '../support/databases';
import { startMailbox, type Mailbox } from '../support/mailbox';
import { startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/until';

/**
 * Local accounts and the public /auth routes (issue 31) through the real server over HTTP, on SQLite and PostgreSQL:
 * the set-up link, sign-in and its cookie, throttling per account and per address, the same-origin proof on changes,
 * sign-out, and password reset through a real SMTP server on loopback. The server's clock is the test's, so a new
 * throttling window or an expired link is a step of the clock, not a wait.
 */
const kinds = await databaseKinds();
const WINDOW_MS = 15 * 60_000;
const OWNER: Readonly<Record<'email' | 'name' | 'password', string>> = {
  email: 'ada@example.com',
  name: 'Ada Lovelace',
  password: 'correct horse battery',
};

type Json = Record<string, any>;

describe.each(kinds)('sign-in on %s', (kind) => {
  let t: TestServer;
  let mailbox: Mailbox;
  let now = Date.UTC(2026, 10, 2, 9, 0, 0);
  const nextWindow = () => (now += WINDOW_MS);
  let ownerPassword = OWNER.password;

  beforeAll(async () => {
    mailbox = await startMailbox();
    t = await startTestServer(kind, {
      clock: { now: () => now },
      mail: { smtpUrl: `smtp://127.0.0.1:${mailbox.port}`, from: 'svc@example.test' },
    });
  });
  afterAll(async () => {
    await t?.close();
    await mailbox?.close();
  });

  /** A request as the console's own page makes it: same Origin, JSON body, the cookie given. */
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        origin: t.url,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as Json };
  };
  const cookieOf = (res: { headers: Headers }) => /svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  const signIn = (email: string, password: string) => send('POST', '/auth/sign-in', { email, password });
  const rows = async (table: string) =>
    JSON.stringify((await sql`select * from ${sql.table(table)} order by 1`.execute(t.server.database.db)).rows);
  const tokenOf = (link: string) => /#token=([\w-]+)$/.exec(link)?.[1] ?? '';
  const addPerson = async (email: string, password: string) => {
    const db = t.server.database.db;
    const clock = { now: () => now };
    const user = await insertUser(db, clock, { email, name: email, passwordHash: await hashPassword(password) });
    await insertMembership(db, clock, { tenantId: t.server.bootstrap!.tenantId, userId: user.id, role: 'member' });
  };

  it('creates the first owner once with the set-up link, from its own origin only', async () => {
    expect((await send('GET', '/auth/options')).body).toEqual({ password: true, sso: null, setup_required: true });
    const link = t.server.setupLink!;
    expect(link).toMatch(new RegExp(`^${t.url}/welcome#token=[\\w-]{43}$`));
    const body = { token: tokenOf(link), ...OWNER };
    const before = await rows('users');
    expect((await send('POST', '/auth/setup', body, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await send('POST', '/auth/setup', { ...body, password: 'short' })).body.error).toMatchObject({
      message: 'password must be at least 12 characters',
      details: { field: 'password' },
    });
    expect(await rows('users')).toBe(before);

    const res = await send('POST', '/auth/setup', body);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ person: { email: OWNER.email, name: OWNER.name }, role: 'owner' });
    expect(res.headers.get('set-cookie')).toMatch(
      /^svc_session=[\w-]{43}; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Lax$/,
    );

    const again = await send('POST', '/auth/setup', { ...body, email: 'mallory@example.com' });
    expect([again.status, again.body.error.code]).toEqual([400, 'invalid_token']);
    expect((await send('GET', '/auth/options')).body.setup_required).toBe(false);
    const audit = await sql<Json>`select * from audit_log where operation = 'POST /auth/setup'`.execute(
      t.server.database.db,
    );
    expect(audit.rows).toHaveLength(1);
    expect(audit.rows[0]).toMatchObject({ actor_kind: 'person', actor_label: OWNER.email, target_type: 'member' });
  });

  it('signs in with the right password only, and tells the session its CSRF token', async () => {
    expect((await signIn(OWNER.email, 'wrong password here')).body.error.code).toBe('invalid_credentials');
    expect((await signIn('nobody@example.com', OWNER.password)).status).toBe(401);
    expect(
      (await send('POST', '/auth/sign-in', { email: OWNER.email, password: OWNER.password }, { origin: '' })).status,
    ).toBe(403);
    const res = await signIn(OWNER.email.toUpperCase(), OWNER.password);
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Lax$/);
    const cookie = `svc_session=${cookieOf(res)}`;
    const session = await send('GET', '/auth/session', undefined, { cookie });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({
      person: { email: OWNER.email },
      organisation: { name: 'default' },
      role: 'owner',
    });
    expect(session.body.csrf_token).toMatch(/^[\w-]{43}$/);
    expect(session.body.csrf_token).toBe(res.body.csrf_token);
    expect((await send('GET', '/auth/session')).status).toBe(401);
  });

  it('refuses a control-plane change from the cookie without its own Origin or the CSRF token, changing nothing', async () => {
    const signedIn = await signIn(OWNER.email, OWNER.password);
    const cookie = `svc_session=${cookieOf(signedIn)}`;
    const csrf = signedIn.body.csrf_token as string;
    const create = (headers: Record<string, string>) =>
      send('POST', '/control-plane/projects', { name: `shop-${Object.keys(headers).length}` }, { cookie, ...headers });
    const before = await rows('projects');
    const forgeries: Record<string, string>[] = [
      { origin: '', 'x-svc-csrf': csrf },
      { origin: 'https://evil.example', 'x-svc-csrf': csrf },
      {},
      { 'x-svc-csrf': 'forged' },
    ];
    for (const headers of forgeries) {
      const res = await create(headers);
      expect([res.status, res.body.error.code], JSON.stringify(headers)).toEqual([403, 'forbidden']);
    }
    expect(await rows('projects')).toBe(before);
    expect((await create({ 'x-svc-csrf': csrf })).status).toBe(201);
  });

  it('signs out: the session ends and its cookie is cleared', async () => {
    const cookie = `svc_session=${cookieOf(await signIn(OWNER.email, OWNER.password))}`;
    const out = await send('POST', '/auth/sign-out', undefined, { cookie });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^svc_session=; Max-Age=0;/);
    expect((await send('GET', '/auth/session', undefined, { cookie })).status).toBe(401);
    expect((await send('GET', '/control-plane/me', undefined, { cookie })).status).toBe(401);
  });

  it('throttles 20 wrong passwords for one account after the fifth, right password or not, until the window ends', async () => {
    nextWindow();
    await addPerson('grace@example.com', 'grace password 1');
    // A success forgets the failures before it.
    for (let i = 0; i < 4; i++) expect((await signIn('grace@example.com', `guess ${i}`)).status).toBe(401);
    expect((await signIn('grace@example.com', 'grace password 1')).status).toBe(200);
    const statuses: number[] = [];
    let throttled: Awaited<ReturnType<typeof signIn>> | undefined;
    for (let i = 0; i < 20; i++) {
      const res = await signIn('grace@example.com', `guess ${i}`);
      statuses.push(res.status);
      if (res.status === 429) throttled = res;
    }
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
    expect(throttled!.body.error).toMatchObject({ code: 'throttled' });
    expect(throttled!.body.error.message).toMatch(
      /too many failed sign-ins for this account: try again in 1?\d minutes?/,
    );
    const retryAfter = Number(throttled!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(WINDOW_MS / 1000);
    expect((await signIn('grace@example.com', 'grace password 1')).status).toBe(429);
    nextWindow();
    expect((await signIn('grace@example.com', 'grace password 1')).status).toBe(200);
  });

  it('throttles 20 wrong passwords from one address, whichever accounts they name', async () => {
    nextWindow();
    for (let i = 0; i < 20; i++) expect((await signIn(`guess${i}@example.com`, 'wrong password')).status).toBe(401);
    const res = await signIn(OWNER.email, OWNER.password);
    expect(res.status).toBe(429);
    expect(res.body.error.message).toMatch(/from this address/);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    nextWindow();
    expect((await signIn(OWNER.email, OWNER.password)).status).toBe(200);
  });

  it('resets a password through a mailed single-use link, ending the other sessions; always 202', async () => {
    nextWindow();
    const oldCookie = `svc_session=${cookieOf(await signIn(OWNER.email, OWNER.password))}`;
    expect((await send('POST', '/auth/password-reset', { email: 'nobody@example.com' })).status).toBe(202);
    expect((await send('POST', '/auth/password-reset', { email: OWNER.email })).status).toBe(202);
    const mail = await eventually('the reset e-mail', async () => mailbox.inbox.at(-1));
    expect(mailbox.inbox.map((m) => m.recipients)).toEqual([[OWNER.email]]);
    const link = /(http\S+\/reset#token=[\w-]+)/.exec(mail.mail.text ?? '')?.[1] ?? '';
    expect(link.startsWith(`${t.url}/reset#token=`)).toBe(true);

    const password = 'a brand new passphrase';
    const done = await send('POST', '/auth/password-reset/complete', { token: tokenOf(link), password });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ person: { email: OWNER.email }, role: 'owner' });
    expect(cookieOf(done)).toBeTruthy();
    expect((await send('GET', '/auth/session', undefined, { cookie: oldCookie })).status).toBe(401);
    const again = await send('POST', '/auth/password-reset/complete', {
      token: tokenOf(link),
      password: 'yet another one!',
    });
    expect([again.status, again.body.error.code]).toEqual([400, 'invalid_token']);
    expect((await signIn(OWNER.email, OWNER.password)).status).toBe(401);
    expect((await signIn(OWNER.email, password)).status).toBe(200);
    const audit =
      await sql<Json>`select changes from audit_log where operation = 'POST /auth/password-reset/complete'`.execute(
        t.server.database.db,
      );
    expect(audit.rows).toEqual([{ changes: '{"after":{"password":"[REDACTED]"}}' }]);
    ownerPassword = password;
  });

  it('refuses an expired reset link', async () => {
    expect((await send('POST', '/auth/password-reset', { email: OWNER.email })).status).toBe(202);
    const mail = await eventually('the second reset e-mail', async () => mailbox.inbox[1]);
    const token = /#token=([\w-]+)/.exec(mail.mail.text ?? '')?.[1] ?? '';
    now += 3600_000;
    const res = await send('POST', '/auth/password-reset/complete', { token, password: 'too late for this one' });
    expect([res.status, res.body.error.code]).toEqual([400, 'invalid_token']);
    expect((await signIn(OWNER.email, ownerPassword)).status).toBe(200);
  });

  it('mails at most 3 reset links per account in a window, answering 202 alike, and refuses the 21st request from an address', async () => {
    nextWindow();
    await addPerson('heidi@example.com', 'heidi password 1');
    const sentBefore = mailbox.inbox.length;
    const ask = (email: string) => send('POST', '/auth/password-reset', { email });
    for (let i = 0; i < 5; i++) expect((await ask(OWNER.email)).status).toBe(202);
    expect((await ask('heidi@example.com')).status).toBe(202);
    // The fourth and fifth were turned down before their answers: once heidi's link and three of the owner's are in,
    // no more are coming.
    const to = (email: string) => mailbox.inbox.slice(sentBefore).filter((m) => m.recipients.includes(email));
    await eventually(
      'the links mailed',
      async () => (to('heidi@example.com').length === 1 && to(OWNER.email).length === 3) || undefined,
    );
    expect(to(OWNER.email)).toHaveLength(3);

    for (let i = 0; i < 14; i++) expect((await ask(`nobody${i}@example.com`)).status).toBe(202);
    const refused = await ask('nobody-else@example.com');
    expect([refused.status, refused.body.error.code]).toEqual([429, 'throttled']);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    nextWindow();
    expect((await ask('nobody-else@example.com')).status).toBe(202);
  });
});

describe.each(kinds)('sign-in served over TLS on %s', (kind) => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer(kind, { publicUrl: 'https://svc.example.test' });
  });
  afterAll(() => t?.close());

  it('sets a Secure cookie when the public URL is https', async () => {
    const link = t.server.setupLink!;
    expect(link).toMatch(/^https:\/\/svc\.example\.test\/welcome#token=/);
    const res = await fetch(`${t.url}/auth/setup`, {
      method: 'POST',
      headers: { origin: 'https://svc.example.test', 'content-type': 'application/json' },
      body: JSON.stringify({ token: /#token=(.+)$/.exec(link)![1], ...OWNER }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('set-cookie')).toMatch(/; HttpOnly; Secure; SameSite=Lax$/);
  });
});
