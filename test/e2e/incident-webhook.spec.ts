import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { ROOT, ensureSdkBuilt } from '../support/build-sdk';
import { childEnv } from '../support/child-env';
import { EXAMPLES, freePort, startServerProcess, type RunningApp } from '../support/examples';
import { startReceiver, type Received, type Receiver } from '../support/receiver';
import { controlGet, startCliServer, type TestServer } from '../support/svc-server';

/**
 * Issue 5 end to end: the CDN example shop (examples/cdn, its own server.js and page) throws the same uncaught error
 * five times; the SDK's error handler reports each; the reference server's detector (its own 10-second schedule, the
 * default threshold of 5 errors in 5 minutes) opens an incident; a rule sends it to a webhook channel; the receiver
 * gets exactly the SPEC 2.6 payload, signed with Standard Webhooks headers; its `dashboard_url` opens the incident in
 * the browser, with the error and its evidence, and the page's Acknowledge button acknowledges it.
 */

const ERROR_MESSAGE = 'Checkout button exploded';
const THROWS = 5;
const ENV = 'staging';
const SPEC_2_6_KEYS = [
  'dashboard_url',
  'env',
  'event',
  'incident_id',
  'root_cause_summary',
  'services',
  'severity',
  'title',
];

type LogRow = { attributes: Record<string, unknown> };
type Payload = {
  event: string;
  incident_id: string;
  severity: string;
  title: string;
  services: string[];
  env: string;
  root_cause_summary: string;
  dashboard_url: string;
};
type Incident = {
  id: string;
  status: string;
  severity: string;
  title: string;
  source: string;
  acknowledged_by: string | null;
  evidence: {
    error_type: string;
    message: string;
    error_count: number;
    affected_sessions: number;
    sessions: Array<{ session_id: string }>;
  } | null;
};

/**
 * Serves the CDN example with its own server.js, unchanged, and the SDK build of this checkout: `@svc/browser` is
 * found through NODE_PATH, linked to the repository root, instead of through an `npm install` of the packed tarball
 * (which ships these same dist/cdn files). An installed example (examples/cdn/node_modules) takes precedence.
 */
async function startCdnExample(ingest: TestServer): Promise<RunningApp> {
  const modules = mkdtempSync(join(tmpdir(), 'svc-cdn-example-'));
  mkdirSync(join(modules, '@svc'));
  symlinkSync(ROOT, join(modules, '@svc', 'browser'), 'dir');
  const port = await freePort();
  try {
    const app = await startServerProcess({
      cwd: EXAMPLES.cdn.dir,
      command: process.execPath,
      args: ['server.js'],
      env: childEnv({
        SVC_API_KEY: ingest.ingestKey,
        SVC_INGEST_URL: ingest.url,
        SVC_ENV: ENV,
        PORT: String(port),
        NODE_PATH: modules,
      }),
      port,
      readyPaths: ['/', '/svc.min.js'],
    });
    return { ...app, stop: () => app.stop().finally(() => rmSync(modules, { recursive: true, force: true })) };
  } catch (error) {
    rmSync(modules, { recursive: true, force: true });
    throw error;
  }
}

let ingest: TestServer;
let receiver: Receiver;
let app: RunningApp;

test.beforeAll(async () => {
  // Builds dist/ with rollup when the sources changed since the last build.
  test.setTimeout(300_000);
  await ensureSdkBuilt();
  // Default detection thresholds and schedule; private targets allowed for the receiver on 127.0.0.1.
  ingest = await startCliServer({ 'allow-private-targets': 'true' });
  receiver = await startReceiver();
  app = await startCdnExample(ingest);
});

test.afterAll(async () => {
  await app?.stop();
  await receiver?.close();
  await ingest?.close();
});

