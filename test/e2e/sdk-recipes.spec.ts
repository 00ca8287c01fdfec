import { randomBytes } from 'node:crypto';
import type { Page } from '@playwright/test';
import { ensureSdkBuilt } from '../support/build-sdk';
import { serveLocally, type LocalServer } from '../support/local-server';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';
import { controlGet, type TestServer } from '../support/svc-server';
import { expect, test } from './fixtures';

/**
 * Request recipes and XHR replay events from the real SDK bundle (dist/cdn/svc.min.js) in Chromium, read back from
 * the real reference server: every fetch and XMLHttpRequest becomes a recipe step with credentials redacted from its
 * headers and bodies (JSON keys, form fields, card numbers), large bodies cut after redaction, binary bodies named by
 * a placeholder, selected response headers and the traceparent sent; XHR leaves `network` and `network_error` events
 * on the replay timeline like fetch does.
 */

let app: SdkPageServer;
/** A second origin playing a third-party API, with responses the echo route cannot give. */
let api: LocalServer;

const token = (label: string) => `${label}${randomBytes(8).toString('hex')}`;
/** Well-known Luhn-valid test card numbers. */
const CARD = '4111 1111 1111 1111';
const CARD_2 = '5555555555554444';
const R = '[REDACTED]';
const PNG_BYTES = 321;
const BIG_FILLER = 100_000;

const secrets = {
  authorization: token('bearer'),
  apiKey: token('xkey'),
  sessionToken: token('sesstok'),
  cookie: token('cookie'),
  bodyPassword: token('bodypw'),
  bodyToken: token('bodytoken'),
  formPassword: token('formpw'),
  xhrSessionToken: token('xhrsess'),
  multipartPassword: token('mppw'),
  responseToken: token('resptok'),
  bigPassword: token('bigpw'),
};

function cors(origin: string | undefined, requested: string | string[] | undefined): Record<string, string> {
  return {
    'access-control-allow-origin': origin ?? '*',
    'access-control-allow-headers': String(requested ?? '*'),
    'access-control-allow-methods': 'GET, POST',
    'access-control-expose-headers': 'etag, x-internal',
  };
}

test.beforeAll(async () => {
  await ensureSdkBuilt();
  app = await startSdkPage();
  api = await serveLocally((req, res) => {
    const headers = cors(req.headers.origin, req.headers['access-control-request-headers']);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, headers).end();
      return;
    }
    req.resume();
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (path === '/big') {
        res.writeHead(200, { ...headers, 'content-type': 'application/json' });
        res.end(JSON.stringify({ password: secrets.bigPassword, filler: 'f'.repeat(BIG_FILLER) }));
      } else if (path === '/huge') {
        res.writeHead(200, { ...headers, 'content-type': 'text/plain' });
        res.end('h'.repeat(1_500_000));
      } else if (path === '/png') {
        res.writeHead(200, { ...headers, 'content-type': 'image/png', 'content-length': String(PNG_BYTES) });
        res.end(Buffer.alloc(PNG_BYTES));
      } else if (path === '/profile') {
        res.writeHead(200, {
          ...headers,
          'content-type': 'application/json',
          etag: '"v1"',
          'x-internal': 'node-7',
          'set-cookie': 'sid=abc',
        });
        res.end(JSON.stringify({ name: 'Ann', session_token: secrets.responseToken, card: CARD_2 }));
      } else {
        res.writeHead(201, { ...headers, 'content-type': 'application/json' });
        res.end('{"ok":true}');
      }
    });
  });
});
test.afterAll(async () => {
  await app.close();
  await api.close();
});
test.beforeEach(() => {
  app.echoed.length = 0;
});

function pageHtml(ingest: TestServer): string {
  const config = {
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl: ingest.url,
    flushIntervalMs: 100,
    propagation: { origins: [api.origin] },
    // The second origin's bodies are recorded because it is listed: cross-origin bodies are not by default.
    replay: { flushIntervalMs: 200, networkBodyUrls: [api.origin] },
  };
  return `<!doctype html><html><head><title>recipes</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script></head><body><p>recipes</p></body></html>`;
}

async function open(page: Page, ingest: TestServer): Promise<string[]> {
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  app.setHtml(pageHtml(ingest));
  await page.goto(`${app.origin}/`);
  return pageErrors;
}

const sessionIdOf = (page: Page) => page.evaluate(() => (window as any).sdk.sessionId as string);

