import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { EXAMPLES, copyExample, formatTimings, prepareExample, viteReactIn, type Example, type SdkSettings, type Timed } from '../../support/examples';
import { startReceiver, type Receiver } from '../../support/receiver';
import type { TestServer } from '../../support/svc-server';
import { ALIAS, startIngest } from './scenario';
import { COUPON_ERROR, expectReadableTopFrame, getIssue, throwFromSecondModule, waitForCouponIssue, type Issue } from './readable-errors';

/**
 * Issue 15's redeploy proofs on the Vite example, the fastest to build: rebuilt with an unrelated change (new file
 * hashes, new debug IDs), its error joins the issue it had before; resolved "in the next release", then deployed as a
 * new release, the same error regresses the issue and the webhook of a notification rule hears `issue.regressed`.
 * It works on a copy of the example (copyExample), so its edits never reach the example's own spec, which may be
 * building at the same time.
 */

const ENV = 'staging';
const COUPONS = { path: 'src/coupons.ts', mapName: 'src/coupons.ts' };

interface Payload {
  event: string;
  issue_id: string;
  severity: string;
  title: string;
  services: string[];
  env: string;
  root_cause_summary: string;
  dashboard_url: string;
}

let ingest: TestServer;
let receiver: Receiver;
let copy: { dir: string; remove(): void };
let example: Example;
const timings: Timed[] = [];

test.beforeAll(async () => {
  // A cold install of the example, on two shared cores.
  test.setTimeout(600_000);
  // Private targets allowed: the receiver listens on 127.0.0.1.
  ingest = await startIngest({ 'allow-private-targets': 'true' });
  receiver = await startReceiver();
  timings.push(...(await prepareExample(EXAMPLES['vite-react'])));
  copy = copyExample(EXAMPLES['vite-react']);
  example = viteReactIn(copy.dir);
});

test.afterAll(async () => {
  console.log(formatTimings('vite-react redeploys', timings));
  copy?.remove();
  await receiver?.close();
  await ingest?.close();
});

async function controlRequest<T>(method: 'POST' | 'PATCH', path: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${ingest.url}/control-plane${path}`, {
    method,
    headers: { authorization: `Bearer ${ingest.controlKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** The JavaScript files a build wrote (their names carry the content hash). */
const scriptsOf = (dir: string) => readdirSync(join(dir, 'dist', 'assets')).filter((file) => file.endsWith('.js')).sort();

/** Builds the copy as `release` (uploading its maps), serves it, and throws the coupon error in `page`. */
async function deployAndThrow(page: Page, release: string): Promise<string[]> {
  const settings: SdkSettings = { ingestUrl: ingest.url, apiKey: ingest.ingestKey, serviceName: ALIAS, env: ENV, release };
  timings.push(await example.build(settings, { serverUrl: ingest.url, controlKey: ingest.controlKey }));
  const app = await example.start('production', settings);
  try {
    await throwFromSecondModule(page, app.origin);
  } catch (error) {
    await test.info().attach(`release ${release} server output`, { body: app.output(), contentType: 'text/plain' });
    throw error;
  } finally {
    await app.stop();
  }
  return scriptsOf(copy.dir);
}

/** The top frame's script URL, for telling the builds apart. */
const topScript = (issue: Issue) => issue.stack.frames[0]?.url ?? '';

test('a rebuild with new hashes keeps the issue; resolved, then thrown in a new release, it regresses and the webhook hears it', async ({ page }) => {
  test.setTimeout(300_000);
  let issue: Issue;
  let firstScripts: string[] = [];

  await test.step('a webhook channel, and a rule sending the app’s notices there at once', async () => {
    const channel = await controlRequest<{ id: string }>('POST', '/notifications/channels', { type: 'webhook', name: 'issues hook', config: { url: `${receiver.url}/hooks/issues` } });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    const rule = await controlRequest('POST', '/notifications/rules', {
      name: `${ingest.appName} in ${ENV}`,
      conditions: { env: [ENV], services: [ingest.appName] },
      channels: [channel.body.id],
      delay_seconds: 0,
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  });

  await test.step('release 1.0.0: the coupon error is an issue that reads at its source', async () => {
    firstScripts = await deployAndThrow(page, '1.0.0');
    issue = await waitForCouponIssue(ingest, 'the coupon error stored as an issue', (found) => found.events === 1);
    expectReadableTopFrame(issue, copy.dir, COUPONS);
    expect(issue).toMatchObject({ status: 'unresolved', first_seen: { release: '1.0.0' }, last_seen: { release: '1.0.0' } });
  });

  await test.step('an unrelated change, rebuilt (new hashes): the next error joins the same issue', async () => {
    const app = join(copy.dir, 'src', 'App.tsx');
    const source = readFileSync(app, 'utf8');
    expect(source).toContain('<p>Price: 42 €</p>');
    writeFileSync(app, source.replace('<p>Price: 42 €</p>', '<p>Price: 39 €</p>'));
    const scripts = await deployAndThrow(page, '1.0.0');
    expect(scripts, 'the rebuild gave the changed bundle a new name').not.toEqual(firstScripts);

    const before = topScript(issue);
    issue = await waitForCouponIssue(ingest, 'the second error counted in the same issue', (found) => found.events === 2);
    expect(topScript(issue), 'the newest error came from the rebuilt bundle').not.toBe(before);
    expectReadableTopFrame(issue, copy.dir, COUPONS);
  });

  await test.step('resolved in the next release', async () => {
    const resolved = await controlRequest<Issue>('PATCH', `/issues/${issue.id}`, { status: 'resolved', in_next_release: true });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    expect((await getIssue(ingest, issue.id)).status).toBe('resolved');
  });

  await test.step('release 1.1.0 throws again: the issue regresses, and the webhook gets issue.regressed', async () => {
    await deployAndThrow(page, '1.1.0');
    const regressed = await waitForCouponIssue(ingest, 'the issue regressed', (found) => found.status === 'regressed');
    expect(regressed).toMatchObject({ id: issue.id, events: 3, last_seen: { release: '1.1.0' } });

    await expect
      .poll(() => receiver.received.map((request) => (JSON.parse(request.body) as Payload).event), { message: 'the receiver got issue.regressed', timeout: 15_000 })
      .toContain('issue.regressed');
    const notices = receiver.received.map((request) => JSON.parse(request.body) as Payload).filter((payload) => payload.event === 'issue.regressed');
    expect(notices, 'one issue.regressed notice').toHaveLength(1);
    expect(notices[0]).toEqual({
      event: 'issue.regressed',
      issue_id: issue.id,
      severity: 'warning',
      title: expect.stringContaining(COUPON_ERROR),
      services: [ingest.appName],
      env: ENV,
      root_cause_summary: expect.stringContaining('1.1.0'),
      dashboard_url: expect.stringContaining(issue.id),
    });
  });
});