async function post<T>(path: string, body: unknown): Promise<{ status: number; body: T }> {
  const res = await fetch(`${ingest.url}/control-plane${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ingest.controlKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

async function incident(id: string): Promise<Incident> {
  const res = await controlGet<Incident>(ingest, `/incidents/${id}`);
  expect(res.status, `GET /control-plane/incidents/${id}`).toBe(200);
  return res.body;
}

const eventOf = (request: Received) => (JSON.parse(request.body) as Payload).event;

/** Waits for the receiver to get `event`, once; the detector runs every 10 s, so the first one may take that long. */
async function webhookOf(event: string, timeout: number): Promise<{ request: Received; payload: Payload }> {
  await expect
    .poll(() => receiver.received.map(eventOf), {
      message: `the receiver got ${event}`,
      timeout,
      intervals: [250, 500, 1000],
    })
    .toContain(event);
  const requests = receiver.received.filter((r) => eventOf(r) === event);
  expect(requests, `one ${event} request`).toHaveLength(1);
  return { request: requests[0]!, payload: JSON.parse(requests[0]!.body) as Payload };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The signed incident page of the server (`?p=…&exp=…&sig=…`). */
const dashboardLink = (incidentId: string) =>
  expect.stringMatching(new RegExp(`^${escapeRegExp(`${ingest.url}/incidents/${incidentId}?p=`)}`));

/** Standard Webhooks: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the base64-decoded `whsec_` secret. */
function expectSigned(request: Received, secret: string): void {
  const id = request.headers['webhook-id'];
  const timestamp = request.headers['webhook-timestamp'];
  expect(id, 'webhook-id').toEqual(expect.stringMatching(/\S/));
  expect(Math.abs(Number(timestamp) - Date.now() / 1000), 'webhook-timestamp is now, in seconds').toBeLessThan(60);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = createHmac('sha256', key)
    .update(`${String(id)}.${String(timestamp)}.${request.body}`)
    .digest('base64');
  expect(request.headers['webhook-signature']).toBe(`v1,${signature}`);
  expect(request.headers['content-type']).toBe('application/json');
}

/** Clicks the shop's Throw button `times` times and returns the session id the page shows. */
async function throwInTheShop(page: Page, times: number): Promise<string> {
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto(app.origin);
  await expect(page.getByRole('heading', { name: /^Shop/ })).toBeVisible();
  await expect(page.getByTestId('session')).toHaveText(/\S/);
  for (let i = 0; i < times; i++) await page.getByRole('button', { name: 'Throw' }).click();
  await expect
    .poll(() => pageErrors, { message: 'the uncaught errors reached the page' })
    .toEqual(Array<string>(times).fill(ERROR_MESSAGE));
  return (await page.getByTestId('session').textContent())!.trim();
}

test('an example app throwing one error five times opens an incident, the webhook gets SPEC 2.6, and its dashboard link acknowledges it', async ({
  page,
}) => {
  test.setTimeout(60_000);
  let secret = '';
  let sessionId = '';
  let created: Payload;

  await test.step('a webhook channel and a rule sending the app’s incidents there at once', async () => {
    const channel = await post<{ id: string; signing_secret: string }>('/notifications/channels', {
      type: 'webhook',
      name: 'on-call hook',
      config: { url: `${receiver.url}/hooks/svc` },
    });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    secret = channel.body.signing_secret;
    const rule = await post('/notifications/rules', {
      name: `${ingest.appName} in ${ENV}`,
      conditions: { env: [ENV], services: [ingest.appName] },
      channels: [channel.body.id],
      delay_seconds: 0,
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
  });

  await test.step(`the shop throws the same uncaught error ${THROWS} times and the SDK reports each`, async () => {
    sessionId = await throwInTheShop(page, THROWS);
    await expect
      .poll(
        async () => {
          const logs = await controlGet<{ data: LogRow[] }>(
            ingest,
            `/logs?session_id=${encodeURIComponent(sessionId)}&limit=100`,
          );
          return logs.body.data.filter(
            (r) => r.attributes['exception.message'] === ERROR_MESSAGE && r.attributes['log.source'] === 'onerror',
          ).length;
        },
        { message: 'the uncaught errors stored as error logs', timeout: 10_000, intervals: [250, 500, 1000] },
      )
      .toBe(THROWS);
  });

  await test.step('the detector opens an incident and the receiver gets exactly the SPEC 2.6 payload, signed', async () => {
    const { request, payload } = await webhookOf('incident.created', 25_000);
    created = payload;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/hooks/svc');
    expectSigned(request, secret);
    expect(Object.keys(payload).sort()).toEqual(SPEC_2_6_KEYS);
    expect(payload).toEqual({
      event: 'incident.created',
      incident_id: expect.stringMatching(/\S/),
      // One session throwing: one user stuck, not an outage.
      severity: 'medium',
      title: expect.stringContaining(`Error: ${ERROR_MESSAGE}`),
      services: [ingest.appName],
      env: ENV,
      root_cause_summary: expect.stringContaining(`Error: ${ERROR_MESSAGE}`),
      dashboard_url: dashboardLink(payload.incident_id),
    });
    expect(payload.root_cause_summary).toContain(`${THROWS} times`);

    const stored = await incident(payload.incident_id);
    expect(stored).toMatchObject({
      status: 'detected',
      source: 'detector',
      severity: payload.severity,
      title: payload.title,
    });
    expect(stored.evidence).toMatchObject({
      error_type: 'Error',
      message: ERROR_MESSAGE,
      error_count: THROWS,
      affected_sessions: 1,
      sessions: [{ session_id: sessionId }],
    });
  });

  await test.step('the dashboard URL opens the incident with the error and its evidence', async () => {
    await page.goto(created.dashboard_url);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(created.title);
    await expect(page.locator('dt:text-is("Error") + dd')).toHaveText(`Error: ${ERROR_MESSAGE}`);
    await expect(page.locator('dt:text-is("Occurrences") + dd')).toHaveText(String(THROWS));
    await expect(page.locator('dt:text-is("Affected sessions") + dd')).toHaveText('1');
    await expect(page.getByRole('cell', { name: sessionId, exact: true })).toBeVisible();
    await expect(page.getByText(created.root_cause_summary, { exact: true })).toBeVisible();
  });

  await test.step('its Acknowledge button acknowledges the incident, and the webhook hears of it', async () => {
    await page.getByRole('button', { name: 'Acknowledge' }).click();
    await expect(page.getByRole('heading', { name: 'Incident acknowledged' })).toBeVisible();
    expect(await incident(created.incident_id)).toMatchObject({ status: 'acknowledged', acknowledged_by: 'link' });

    const { request, payload } = await webhookOf('incident.acknowledged', 10_000);
    expectSigned(request, secret);
    // The same incident; its dashboard link is signed anew for each notice (a fresh expiry).
    expect(payload).toEqual({
      ...created,
      event: 'incident.acknowledged',
      dashboard_url: dashboardLink(created.incident_id),
    });
    expect(receiver.received, 'one notification per event').toHaveLength(2);

    await page.goto(created.dashboard_url);
    await expect(page.locator('dt:text-is("Acknowledged") + dd')).toContainText('by link');
    await expect(page.getByRole('button', { name: 'Acknowledge' })).toHaveCount(0);
  });
});