type Step = Record<string, any> & { method: string; url: string; status: number };

/** The session's stored recipe steps once there are `count`; flushes the page's replay buffer between reads. */
async function recipes(page: Page, ingest: TestServer, sessionId: string, count: number): Promise<Step[]> {
  let steps: Step[] = [];
  await expect
    .poll(
      async () => {
        // A step is queued once its bodies are read, after the request: flush until all of them arrived.
        await page.evaluate(() => (window as any).sdk.flushReplay());
        steps = (await controlGet<{ data: Step[] }>(ingest, `/recipes?session_id=${sessionId}&limit=1000`)).body.data;
        return steps.length;
      },
      { message: 'recipe steps stored', timeout: 15_000 },
    )
    .toBe(count);
  return steps;
}

type Custom = { tag?: string; payload?: Record<string, any> };

/** The session's SDK timeline events (rrweb custom events) once `ready` accepts them. */
async function timeline(
  page: Page,
  ingest: TestServer,
  sessionId: string,
  ready: (events: Custom[]) => boolean,
): Promise<Custom[]> {
  type Chunk = { events: Array<{ type: number; data?: Custom }> };
  let events: Custom[] = [];
  await expect
    .poll(
      async () => {
        await page.evaluate(() => (window as any).sdk.flushReplay());
        const chunks = (await controlGet<{ data: Chunk[] }>(ingest, `/replay/chunks?session_id=${sessionId}&limit=100`))
          .body.data;
        events = chunks
          .flatMap((chunk) => chunk.events)
          .flatMap((event) => (event.type === 5 && event.data ? [event.data] : []));
        return ready(events);
      },
      { message: 'replay events stored', timeout: 15_000 },
    )
    .toBe(true);
  return events;
}

const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/;

