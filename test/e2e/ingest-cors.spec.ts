import type { Page } from '@playwright/test';
import { expect, hex, NetworkLog, otlpTrace, spansOfTrace, test, waitForSpans } from './fixtures';
import { startCliServer } from '../support/svc-server';

/**
 * Ingest from a real browser page on another origin, as the SDK does it: `fetch` with `X-API-Key` (preflighted),
 * `fetch(..., {keepalive: true})` for the final flush, and `sendBeacon` with the key in `?api_key=` as the fallback.
 * See DESIGN.md, "Browser facts to respect" 1-3.
 */

type PageResult = { ok: true; status: number; body: unknown } | { ok: false; name: string; message: string };

/** `fetch` POST from inside the page; a network/CORS failure comes back as the error the page saw. */
function postFromPage(
  page: Page,
  url: string,
  init: { headers: Record<string, string>; body: string; keepalive?: boolean },
): Promise<PageResult> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const res = await fetch(url, {
          method: 'POST',
          headers: init.headers,
          body: init.body,
          keepalive: init.keepalive ?? false,
        });
        const text = await res.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          /* not JSON: keep the text */
        }
        return { ok: true as const, status: res.status, body };
      } catch (err) {
        return { ok: false as const, name: (err as Error).name, message: (err as Error).message };
      }
    },
    { url, init },
  );
}

const headerList = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);

