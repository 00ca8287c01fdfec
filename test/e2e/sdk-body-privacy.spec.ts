import type { Page } from '@playwright/test';
import { ensureSdkBuilt } from '../support/build-sdk';
import { serveLocally, type LocalServer } from '../support/local-server';
import { RANDOM_TOKEN, STRIPE_KEY, VISA, JWT } from '../support/secrets';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';

/**
 * Privacy of recorded request and response bodies (issue 17), with the real SDK bundle (dist/cdn/svc.min.js) in
 * Chromium and the recipe steps read back from the real server: values are redacted whatever their key (emails,
 * phone numbers, card numbers, JWTs, bearer tokens, API keys) in JSON, form and text bodies; `replay.networkBodies:
 * 'none'` keeps no body; a cross-origin body is kept only when its URL is listed in `replay.networkBodyUrls`.
 */

let app: SdkPageServer;
/** A third-party API on another origin: answers JSON carrying an email, so a recorded response body shows. */
let api: LocalServer;

const R = '[REDACTED]';
const EMAIL = 'ann.lee@example.com';
const PHONE = '+44 20 7946 0958';

test.beforeAll(async () => {
  await ensureSdkBuilt();
  app = await startSdkPage();
  api = await serveLocally((req, res) => {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': '*',
      'access-control-allow-methods': 'GET, POST',
    };
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors).end();
      return;
    }
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { ...cors, 'content-type': 'application/json' });
      res.end(JSON.stringify({ owner: EMAIL, ok: true }));
    });
  });
});
test.afterAll(async () => {
  await app.close();
  await api.close();
});