test('fetch and XHR become recipe steps with credentials redacted from headers and bodies', async ({
  page,
  ingest,
}) => {
  const errors = await open(page, ingest);
  await page.evaluate(
    async ({ s, apiOrigin, card }) => {
      const xhr = (method: string, url: string, setup: (request: XMLHttpRequest) => void, body?: string) =>
        new Promise<XMLHttpRequest>((resolve) => {
          const request = new XMLHttpRequest();
          request.open(method, url);
          setup(request);
          request.onloadend = () => resolve(request);
          request.send(body);
        });
      const json = await fetch('/api/echo?kind=json', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${s.authorization}`,
          'x-api-key': s.apiKey,
          'X-Session-Token': s.sessionToken,
          cookie: `sid=${s.cookie}`,
          'x-request-note': 'public-note',
        },
        body: JSON.stringify({
          user: 'alice',
          password: s.bodyPassword,
          items: [{ api_token: s.bodyToken, sku: 'A-1' }],
          payment: { number: card },
        }),
      });
      await json.json();
      await xhr(
        'POST',
        '/api/echo?kind=form',
        (request) => {
          request.setRequestHeader('content-type', 'application/x-www-form-urlencoded');
          request.setRequestHeader('X-Session-Token', s.xhrSessionToken);
          request.setRequestHeader('Cookie', `sid=${s.cookie}`);
        },
        `username=bob&password=${encodeURIComponent(s.formPassword)}&memo=${encodeURIComponent(`paid with ${card}`)}&note=visible-note`,
      );
      const form = new FormData();
      form.append('name', 'Ann');
      form.append('password', s.multipartPassword);
      form.append('avatar', new Blob([new Uint8Array(77)]), 'avatar.png');
      await (await fetch('/api/echo?kind=multipart', { method: 'POST', body: form })).text();
      await (await fetch(`${apiOrigin}/upload`, { method: 'POST', body: new Blob([new Uint8Array(1234)]) })).text();
      await (await fetch(`${apiOrigin}/png`)).arrayBuffer();
      await (await fetch(`${apiOrigin}/big`)).text();
      await (await fetch(`${apiOrigin}/huge`)).text();
      await xhr('GET', `${apiOrigin}/profile`, (request) => (request.responseType = 'json'));
    },
    { s: secrets, apiOrigin: api.origin, card: CARD },
  );
  const steps = await recipes(page, ingest, await sessionIdOf(page), 8);
  expect(errors).toEqual([]);

  const stored = JSON.stringify(steps);
  for (const [name, secret] of Object.entries(secrets))
    expect(stored.includes(secret), `secret "${name}" stored`).toBe(false);
  for (const card of [CARD, CARD.replace(/ /g, ''), encodeURIComponent(CARD), CARD_2])
    expect(stored).not.toContain(card);

  const step = (url: string) => {
    const found = steps.find((candidate) => candidate.url === url);
    expect(found, `a step for ${url}`).toBeDefined();
    return found!;
  };

  const json = step(`${app.origin}/api/echo?kind=json`);
  expect(json).toMatchObject({ method: 'POST', status: 200, traceparent: expect.stringMatching(TRACEPARENT) });
  expect(json.requestHeaders).toMatchObject({
    authorization: R,
    'x-api-key': R,
    'x-session-token': R,
    cookie: R,
    'x-request-note': 'public-note',
    'content-type': 'application/json',
    traceparent: json.traceparent,
  });
  expect(JSON.parse(json.requestBody)).toEqual({
    user: 'alice',
    password: R,
    items: [{ api_token: R, sku: 'A-1' }],
    payment: { number: R },
  });
  expect(json.requestBodyTruncated).toBe(false);
  // The echo's answer repeats the request headers: redacted by their JSON keys.
  expect(JSON.parse(json.responseBody).headers).toMatchObject({
    authorization: R,
    'x-api-key': R,
    'x-session-token': R,
    'x-request-note': 'public-note',
  });
  expect(json.responseHeaders).toEqual({ 'content-type': 'application/json' });

  const form = step(`${app.origin}/api/echo?kind=form`);
  expect(form).toMatchObject({ method: 'POST', status: 200, traceparent: expect.stringMatching(TRACEPARENT) });
  expect(form.requestHeaders).toMatchObject({
    'x-session-token': R,
    cookie: R,
    'content-type': 'application/x-www-form-urlencoded',
    traceparent: form.traceparent,
  });
  expect(form.requestBody).toBe(
    `username=bob&password=${R}&memo=${encodeURIComponent(`paid with ${R}`)}&note=visible-note`,
  );
  expect(
    app.echoed.find((headers) => headers['x-session-token'] === secrets.xhrSessionToken)!['traceparent'],
    'the traceparent the XHR sent',
  ).toBe(form.traceparent);

  const multipart = step(`${app.origin}/api/echo?kind=multipart`);
  expect(multipart.requestBody, 'text fields, and files named').toBe(
    `name=Ann&password=${R}&avatar=%5Bfile+77+bytes%5D`,
  );

  const upload = step(`${api.origin}/upload`);
  expect(upload).toMatchObject({
    status: 201,
    requestBody: '[binary 1234 bytes]',
    requestBodyTruncated: false,
    responseBody: '{"ok":true}',
  });
  expect(upload.traceparent, 'a configured origin receives the traceparent').toMatch(TRACEPARENT);

  expect(step(`${api.origin}/png`)).toMatchObject({
    responseBody: `[binary ${PNG_BYTES} bytes]`,
    responseHeaders: { 'content-type': 'image/png', 'content-length': String(PNG_BYTES) },
  });

  const big = step(`${api.origin}/big`);
  expect(big.responseBodyTruncated).toBe(true);
  expect(big.responseBody).toHaveLength(65_536);
  expect(big.responseBody.startsWith(`{"password":"${R}","filler":"fff`), 'redacted, then cut').toBe(true);

  expect(step(`${api.origin}/huge`)).toMatchObject({ responseBody: null, responseBodyTruncated: true });

  const profile = step(`${api.origin}/profile`);
  expect(profile).toMatchObject({ method: 'GET', status: 200, traceparent: expect.stringMatching(TRACEPARENT) });
  expect(JSON.parse(profile.responseBody)).toEqual({ name: 'Ann', session_token: R, card: R });
  expect(profile.responseHeaders, 'selected response headers; never set-cookie').toEqual({
    'content-type': 'application/json',
    etag: '"v1"',
  });
});

test('each XHR adds network replay events, a failed one network_error too (not an aborted one); shutdown stops it', async ({
  page,
  ingest,
}) => {
  const errors = await open(page, ingest);
  const outcomes = await page.evaluate(async () => {
    const send = (url: string, abort = false) =>
      new Promise<number>((resolve) => {
        const request = new XMLHttpRequest();
        request.open('GET', url);
        request.onloadend = () => resolve(request.status);
        request.send();
        if (abort) request.abort();
      });
    const statuses = [
      await send('/api/echo?xhr=ok'),
      await send('/api/echo?xhr=server&status=503'),
      await send('/api/echo?xhr=client&status=404'),
      await send('http://127.0.0.1:9/unreachable'),
      await send('/api/echo?xhr=aborted', true),
    ];
    const sync = new XMLHttpRequest();
    sync.open('GET', '/api/echo?xhr=sync', false);
    sync.send();
    statuses.push(sync.status);
    return statuses;
  });
  expect(outcomes, 'the app sees its XHRs end as without the SDK').toEqual([200, 503, 404, 0, 0, 200]);
  const sessionId = await sessionIdOf(page);
  const events = await timeline(
    page,
    ingest,
    sessionId,
    (all) => all.filter((event) => event.tag === 'network').length >= 6,
  );

  const network = events.filter((event) => event.tag === 'network').map((event) => event.payload!);
  const byUrl = (url: string) => network.find((payload) => payload.url === url)!;
  const ok = byUrl(`${app.origin}/api/echo?xhr=ok`);
  expect(ok).toEqual({
    method: 'GET',
    url: `${app.origin}/api/echo?xhr=ok`,
    status: 200,
    durationMs: expect.any(Number),
    traceId: expect.stringMatching(/^[0-9a-f]{32}$/),
  });
  expect(
    String(app.echoed[0]!['traceparent']).split('-')[1],
    'the trace of the XHR span, whose traceparent was sent',
  ).toBe(ok.traceId);
  expect(byUrl(`${app.origin}/api/echo?xhr=server&status=503`)).toMatchObject({ status: 503 });
  expect(byUrl(`${app.origin}/api/echo?xhr=client&status=404`)).toMatchObject({ status: 404 });
  expect(byUrl('http://127.0.0.1:9/unreachable')).toMatchObject({
    status: 0,
    error: expect.stringContaining('network error'),
  });
  expect(byUrl(`${app.origin}/api/echo?xhr=aborted`)).toMatchObject({
    status: 0,
    error: expect.stringContaining('AbortError'),
  });
  expect(byUrl(`${app.origin}/api/echo?xhr=sync`)).toMatchObject({ status: 200 });

  const failures = events.filter((event) => event.tag === 'network_error').map((event) => event.payload!.url as string);
  expect(failures.sort()).toEqual(
    [`${app.origin}/api/echo?xhr=server&status=503`, 'http://127.0.0.1:9/unreachable'].sort(),
  );

  const steps = await recipes(page, ingest, sessionId, 6);
  expect(steps.find((step) => step.url === 'http://127.0.0.1:9/unreachable')).toMatchObject({
    status: 0,
    error: expect.stringContaining('network error'),
  });
  expect(steps.find((step) => step.url.endsWith('xhr=server&status=503'))).toMatchObject({
    status: 503,
    responseHeaders: { 'content-type': 'application/json' },
  });

  // One XHR object used twice: the second request gets its own traceparent (the duplicate-header guard is per request).
  app.echoed.length = 0;
  await page.evaluate(async () => {
    const request = new XMLHttpRequest();
    for (const n of [1, 2]) {
      await new Promise<void>((resolve) => {
        request.open('GET', `/api/echo?xhr=reused-${n}`);
        request.onloadend = () => resolve();
        request.send();
      });
    }
  });
  const reused = app.echoed.map((headers) => String(headers['traceparent']));
  expect(reused).toHaveLength(2);
  for (const traceparent of reused) expect(traceparent).toMatch(TRACEPARENT);
  expect(reused[0]).not.toBe(reused[1]);

  const after = await page.evaluate(async () => {
    await (window as any).sdk.shutdown();
    const status = await new Promise<number>((resolve) => {
      const request = new XMLHttpRequest();
      request.open('GET', '/api/echo?xhr=after-shutdown');
      request.onloadend = () => resolve(request.status);
      request.send();
    });
    const native = (method: 'open' | 'send' | 'setRequestHeader') =>
      XMLHttpRequest.prototype[method].toString().includes('[native code]');
    return { status, native: native('open') && native('send') && native('setRequestHeader') };
  });
  expect(after).toEqual({ status: 200, native: true });
  expect(app.echoed.at(-1)!['traceparent'], 'nothing added after shutdown').toBeUndefined();
  expect(errors).toEqual([]);
});