test.describe('ingest from a cross-origin page in Chromium', () => {
  test('fetch with X-API-Key and JSON is preflighted, accepted, and readable through the query API', async ({
    page,
    ingest,
    pageOrigin,
    network,
  }) => {
    expect(new URL(ingest.url).origin, 'the page is cross-origin to ingest').not.toBe(pageOrigin.origin);
    await page.goto(pageOrigin.origin);
    const url = `${ingest.url}/otlp/v1/traces`;
    const traceId = hex(16);
    const sessionId = `sess-${hex(6)}`;
    const headers = {
      'content-type': 'application/json',
      'x-api-key': ingest.ingestKey,
      traceparent: `00-${traceId}-${hex(8)}-01`,
      'x-svc-session-id': sessionId,
    };

    const first = await postFromPage(page, url, {
      headers,
      body: JSON.stringify(otlpTrace({ traceId, name: 'GET /first', sessionId })),
    });
    expect(first).toEqual({ ok: true, status: 200, body: { partialSuccess: {} } });

    // The browser really sent a preflight, and the server's answer is what lets every SDK header through.
    const [preflight, ...more] = network.preflightsTo(url);
    expect(more).toHaveLength(0);
    expect(preflight, `a CORS preflight for ${url}`).toBeDefined();
    expect(preflight!.requestHeaders['origin']).toBe(pageOrigin.origin);
    expect(headerList(preflight!.requestHeaders['access-control-request-headers'])).toEqual(
      expect.arrayContaining(['content-type', 'x-api-key', 'traceparent', 'x-svc-session-id']),
    );
    expect(preflight!.status).toBeGreaterThanOrEqual(200);
    expect(preflight!.status).toBeLessThan(300);
    const answer = preflight!.responseHeaders!;
    expect(answer['access-control-allow-origin']).toBe(pageOrigin.origin);
    expect(answer['access-control-max-age']).toBe('7200');
    expect(headerList(answer['access-control-allow-headers'])).toEqual(
      expect.arrayContaining([
        'content-type',
        'content-encoding',
        'x-api-key',
        'traceparent',
        'tracestate',
        'x-svc-session-id',
      ]),
    );
    expect(headerList(answer['access-control-allow-methods'])).toContain('post');

    // The actual POST echoes the exact origin too.
    const [post] = network.requestsTo(url);
    expect(post?.responseHeaders?.['access-control-allow-origin']).toBe(pageOrigin.origin);

    // Max-Age is honoured: the next request to the same URL goes without a new preflight.
    const second = await postFromPage(page, url, {
      headers,
      body: JSON.stringify(otlpTrace({ traceId, name: 'GET /second', sessionId })),
    });
    expect(second).toMatchObject({ ok: true, status: 200 });
    expect(network.preflightsTo(url)).toHaveLength(1);

    const spans = await spansOfTrace(ingest, traceId);
    expect(spans.map((s) => s.name).sort()).toEqual(['GET /first', 'GET /second']);
    for (const span of spans) {
      expect(span).toMatchObject({ app: 'web-app', trace_id: traceId, session_id: sessionId });
    }
  });

  test('fetch with keepalive is accepted, including when sent from pagehide as the page goes away', async ({
    page,
    ingest,
    pageOrigin,
  }) => {
    await page.goto(pageOrigin.origin);
    const url = `${ingest.url}/otlp/v1/traces`;
    const headers = { 'content-type': 'application/json', 'x-api-key': ingest.ingestKey };

    const awaitedTrace = hex(16);
    const awaited = await postFromPage(page, url, {
      headers,
      body: JSON.stringify(otlpTrace({ traceId: awaitedTrace, name: 'keepalive awaited' })),
      keepalive: true,
    });
    expect(awaited).toEqual({ ok: true, status: 200, body: { partialSuccess: {} } });
    expect((await spansOfTrace(ingest, awaitedTrace)).map((s) => s.name)).toEqual(['keepalive awaited']);

    // The real use: the final flush on pagehide, which must outlive the page.
    const unloadTrace = hex(16);
    await page.evaluate(
      ({ url, headers, body }) => {
        addEventListener('pagehide', () => {
          void fetch(url, { method: 'POST', headers, body, keepalive: true });
        });
      },
      { url, headers, body: JSON.stringify(otlpTrace({ traceId: unloadTrace, name: 'keepalive on pagehide' })) },
    );
    await page.goto(`${pageOrigin.origin}/next-page`);
    const stored = await waitForSpans(ingest, unloadTrace);
    expect(stored[0]).toMatchObject({ app: 'web-app', name: 'keepalive on pagehide' });
  });

  test('sendBeacon with a text/plain JSON string and ?api_key= is accepted and stored', async ({
    page,
    ingest,
    pageOrigin,
    network,
  }) => {
    await page.goto(pageOrigin.origin);
    const url = `${ingest.url}/otlp/v1/traces?api_key=${encodeURIComponent(ingest.ingestKey)}`;
    const traceId = hex(16);
    const queued = await page.evaluate(({ url, body }) => navigator.sendBeacon(url, body), {
      url,
      body: JSON.stringify(otlpTrace({ traceId, name: 'beacon', sessionId: 'beacon-session' })),
    });
    expect(queued, 'sendBeacon queued the request').toBe(true);

    const stored = await waitForSpans(ingest, traceId);
    expect(stored[0]).toMatchObject({ app: 'web-app', name: 'beacon', session_id: 'beacon-session' });
    // A string body is sent as text/plain: a CORS-safelisted request, so no preflight is needed.
    expect(network.preflightsTo(url)).toHaveLength(0);
  });

  test('error answers carry CORS headers, so the page can read the status and the JSON error body', async ({
    page,
    ingest,
    pageOrigin,
    network,
  }) => {
    await page.goto(pageOrigin.origin);
    const url = `${ingest.url}/otlp/v1/traces`;
    const traceId = hex(16);
    const body = JSON.stringify(otlpTrace({ traceId, name: 'must not be stored' }));

    const badKey = await postFromPage(page, url, {
      headers: { 'content-type': 'application/json', 'x-api-key': 'svc_ingest_not-a-real-key' },
      body,
    });
    expect(badKey).toEqual({
      ok: true,
      status: 401,
      body: { error: { code: 'unauthorized', message: expect.stringMatching(/API key/) } },
    });
    const [rejected] = network.requestsTo(url);
    expect(rejected?.status).toBe(401);
    expect(rejected?.responseHeaders?.['access-control-allow-origin']).toBe(pageOrigin.origin);

    const noKey = await postFromPage(page, url, { headers: { 'content-type': 'application/json' }, body });
    expect(noKey).toEqual({
      ok: true,
      status: 401,
      body: { error: { code: 'unauthorized', message: expect.stringMatching(/missing API key/) } },
    });

    const badJson = await postFromPage(page, url, {
      headers: { 'content-type': 'application/json', 'x-api-key': ingest.ingestKey },
      body: '{"resourceSpans": [',
    });
    expect(badJson).toMatchObject({ ok: true, status: 400, body: { error: { code: 'invalid_request' } } });

    const badType = await postFromPage(page, url, {
      headers: { 'content-type': 'application/xml', 'x-api-key': ingest.ingestKey },
      body,
    });
    expect(badType).toMatchObject({ ok: true, status: 415, body: { error: { code: 'unsupported_media_type' } } });

    expect(await spansOfTrace(ingest, traceId)).toEqual([]);
  });
});

test.describe('ingest restricted to other origins', () => {
  test('a page on an origin not in corsOrigins is blocked by CORS and nothing is stored', async ({
    page,
    pageOrigin,
  }) => {
    const restricted = await startCliServer({ 'cors-origins': 'http://some-other-origin' });
    try {
      const network = await NetworkLog.attach(page);
      await page.goto(pageOrigin.origin);
      const url = `${restricted.url}/otlp/v1/traces`;
      const traceId = hex(16);
      const result = await postFromPage(page, url, {
        headers: { 'content-type': 'application/json', 'x-api-key': restricted.ingestKey },
        body: JSON.stringify(otlpTrace({ traceId, name: 'blocked' })),
      });
      expect(result).toMatchObject({ ok: false, name: 'TypeError' });

      // The preflight got no Access-Control-Allow-Origin, so Chromium never sent the POST's body to be stored.
      const [preflight] = network.preflightsTo(url);
      expect(preflight, 'a CORS preflight was attempted').toBeDefined();
      expect(preflight!.responseHeaders?.['access-control-allow-origin']).toBeUndefined();
      expect(await spansOfTrace(restricted, traceId)).toEqual([]);
      await network.detach();
    } finally {
      await restricted.close();
    }
  });
});