/** Opens a page whose SDK has `replay` (a JavaScript object literal, so it can hold RegExps). */
async function open(page: Page, ingest: TestServer, replay: string): Promise<string[]> {
  const config = JSON.stringify({
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl: ingest.url,
    flushIntervalMs: 100,
  });
  app.setHtml(`<!doctype html><html><head><title>bodies</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(Object.assign(${config}, { replay: Object.assign({ flushIntervalMs: 200 }, ${replay}) }));</script>
</head><body><p>bodies</p></body></html>`);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${app.origin}/`);
  return errors;
}

type Step = Record<string, any> & { method: string; url: string; status: number };

/** The session's stored recipe steps once there are `count`, by URL; flushes the page's replay buffer between reads. */
async function recipes(page: Page, ingest: TestServer, count: number): Promise<Map<string, Step>> {
  const sessionId = await page.evaluate(() => (window as any).sdk.sessionId as string);
  let steps: Step[] = [];
  await expect
    .poll(
      async () => {
        await page.evaluate(() => (window as any).sdk.flushReplay());
        steps = (await controlGet<{ data: Step[] }>(ingest, `/recipes?session_id=${sessionId}&limit=100`)).body.data;
        return steps.length;
      },
      { message: 'recipe steps stored', timeout: 15_000 },
    )
    .toBe(count);
  return new Map(steps.map((step) => [step.url, step]));
}

test('values are redacted from JSON, form and text bodies, whatever their key', async ({ page, ingest }) => {
  const errors = await open(page, ingest, '{}');
  await page.evaluate(
    async (v) => {
      await (
        await fetch('/api/echo?kind=json', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-client-note': `by ${v.EMAIL}` },
          body: JSON.stringify({
            contact: v.EMAIL,
            profile: { id: 42, jwt: v.JWT },
            memo: `paid with ${v.VISA}`,
            phone: v.PHONE,
            year: 2024,
          }),
        })
      ).text();
      await new Promise<void>((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open('POST', '/api/echo?kind=form');
        xhr.setRequestHeader('content-type', 'application/x-www-form-urlencoded');
        xhr.onloadend = () => resolve();
        xhr.send(new URLSearchParams({ name: 'Ann', contact: v.EMAIL, tel: v.PHONE, qty: '3' }).toString());
      });
      const text = `GET /account HTTP/1.1\nAuthorization: Bearer ${v.RANDOM_TOKEN}\nX-Key: ${v.STRIPE_KEY}\nOrder 12345 for ${v.EMAIL}`;
      await (
        await fetch('/api/echo?kind=text', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: text })
      ).text();
    },
    { EMAIL, JWT, VISA, PHONE, STRIPE_KEY, RANDOM_TOKEN },
  );
  const steps = await recipes(page, ingest, 3);
  expect(errors).toEqual([]);

  const stored = JSON.stringify([...steps.values()]);
  for (const secret of [EMAIL, JWT, VISA, PHONE, STRIPE_KEY, RANDOM_TOKEN, encodeURIComponent(EMAIL)])
    expect(stored).not.toContain(secret);

  const json = steps.get(`${app.origin}/api/echo?kind=json`)!;
  expect(JSON.parse(json.requestBody), 'valid JSON, same keys, values redacted').toEqual({
    contact: R,
    profile: { id: 42, jwt: R },
    memo: `paid with ${R}`,
    phone: R,
    year: 2024,
  });
  expect(json.requestHeaders['x-client-note'], 'header values too').toBe(`by ${R}`);

  const form = steps.get(`${app.origin}/api/echo?kind=form`)!;
  expect(form.requestBody).toBe(`name=Ann&contact=${encodeURIComponent(R)}&tel=${encodeURIComponent(R)}&qty=3`);

  const text = steps.get(`${app.origin}/api/echo?kind=text`)!;
  expect(text.requestBody).toBe(`GET /account HTTP/1.1\nAuthorization: Bearer ${R}\nX-Key: ${R}\nOrder 12345 for ${R}`);
});

test("networkBodies: 'none' keeps no body, and the rest of the step", async ({ page, ingest }) => {
  const errors = await open(page, ingest, "{ networkBodies: 'none' }");
  await page.evaluate(async (email) => {
    await (
      await fetch('/api/echo?kind=none', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ note: 'plain' }),
      })
    ).text();
    await new Promise<void>((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', '/api/echo?kind=none-xhr');
      xhr.onloadend = () => resolve();
      xhr.send(`contact=${email}`);
    });
  }, EMAIL);
  const steps = await recipes(page, ingest, 2);
  expect(errors).toEqual([]);
  for (const url of [`${app.origin}/api/echo?kind=none`, `${app.origin}/api/echo?kind=none-xhr`]) {
    const step = steps.get(url)!;
    expect(step).toMatchObject({
      method: 'POST',
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
    });
    expect(step.requestHeaders, 'headers still recorded').toHaveProperty('traceparent');
    // The server stores an absent body as null.
    for (const key of ['requestBody', 'responseBody']) expect(step[key] ?? null, `${url} ${key}`).toBeNull();
  }
});

test('a cross-origin body is recorded only when its URL is listed in networkBodyUrls', async ({ page, ingest }) => {
  const errors = await open(
    page,
    ingest,
    `{ networkBodyUrls: [${JSON.stringify(`${api.origin}/listed`)}, /\\/by-regexp$/] }`,
  );
  await page.evaluate(async (origin) => {
    const post = async (url: string) =>
      (await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'note=hello' })).text();
    await post(`${origin}/listed/a`);
    await post(`${origin}/listedness`);
    await post(`${origin}/other`);
    await post(`${origin}/by-regexp`);
    await new Promise<void>((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open('POST', `${origin}/xhr`);
      xhr.onloadend = () => resolve();
      xhr.send('note=hello');
    });
  }, api.origin);
  const steps = await recipes(page, ingest, 5);
  expect(errors).toEqual([]);

  for (const path of ['/listed/a', '/by-regexp']) {
    expect(steps.get(`${api.origin}${path}`), path).toMatchObject({
      requestBody: 'note=hello',
      responseBody: `{"owner":"${R}","ok":true}`,
    });
  }
  for (const path of ['/listedness', '/other', '/xhr']) {
    const step = steps.get(`${api.origin}${path}`)!;
    expect(step, path).toMatchObject({ method: 'POST', status: 200 });
    expect(step.requestBody ?? null, `${path} request body`).toBeNull();
    expect(step.responseBody ?? null, `${path} response body`).toBeNull();
  }
});
