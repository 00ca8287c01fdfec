import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_HEADER } from '../../server/src/http/auth';
import { createDetector } from '../../server/src/incidents/detect/detector';
import { createProject, createTenant } from '../../server/src/index';
import { createSymbolicator } from '../../server/src/sourcemaps/symbolicate';
import { databaseKinds } from '../support/databases';
import { issueDetector } from '../support/detector';
import { errorLog } from '../support/error-logs';
import { startMailbox, type Mailbox } from '../support/mailbox';
import { createPerson, sessionHeaders, signInAs, type Person } from '../support/people';
import { startReceiver, type Receiver } from '../support/receiver';
import { postIngest, startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/until';

/**
 * Ownership (issue 31): issues and incidents assigned to members over HTTP on the real server, on SQLite and
 * PostgreSQL. Members sign in with console sessions; the assignee is mailed through a real SMTP server on loopback.
 * Covered: assigning, `me`, unassigning, the same assignee again (nothing changes, no mail), the 400s naming
 * `assignee` (a key's `me`, strangers, members limited to another project), a viewer's 403, the `assignee` filters
 * across pages, rules routing by assignee (issue regressions and detected incidents, which take their issue's
 * assignee), a removed member's assignments cleared, one audit entry per assignment, and a refused mail logged while
 * the assignment stands. The server's clock is the test's, so a regression is a step of the clock.
 */
const kinds = await databaseKinds();
const MINUTE = 60_000;

type Json = Record<string, any>;
type As = Person | 'key';

describe.each(kinds)('issue and incident assignment on %s', (kind) => {
  let t: TestServer;
  let mailbox: Mailbox;
  let receiver: Receiver;
  let now = Date.UTC(2027, 2, 1, 9, 0, 0);
  const clock = { now: () => now };
  const logged: string[] = [];
  const people: Record<'owner' | 'bob' | 'viewer' | 'limited' | 'stranger' | 'unreachable', Person> = {} as never;
  const cookies = new Map<string, Record<string, string>>();
  let errors = 0;

  /** A control-plane request as a person's console page makes it, or with the control key. */
  async function call(as: As, method: string, path: string, body?: unknown) {
    const who =
      as === 'key' ? { authorization: `Bearer ${t.controlKey}` } : (cookies.get(as.id) ?? (await signedIn(as)));
    const res = await fetch(`${t.url}/control-plane${path}`, {
      method,
      headers: { ...who, ...(body !== undefined && { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : null) as Json };
  }
  async function signedIn(person: Person) {
    // The project acted on: the organisation has two, made at the same instant of the test's clock.
    const headers = {
      ...sessionHeaders(await signInAs(t.server.database.db, clock, person), t.url),
      [PROJECT_HEADER]: t.projectId,
    };
    cookies.set(person.id, headers);
    return headers;
  }
  const assign = (as: As, what: string, assignee: unknown) => call(as, 'PUT', `${what}/assignee`, { assignee });
  const ok = async (res: Promise<{ status: number; body: Json }>) => {
    const { status, body } = await res;
    expect(status, JSON.stringify(body)).toBe(200);
    return body;
  };
  const refusal = async (res: Promise<{ status: number; body: Json }>) => {
    const { status, body } = await res;
    return [status, body.error?.details?.field];
  };
  const person = (p: Person) => ({ id: p.id, email: p.email, name: p.name });
  const mailsTo = (email: string) => mailbox.inbox.filter((d) => d.recipients.includes(email));

  /** A new issue of its own message (one error, below any incident threshold); its id. */
  async function newIssue(message: string): Promise<string> {
    errors += 1;
    await postIngest(t, '/otlp/v1/logs', JSON.stringify(errorLog({ message, atMs: now - errors })));
    await issueDetector(t, clock, { threshold: 1000 }).runOnce();
    const listed = await ok(call('key', 'GET', `/issues?q=${encodeURIComponent(message)}`));
    expect(listed.data).toHaveLength(1);
    return listed.data[0].id as string;
  }
  const newIncident = async (title: string) =>
    (await call('key', 'POST', '/incidents', { title, severity: 'high' })).body.id as string;

  beforeAll(async () => {
    mailbox = await startMailbox({ refused: { 'unreachable@example.com': 550 } });
    receiver = await startReceiver();
    t = await startTestServer(kind, {
      clock,
      log: (line) => logged.push(line),
      detection: false,
      allowPrivateTargets: true,
      secretKey: 'o'.repeat(40),
      outbox: { pollMs: 60_000 },
      mail: { smtpUrl: `smtp://127.0.0.1:${mailbox.port}`, from: 'svc@example.test' },
    });
    const { db } = t.server.database;
    const tenantId = t.server.bootstrap!.tenantId;
    const other = await createProject(db, clock, tenantId, 'elsewhere');
    const strangers = await createTenant(db, clock, 'strangers');
    const make = (email: string, name: string, role: Person['role'], extra: Partial<Person> = {}) =>
      createPerson(db, { tenantId, email, name, role, ...extra } as never, clock);
    people.owner = await make('owner@example.com', 'Olive Owner', 'owner');
    people.bob = await make('bob@example.com', 'Bob Member', 'member');
    people.viewer = await make('viewer@example.com', 'Vic Viewer', 'viewer');
    people.limited = await make('limited@example.com', 'Lim Ited', 'member', { projects: [other] });
    people.stranger = await make('stranger@example.com', 'Stan', 'member', { tenantId: strangers });
    people.unreachable = await make('unreachable@example.com', 'Una', 'member');
  });
  afterAll(async () => {
    await t?.close();
    await mailbox?.close();
    await receiver?.close();
  });

  it('assigns an issue to a member, to "me" and to no one; the list and detail show it; the assignee is mailed', async () => {
    const { owner, bob } = people;
    const id = await newIssue('assign me please');
    const before = await ok(call('key', 'GET', `/issues/${id}`));
    expect([before.assignee, before.assigned_at, before.assigned_by]).toEqual([null, null, null]);

    const assigned = await ok(assign(owner, `/issues/${id}`, bob.id));
    expect(assigned).toMatchObject({
      id,
      assignee: person(bob),
      assigned_at: new Date(now).toISOString(),
      assigned_by: owner.email,
    });
    const { mail } = await eventually('the assignment mail to Bob', async () => mailsTo(bob.email)[0]);
    expect(mail.subject).toBe(`Assigned to you: ${before.type}: ${before.message}`);
    expect(mail.text).toContain(`Olive Owner (owner@example.com) assigned you the issue "${before.type}: `);
    expect(mail.text).toContain(`${t.server.publicUrl}/issue/${id}`);
    expect((await ok(call(bob, 'GET', `/issues/${id}`))).assignee).toEqual(person(bob));
    const row = (await ok(call(bob, 'GET', '/issues?q=assign%20me'))).data[0];
    expect([row.assignee, row.assigned_by]).toEqual([person(bob), owner.email]);

    // The same assignee again: nothing changes, no one is mailed.
    now += MINUTE;
    expect(await ok(assign(bob, `/issues/${id}`, 'me'))).toMatchObject({ assigned_by: owner.email });
    now += MINUTE;
    expect(await ok(assign(owner, `/issues/${id}`, null))).toMatchObject({
      assignee: null,
      assigned_at: new Date(now).toISOString(),
      assigned_by: owner.email,
    });
    // Assigning yourself mails no one; a key assigning someone does, naming the key.
    expect((await ok(assign(bob, `/issues/${id}`, 'me'))).assignee).toEqual(person(bob));
    expect((await ok(assign('key', `/issues/${id}`, owner.id))).assigned_by).toMatch(/^key:/);
    const toOwner = await eventually('the mail to the owner', async () => mailsTo(owner.email)[0]);
    expect(toOwner.mail.text).toMatch(
      /^The key "default control key" assigned you the issue "TypeError: assign me please"/,
    );
    expect(mailsTo(bob.email)).toHaveLength(1);
  });

  it('assigns an incident, shows it in its timeline fields, and mails the assignee', async () => {
    const { owner, bob } = people;
    const id = await newIncident('Checkout fails for everyone');
    const assigned = await ok(assign(owner, `/incidents/${id}`, bob.id));
    expect(assigned).toMatchObject({ id, assignee: person(bob), assigned_by: owner.email });
    expect(assigned.updated_at).toBe(new Date(now).toISOString());
    expect((await ok(call(bob, 'GET', `/incidents/${id}`))).assignee).toEqual(person(bob));
    const { mail } = await eventually('the incident mail', async () =>
      mailsTo(bob.email).find((d) => d.mail.subject?.includes('Checkout fails')),
    );
    expect(mail.subject).toBe('Assigned to you: Checkout fails for everyone');
    expect(mail.text).toContain(`assigned you the incident "Checkout fails for everyone" in the project`);
    expect(mail.text).toContain(`${t.server.publicUrl}/incident/${id}`);
    expect((await ok(assign(bob, `/incidents/${id}`, null))).assignee).toBeNull();
  });

  it('refuses what is not a member who may act on the project (400 naming assignee), and a viewer (403)', async () => {
    const { owner, viewer, limited, stranger } = people;
    const issue = await newIssue('refusals');
    const incident = await newIncident('Refusals');
    for (const what of [`/issues/${issue}`, `/incidents/${incident}`]) {
      expect(await refusal(assign('key', what, 'me'))).toEqual([400, 'assignee']);
      expect(await refusal(assign(owner, what, 'no-such-user'))).toEqual([400, 'assignee']);
      expect(await refusal(assign(owner, what, stranger.id))).toEqual([400, 'assignee']);
      expect(await refusal(assign(owner, what, limited.id))).toEqual([400, 'assignee']);
      expect(await refusal(assign(owner, what, 42))).toEqual([400, 'assignee']);
      expect(await refusal(call(owner, 'PUT', `${what}/assignee`, {}))).toEqual([400, 'assignee']);
      expect(await refusal(call(owner, 'PUT', `${what}/assignee`, { assignee: null, extra: 1 }))).toEqual([
        400,
        'extra',
      ]);
      expect((await assign(viewer, what, 'me')).status).toBe(403);
      expect((await ok(call(owner, 'GET', what))).assignee).toBeNull();
    }
    expect((await assign(owner, '/issues/0123456789abcdef', owner.id)).status).toBe(404);
    expect((await assign(owner, '/incidents/inc_missing', owner.id)).status).toBe(404);
    expect(await refusal(call('key', 'GET', '/issues?assignee=me'))).toEqual([400, 'assignee']);
    expect(await refusal(call('key', 'GET', '/incidents?assignee=me'))).toEqual([400, 'assignee']);
  });

  /** Every page of a listing, `limit` at a time, following `next_cursor`. */
  async function allPages(as: As, path: string): Promise<string[]> {
    const ids: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Json = await ok(call(as, 'GET', `${path}&limit=2${cursor ? `&cursor=${cursor}` : ''}`));
      expect(page.data.length).toBeLessThanOrEqual(2);
      ids.push(...page.data.map((r: Json) => r.id as string));
      cursor = page.next_cursor as string | null;
    } while (cursor);
    return ids;
  }

  it('filters issues and incidents by assignee (me, none, a user id) across pages', async () => {
    const { owner, bob } = people;
    const issues = [];
    // Words, not numbers: numbers in messages are normalised away, so errors differing only in them are one issue.
    const names = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
    for (const name of names) issues.push(await newIssue(`filtered issue ${name}`));
    const incidents = [];
    for (const name of names.slice(0, 4)) incidents.push(await newIncident(`Filtered incident ${name}`));
    for (const id of issues.slice(0, 3)) await ok(assign(owner, `/issues/${id}`, bob.id));
    await ok(assign(owner, `/issues/${issues[3]}`, 'me'));
    for (const id of incidents.slice(0, 3)) await ok(assign(owner, `/incidents/${id}`, bob.id));

    const q = '/issues?q=filtered%20issue';
    expect((await allPages(bob, `${q}&assignee=me`)).sort()).toEqual(issues.slice(0, 3).sort());
    expect(await allPages('key', `${q}&assignee=${bob.id}`)).toEqual(await allPages(bob, `${q}&assignee=me`));
    expect(await allPages(owner, `${q}&assignee=me`)).toEqual([issues[3]]);
    expect(await allPages(owner, `${q}&assignee=none`)).toEqual([issues[4]]);
    const mine = await allPages(bob, '/incidents?assignee=me&sort=detected');
    expect(mine.sort()).toEqual(incidents.slice(0, 3).sort());
    expect(await allPages(owner, '/incidents?assignee=none')).toContain(incidents[3]);
    expect(await allPages(owner, '/incidents?assignee=none')).not.toContain(incidents[0]);
  });

  it('leaves exactly one audit entry per assignment, with the assignee before and after', async () => {
    const { owner, bob } = people;
    const issue = await newIssue('audited assignment');
    const incident = await newIncident('Audited assignment');
    const entries = async (what: string, id: string) =>
      (
        await ok(
          call(
            owner,
            'GET',
            `/audit?operation=${encodeURIComponent(`PUT /control-plane/${what}/{id}/assignee`)}&target_id=${id}`,
          ),
        )
      ).data.map((e: Json) => [e.actor.label, e.target, e.changes, e.status]);
    await ok(assign(owner, `/issues/${issue}`, bob.id));
    expect(await refusal(assign('key', `/issues/${issue}`, 'me'))).toEqual([400, 'assignee']);
    await ok(assign(owner, `/issues/${issue}`, null));
    await ok(assign(bob, `/incidents/${incident}`, 'me'));
    const target = (type: string, id: string) => ({ type, id });
    expect(await entries('issues', issue)).toEqual([
      [owner.email, target('issue', issue), { before: { assignee: bob.email }, after: { assignee: null } }, 200],
      [owner.email, target('issue', issue), { before: { assignee: null }, after: { assignee: bob.email } }, 200],
    ]);
    expect(await entries('incidents', incident)).toEqual([
      [bob.email, target('incident', incident), { before: { assignee: null }, after: { assignee: bob.email } }, 200],
    ]);
  });

  it('routes notifications by assignee: regressions and detected incidents of Bob’s issues reach his channel', async () => {
    const { owner, bob } = people;
    const channels = await routeByAssignee(bob);
    const owned = await newIssue('owned regression');
    const loose = await newIssue('loose regression');
    await ok(assign(owner, `/issues/${owned}`, bob.id));
    for (const id of [owned, loose]) await ok(call('key', 'PATCH', `/issues/${id}`, { status: 'resolved' }));
    now += MINUTE;
    for (const message of ['owned regression', 'loose regression'])
      await postIngest(t, '/otlp/v1/logs', JSON.stringify(errorLog({ message, atMs: now })));
    await issueDetector(t, clock, { threshold: 1000 }).runOnce();

    const hot = await newIssue('hot path');
    await ok(assign(owner, `/issues/${hot}`, bob.id));
    now += MINUTE;
    for (const n of [1, 2, 3])
      await postIngest(t, '/otlp/v1/logs', JSON.stringify(errorLog({ message: 'hot path', atMs: now - n })));
    await notifyingDetector().runOnce();
    const detected = (await ok(call(bob, 'GET', '/incidents?assignee=me'))).data.find(
      (i: Json) => i.fingerprint === hot,
    );
    expect(detected).toMatchObject({ assignee: person(bob), assigned_by: 'detector' });
    const unowned = await newIncident('Nobody owns this');

    const sent = async (channel: string) =>
      (await ok(call('key', 'GET', `/notifications/deliveries?channel_id=${channel}`))).data
        .map((d: Json) => `${d.event} ${d.issue_id ?? d.incident_id}`)
        .sort();
    expect(await sent(channels.bob)).toEqual([`incident.created ${detected.id}`, `issue.regressed ${owned}`]);
    expect(await sent(channels.nobody)).toEqual([`incident.created ${unowned}`, `issue.regressed ${loose}`]);
    for (const rule of channels.rules)
      expect((await call('key', 'DELETE', `/notifications/rules/${rule}`)).status).toBe(204);
  });

  /** A webhook channel for Bob's and one for unassigned incidents and issues, each with its rule. */
  async function routeByAssignee(bob: Person) {
    const created = async (path: string, body: unknown) => {
      const res = await call('key', 'POST', path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const channel = async (name: string) =>
      (await created('/notifications/channels', { type: 'webhook', name, config: { url: `${receiver.url}/${name}` } }))
        .id as string;
    const rule = async (name: string, assignees: string[], channelId: string) => {
      const made = await created('/notifications/rules', { name, conditions: { assignees }, channels: [channelId] });
      expect(made.conditions).toEqual({ assignees });
      return made.id as string;
    };
    const bobs = await channel('bobs');
    const nobodys = await channel('nobodys');
    const refused = await call('key', 'POST', '/notifications/rules', {
      name: 'stranger',
      conditions: { assignees: ['unassigned', people.stranger.id] },
      channels: [bobs],
    });
    expect([refused.status, refused.body.error.details]).toEqual([400, { field: 'conditions.assignees[1]' }]);
    const rules = [await rule('bob', [bob.id], bobs), await rule('nobody', ['unassigned'], nobodys)];
    return { bob: bobs, nobody: nobodys, rules };
  }

  /** The detector opening incidents through the server's own incident store, whose events schedule deliveries. */
  const notifyingDetector = () =>
    createDetector({
      db: t.server.database.db,
      clock,
      commands: t.server.notify.incidents,
      publicUrl: t.server.publicUrl,
      box: t.server.notify.box,
      symbolicator: createSymbolicator({ db: t.server.database.db }),
      options: { threshold: 3 },
    });

  it('clears the assignments of a member removed from the organisation', async () => {
    const { owner } = people;
    const leaver = await createPerson(
      t.server.database.db,
      { tenantId: t.server.bootstrap!.tenantId, email: 'leaver@example.com', name: 'Lee Ver', role: 'member' },
      clock,
    );
    const issue = await newIssue('left behind');
    const incident = await newIncident('Left behind');
    await ok(assign('key', `/issues/${issue}`, leaver.id));
    await ok(assign('key', `/incidents/${incident}`, leaver.id));
    now += MINUTE;
    expect((await call(owner, 'DELETE', `/members/${leaver.id}`)).status).toBe(204);
    for (const what of [`/issues/${issue}`, `/incidents/${incident}`]) {
      const after = await ok(call(owner, 'GET', what));
      expect([after.assignee, after.assigned_by, after.assigned_at]).toEqual([
        null,
        owner.email,
        new Date(now).toISOString(),
      ]);
    }
    expect((await ok(call('key', 'GET', `/issues?assignee=${leaver.id}`))).data).toEqual([]);
    expect(await refusal(assign(owner, `/issues/${issue}`, leaver.id))).toEqual([400, 'assignee']);
  });

  it('logs a mail the SMTP server refuses, and the assignment stands', async () => {
    const { owner, unreachable } = people;
    const issue = await newIssue('unmailable');
    expect((await ok(assign(owner, `/issues/${issue}`, unreachable.id))).assignee).toEqual(person(unreachable));
    const line = await eventually('the refused mail in the log', async () =>
      logged.find((l) => l.includes('unreachable@example.com') && l.includes('not mailed')),
    );
    expect(line).toContain(`/issue/${issue}`);
    expect((await ok(call('key', 'GET', `/issues/${issue}`))).assignee).toEqual(person(unreachable));
  });
});
