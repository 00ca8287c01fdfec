import type { Page } from '@playwright/test';
import { ensureSdkBuilt } from '../support/build-sdk';
import { JWT, RANDOM_TOKEN } from '../support/secrets';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';

/**
 * No secrets in URLs (issue 32; docs/ingest.md, "Secrets in URLs"), with the real SDK bundle in Chromium and the built
 * server: a page opened at `?session_token=<token>&q=shoes` fetches an API with the token, a JWT and an e-mail in its
 * query. The SDK sends the URLs as they are; what the server stored (recipes, spans, replay events) and the session's
 * Playwright export hold none of the three values, and keep `q=shoes` and every parameter name.
 */

let app: SdkPageServer;
const EMAIL = 'ann.lee@example.com';
const SECRETS = [RANDOM_TOKEN, JWT, EMAIL, encodeURIComponent(EMAIL)];

test.beforeAll(async () => {
  await ensureSdkBuilt();
  app = await startSdkPage();
});
test.afterAll(() => app.close());

async function open(page: Page, ingest: TestServer): Promise<string> {
  const config = JSON.stringify({
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl: ingest.url,
    flushIntervalMs: 100,
    replay: { flushIntervalMs: 200 },
  });
  app.setHtml(`<!doctype html><html><head><title>search</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${config});</script></head><body><p>search</p></body></html>`);
  await page.goto(`${app.origin}/search?session_token=${RANDOM_TOKEN}&q=shoes`);
  return page.evaluate(() => (window as any).sdk.sessionId as string);
}

/** The text of a control-plane listing once `ready` accepts it; flushes the page's replay buffer between reads. */
async function stored(page: Page, ingest: TestServer, path: string, ready: (text: string) => boolean): Promise<string> {
  let text = '';
  await expect
    .poll(
      async () => {
        await page.evaluate(() => (window as any).sdk.flushReplay());
        text = JSON.stringify((await controlGet(ingest, path)).body);
        return ready(text);
      },
      { message: `${path} stored`, timeout: 15_000 },
    )
    .toBe(true);
  return text;
}

test('the server stores no secret of a URL the SDK sent, and its Playwright export holds none', async ({
  page,
  ingest,
}) => {
  const sessionId = await open(page, ingest);
  await page.evaluate(
    async (v) => {
      const query = `session_token=${v.RANDOM_TOKEN}&q=shoes&ref=${v.JWT}&to=${v.EMAIL}`;
      await (await fetch(`/api/echo?${query}`)).text();
    },
    { RANDOM_TOKEN, JWT, EMAIL },
  );
  const api = '/api/echo?session_token=[REDACTED]&q=shoes&ref=[REDACTED]&to=[REDACTED]';
  const texts = [
    await stored(page, ingest, `/recipes?session_id=${sessionId}&limit=100`, (t) => t.includes('/api/echo')),
    await stored(page, ingest, `/spans?session_id=${sessionId}&limit=100`, (t) => t.includes('/api/echo')),
    await stored(page, ingest, `/replay/chunks?session_id=${sessionId}&limit=100`, (t) => t.includes('/api/echo')),
  ];
  for (const text of texts) {
    for (const secret of SECRETS) expect(text, secret).not.toContain(secret);
    expect(text).toContain(api);
  }
  expect(texts[2], 'the page load keeps its path and q=shoes').toContain('/search?session_token=[REDACTED]&q=shoes');

  const exported = await fetch(`${ingest.url}/control-plane/sessions/${sessionId}/playwright`, {
    headers: { authorization: `Bearer ${ingest.controlKey}` },
  });
  expect(exported.status).toBe(200);
  const spec = await exported.text();
  for (const secret of SECRETS) expect(spec, secret).not.toContain(secret);
  expect(spec).toContain(`'GET /api/echo?q&ref&session_token&to': [`);
  expect(spec).toContain("await page.goto('/search?session_token=[REDACTED]&q=shoes');");
});
