import type { Page } from '@playwright/test';
import { expect, test } from './fixtures';
import { ensureSdkBuilt } from '../support/build-sdk';
import { controlGet, type TestServer } from '../support/svc-server';
import { startSdkPage, type SdkPageServer } from '../support/sdk-page';

/**
 * Traces from the real SDK bundle (dist/cdn/svc.min.js) in Chromium, read back from the real reference server:
 * fetch spans as SPEC 2.9 lists them, W3C propagation rules (DESIGN.md fact 6), XHR, document load and interaction
 * spans, and the logs and failures that go with them.
 */

type Row = Record<string, unknown> & {
  name: string;
  trace_id: string;
  span_id: string;
  parent_span_id?: string;
  attributes: Record<string, unknown>;
  events: Array<{ name: string }>;
  scope: { name: string };
};

let app: SdkPageServer;
let thirdParty: SdkPageServer;
/** An origin never listed in `propagation.origins`. */
let stranger: SdkPageServer;

test.beforeAll(async () => {
  await ensureSdkBuilt();
  app = await startSdkPage();
  thirdParty = await startSdkPage();
  stranger = await startSdkPage();
});
test.afterAll(async () => {
  await app.close();
  await thirdParty.close();
  await stranger.close();
});
test.beforeEach(() => {
  app.echoed.length = 0;
  thirdParty.echoed.length = 0;
  stranger.echoed.length = 0;
});

function pageHtml(ingest: TestServer, options: Record<string, unknown> = {}): string {
  const config = {
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl: ingest.url,
    flushIntervalMs: 100,
    debug: true,
    ...options,
  };
  return `<!doctype html><html><head><title>traced</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script></head>
<body><button id="buy" type="button">Buy</button></body></html>`;
}

async function open(page: Page, ingest: TestServer, options?: Record<string, unknown>): Promise<string[]> {
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(error.message));
  app.setHtml(pageHtml(ingest, options));
  await page.goto(`${app.origin}/`);
  return pageErrors;
}

async function spans(ingest: TestServer, query: string, count: number): Promise<Row[]> {
  let rows: Row[] = [];
  await expect
    .poll(
      async () => {
        rows = (await controlGet<{ data: Row[] }>(ingest, `/spans?${query}`)).body.data;
        return rows.length;
      },
      { message: `spans ${query}`, timeout: 10_000 },
    )
    .toBeGreaterThanOrEqual(count);
  return rows;
}

const traceparentOf = (headers: Record<string, unknown>) => String(headers['traceparent'] ?? '');

test('a same-origin fetch makes a browser.fetch span, carries traceparent and the session id, and logs its outcome', async ({
  page,
  ingest,
}) => {
  const errors = await open(page, ingest);
  const { status, sessionId } = await page.evaluate(async () => {
    const res = await fetch('/api/echo?status=200');
    await res.json();
    return { status: res.status, sessionId: (window as any).sdk.sessionId as string };
  });
  expect(status).toBe(200);
  expect(app.echoed).toHaveLength(1);
  const sent = traceparentOf(app.echoed[0]!);
  expect(sent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  expect(app.echoed[0]!['x-svc-session-id']).toBe(sessionId);

  const [, traceId, spanId] = sent.split('-');
  const [span] = await spans(ingest, `trace_id=${traceId}&name=${encodeURIComponent('browser.fetch GET')}`, 1);
  expect(span!.span_id, 'the traceparent names the fetch span').toBe(spanId);
  expect(span!.session_id).toBe(sessionId);
  expect(span!.attributes).toMatchObject({
    'http.method': 'GET',
    'http.url': `${app.origin}/api/echo?status=200`,
    'http.status_code': 200,
    replay_id: expect.stringMatching(/^[0-9a-f]{32}$/),
  });
  expect(span!.attributes['http.duration_ms']).toEqual(expect.any(Number));

  let logs: Array<Record<string, any>> = [];
  await expect
    .poll(async () => {
      logs = (await controlGet<{ data: Array<Record<string, any>> }>(ingest, `/logs?trace_id=${traceId}`)).body.data;
      return logs.length;
    })
    .toBe(1);
  expect(logs[0]!.severity_text).toBe('INFO');
  expect(logs[0]!.span_id).toBe(spanId);
  expect(logs[0]!.attributes).toMatchObject({ 'http.status_code': 200, 'session.id': sessionId });
  expect(errors).toEqual([]);
});

test('headers never go to other origins unless configured, and are never duplicated', async ({ page, ingest }) => {
  await open(page, ingest);
  await page.evaluate(async (other) => {
    await fetch(`${other}/api/echo`);
    await fetch('/api/echo', { headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } });
  }, thirdParty.origin);
  expect(thirdParty.echoed).toHaveLength(1);
  expect(thirdParty.echoed[0]!['traceparent']).toBeUndefined();
  expect(thirdParty.echoed[0]!['x-svc-session-id']).toBeUndefined();
  expect(app.echoed[0]!['traceparent'], 'the app value is kept, not doubled').toBe(
    '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  );
  // The cross-origin request is still traced.
  await spans(ingest, `name=${encodeURIComponent('browser.fetch GET')}`, 2);
});

test('configured origins and a custom header name receive the headers; XHR follows the same rules', async ({
  page,
  ingest,
}) => {
  await open(page, ingest, {
    propagation: { origins: [thirdParty.origin], headerName: 'x-trace', sessionHeaderName: 'x-session' },
  });
  const sessionId = await page.evaluate(async (other) => {
    await fetch(`${other}/api/echo`);
    await new Promise<void>((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open('GET', '/api/echo?via=xhr');
      xhr.setRequestHeader('x-trace', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
      xhr.onloadend = () => resolve();
      xhr.send();
    });
    return (window as any).sdk.sessionId as string;
  }, thirdParty.origin);
  expect(thirdParty.echoed[0]!['x-trace']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  expect(thirdParty.echoed[0]!['x-session']).toBe(sessionId);
  expect(thirdParty.echoed[0]!['traceparent']).toBeUndefined();
  // The app set the trace header on its XHR: ours is not appended to it.
  expect(app.echoed[0]!['x-trace']).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
  expect(app.echoed[0]!['x-session']).toBe(sessionId);
  const [xhrSpan] = await spans(ingest, 'name=GET', 1);
  expect(xhrSpan!.attributes).toMatchObject({
    'http.request.method': 'GET',
    'url.full': `${app.origin}/api/echo?via=xhr`,
    // The names fetch spans use too (SPEC 2.9), so one query finds both.
    'http.method': 'GET',
    'http.url': `${app.origin}/api/echo?via=xhr`,
    'http.status_code': 200,
  });
  expect(xhrSpan!.attributes['http.duration_ms']).toEqual(expect.any(Number));
  expect(xhrSpan!.session_id).toBe(sessionId);
});

test('document load and click interactions become spans: one per click, with the requests it caused inside', async ({
  page,
  ingest,
}) => {
  await open(page, ingest);
  // Three listeners see the click, as in a React app (root capture and bubble listeners): OpenTelemetry would make
  // three nested click spans; the SDK sends one, and the fetch from the last listener hangs under it.
  await page.evaluate(() => {
    document.addEventListener('click', () => undefined, true);
    document.getElementById('buy')!.addEventListener('click', () => undefined);
    document.addEventListener('click', () => void fetch('/api/echo?from=click'));
  });
  await page.click('#buy');
  const [load] = await spans(ingest, 'name=documentLoad', 1);
  expect(load!.attributes['url.full'] ?? load!.attributes['http.url']).toBe(`${app.origin}/`);
  expect(load!.attributes['user_agent.original']).toEqual(expect.any(String));
  expect(load!.events.map((event) => event.name)).toEqual(
    expect.arrayContaining(['fetchStart', 'domInteractive', 'loadEventEnd']),
  );
  expect(load!.scope.name).toBe('@opentelemetry/instrumentation-document-load');
  // The page itself and each resource loaded before `load` (the SDK's script): children with their network marks.
  const [documentFetch] = await spans(ingest, 'name=documentFetch', 1);
  const resources = await spans(ingest, 'name=resourceFetch', 1);
  const script = resources.find((row) => row.attributes['url.full'] === `${app.origin}/svc.min.js`);
  for (const child of [documentFetch!, script!]) {
    expect(child.parent_span_id).toBe(load!.span_id);
    expect(child.events.map((event) => event.name)).toEqual(expect.arrayContaining(['fetchStart', 'responseEnd']));
    expect(child.attributes['http.response_content_length']).toEqual(expect.any(Number));
  }
  expect(documentFetch!.attributes['url.full']).toBe(`${app.origin}/`);
  const [fetchSpan] = await spans(ingest, `name=${encodeURIComponent('browser.fetch GET')}`, 1);
  const clicks = (await controlGet<{ data: Row[] }>(ingest, `/spans?name=click`)).body.data;
  expect(clicks).toHaveLength(1);
  expect(clicks[0]!.attributes).toMatchObject({
    event_type: 'click',
    target_element: 'BUTTON',
    target_xpath: '//*[@id="buy"]',
  });
  expect(clicks[0]!.scope.name).toBe('@opentelemetry/instrumentation-user-interaction');
  expect(fetchSpan!.trace_id).toBe(clicks[0]!.trace_id);
  expect(fetchSpan!.parent_span_id).toBe(clicks[0]!.span_id);
});

test('a click that changes the route is named after the new path; a submit makes its own span; each names what it was on', async ({
  page,
  ingest,
}) => {
  await open(page, ingest);
  await page.evaluate(() => {
    document.getElementById('buy')!.addEventListener('click', () => history.pushState({}, '', '/checkout'));
    const form = document.body.appendChild(document.createElement('form'));
    form.id = 'order';
    form.setAttribute('data-svc-name', 'Place order');
    form.addEventListener('submit', (event) => event.preventDefault());
    // Text the replay masks is not sent as a name either.
    const masked = document.body.appendChild(document.createElement('div'));
    masked.className = 'ob-mask';
    masked.innerHTML = '<button id="card" type="button">Card 4242 4242 4242 4242</button>';
  });
  await page.click('#buy');
  await page.evaluate(() => (document.getElementById('order') as HTMLFormElement).requestSubmit());
  await page.click('#card');
  const [navigation] = await spans(ingest, `name=${encodeURIComponent('Navigation: /checkout')}`, 1);
  expect(navigation!.attributes).toMatchObject({
    event_type: 'click',
    'url.full': `${app.origin}/`,
    'target.name': 'Buy',
  });
  const [submit] = await spans(ingest, 'name=submit', 1);
  expect(submit!.attributes).toMatchObject({
    event_type: 'submit',
    target_element: 'FORM',
    'target.name': 'Place order',
  });
  const [card] = await spans(ingest, 'name=click', 1);
  expect(card!.attributes).toMatchObject({ event_type: 'click', target_element: 'BUTTON' });
  expect(card!.attributes['target.name']).toBeUndefined();
});

test('XHR: headers to the page origin and listed origins only, one span per request inside the click that sent it', async ({
  page,
  ingest,
}) => {
  await open(page, ingest, { propagation: { origins: [thirdParty.origin] } });
  await page.evaluate(
    ({ listed, unlisted, ingestUrl }) => {
      const send = (url: string) =>
        new Promise<number>((resolve) => {
          const xhr = new XMLHttpRequest();
          xhr.open('GET', url);
          xhr.onloadend = () => resolve(xhr.status);
          xhr.send();
        });
      // The SDK's own ingest URLs are never traced, whichever API requests them.
      void send(`${ingestUrl}/otlp/v1/traces`);
      document.getElementById('buy')!.addEventListener('click', () => {
        (window as any).sent = Promise.all([
          send(`${listed}/api/echo?to=listed`),
          send(`${unlisted}/api/echo?to=unlisted`),
        ]);
      });
    },
    { listed: thirdParty.origin, unlisted: stranger.origin, ingestUrl: ingest.url },
  );
  await page.click('#buy');
  expect(await page.evaluate(() => (window as any).sent)).toEqual([200, 200]);
  expect(traceparentOf(thirdParty.echoed[0]!)).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
  expect(stranger.echoed[0]!['traceparent']).toBeUndefined();
  expect(stranger.echoed[0]!['x-svc-session-id']).toBeUndefined();

  const [click] = await spans(ingest, 'name=click', 1);
  const xhrs = await spans(ingest, 'name=GET', 2);
  expect(xhrs.map((row) => row.attributes['url.full']).sort()).toEqual(
    [`${thirdParty.origin}/api/echo?to=listed`, `${stranger.origin}/api/echo?to=unlisted`].sort(),
  );
  const [, traceId, spanId] = traceparentOf(thirdParty.echoed[0]!).split('-');
  const listed = xhrs.find((row) => row.span_id === spanId)!;
  expect(listed.trace_id).toBe(traceId);
  expect(listed.attributes).toMatchObject({
    'http.request.method': 'GET',
    'http.response.status_code': 200,
    'server.address': '127.0.0.1',
    'server.port': Number(new URL(thirdParty.origin).port),
    'http.status_code': 200,
    replay_id: expect.stringMatching(/^[0-9a-f]{32}$/),
  });
  expect(listed.events.map((event) => event.name)).toEqual(['open', 'send', 'loaded']);
  expect(listed.scope.name).toBe('@opentelemetry/instrumentation-xml-http-request');
  for (const row of xhrs) {
    expect(row.trace_id).toBe(click!.trace_id);
    expect(row.parent_span_id).toBe(click!.span_id);
  }
});

test('a failed XHR ends its span in error', async ({ page, ingest }) => {
  await open(page, ingest);
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const xhr = new XMLHttpRequest();
        xhr.open('POST', 'http://127.0.0.1:9/unreachable');
        xhr.onloadend = () => resolve();
        xhr.send('x');
      }),
  );
  const [span] = await spans(ingest, 'name=POST', 1);
  expect(span!.attributes).toMatchObject({
    'http.status_code': 0,
    'error.type': 'error',
    'url.full': 'http://127.0.0.1:9/unreachable',
  });
  expect((span!.status as { code: number }).code).toBe(2);
  expect(span!.events.map((event) => event.name)).toEqual(['open', 'send', 'error']);
});

test('a failed fetch rejects as before, ends its span in error, and logs an error', async ({ page, ingest }) => {
  const errors = await open(page, ingest);
  const outcome = await page.evaluate(async () => {
    try {
      await fetch('http://127.0.0.1:9/unreachable');
      return 'resolved';
    } catch (error) {
      return (error as Error).name;
    }
  });
  expect(outcome).toBe('TypeError');
  const [span] = await spans(ingest, `name=${encodeURIComponent('browser.fetch GET')}`, 1);
  expect(span!.attributes).toMatchObject({ 'http.status_code': 0, 'http.url': 'http://127.0.0.1:9/unreachable' });
  expect((span!.status as { code: number }).code).toBe(2);
  await expect
    .poll(async () => {
      const logs = (await controlGet<{ data: Array<Record<string, any>> }>(ingest, `/logs?trace_id=${span!.trace_id}`))
        .body.data;
      return logs.map((log) => log.severity_text);
    })
    .toEqual(['ERROR']);
  expect(errors).toEqual([]);
});

test('one mistake, one issue: failed requests and console errors are logs, marked as issues only with issuesFrom; the click whose handler threw counts the error on its trace', async ({
  page,
  ingest,
}) => {
  type LogRow = {
    body: unknown;
    severity_number: number;
    trace_id: string | null;
    attributes: Record<string, unknown>;
  };
  /** A 500 and a network failure, each reported by the app on the console, a plain console.error, then a click that throws. */
  const mistake = async (errorLogs: number, options?: Record<string, unknown>) => {
    await open(page, ingest, options);
    const sessionId = await page.evaluate(async () => {
      const res = await fetch('/api/echo/items/42?status=500');
      console.error('saving the cart failed:', res.status);
      await fetch('http://127.0.0.1:9/unreachable').catch((error: unknown) => console.error('network down', error));
      console.error('a plain message');
      document.getElementById('buy')!.addEventListener('click', () => {
        throw new TypeError("Cannot read properties of undefined (reading 'price')");
      });
      return (window as any).sdk.sessionId as string;
    });
    await page.click('#buy');
    let logs: LogRow[] = [];
    await expect
      .poll(async () => {
        logs = (
          await controlGet<{ data: LogRow[] }>(ingest, `/logs?session_id=${sessionId}&limit=1000`)
        ).body.data.filter((l) => l.severity_number >= 17);
        return logs.length;
      })
      .toBeGreaterThanOrEqual(errorLogs);
    return logs;
  };
  const marked = (logs: LogRow[]) =>
    logs
      .filter((l) => l.attributes['svc.issue'] === true)
      .map((l) => String(l.body).split('\n')[0] ?? '')
      .sort();

  const logs = await mistake(6);
  expect(marked(logs), 'by default, none of them asks to be an issue').toEqual([]);
  const thrown = logs.find(
    (l) => l.attributes['exception.type'] === 'TypeError' && l.attributes['log.source'] === 'onerror',
  )!;
  expect(thrown.trace_id, 'the error joins the trace of the click that threw it').toEqual(
    expect.stringMatching(/^[0-9a-f]{32}$/),
  );
  await spans(ingest, `trace_id=${thrown.trace_id}&name=click`, 1);
  const traces = (
    await controlGet<{ data: Array<{ error_count: number }> }>(ingest, `/traces?trace_id=${thrown.trace_id}`)
  ).body.data;
  expect(
    traces.map((t) => t.error_count),
    'the exception counts as the trace’s error',
  ).toEqual([1]);

  // The same session again, now asking for console errors and failed requests as issues: those five say so.
  const optedIn = marked(await mistake(12, { issuesFrom: ['console', 'requests'] }));
  expect(optedIn).toHaveLength(5);
  for (const start of [
    /^GET \S+\/api\/echo\/items\/42\S* → 500 /,
    /^GET http:\/\/127\.0\.0\.1:9\/unreachable failed: TypeError: Failed to fetch/,
    /^a plain message$/,
    /^network down TypeError: Failed to fetch/,
    /^saving the cart failed: 500$/,
  ]) {
    expect(
      optedIn.some((body) => start.test(body)),
      String(start),
    ).toBe(true);
  }
});

test('instrumentFetch() traces without patching the global fetch when instrumentGlobalFetch is false', async ({
  page,
  ingest,
}) => {
  await open(page, ingest, { instrumentGlobalFetch: false });
  const patched = await page.evaluate(async () => {
    await fetch('/api/echo?via=global');
    const traced = (window as any).sdk.instrumentFetch() as typeof fetch;
    await traced('/api/echo?via=wrapper', { method: 'POST', body: 'x' });
    return fetch.toString().includes('[native code]');
  });
  expect(patched, 'global fetch is still the native one').toBe(true);
  expect(app.echoed[0]!['traceparent']).toBeUndefined();
  expect(app.echoed[1]!['traceparent']).toMatch(/^00-/);
  const rows = await spans(ingest, `name=${encodeURIComponent('browser.fetch POST')}`, 1);
  expect(rows[0]!.attributes['http.url']).toBe(`${app.origin}/api/echo?via=wrapper`);
  const gets = (await controlGet<{ data: Row[] }>(ingest, `/spans?name=${encodeURIComponent('browser.fetch GET')}`))
    .body.data;
  expect(gets).toEqual([]);
});

test('shutdown removes the fetch and XHR patches and the SDK sends nothing more', async ({ page, ingest }) => {
  await open(page, ingest);
  const nativeAfter = await page.evaluate(async () => {
    await (window as any).sdk.shutdown();
    const native = (fn: unknown) => String(fn).includes('[native code]');
    const xhr = XMLHttpRequest.prototype;
    return [
      fetch,
      xhr.open,
      xhr.send,
      xhr.setRequestHeader,
      EventTarget.prototype.addEventListener,
      history.pushState,
    ].map(native);
  });
  expect(nativeAfter).toEqual([true, true, true, true, true, true]);
  await page.evaluate(async () => {
    await fetch('/api/echo?after=shutdown');
    await new Promise<void>((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open('GET', '/api/echo?after=shutdown');
      xhr.onloadend = () => resolve();
      xhr.send();
    });
  });
  expect(app.echoed).toHaveLength(2);
  for (const headers of app.echoed) expect(headers['traceparent']).toBeUndefined();
});

test('each fetch adds a network replay event and a recipe step; a failed one a network_error event too', async ({
  page,
  ingest,
}) => {
  await open(page, ingest);
  const sessionId = await page.evaluate(async () => {
    await fetch('/api/echo?status=200', { headers: { authorization: 'Bearer secret-token' } });
    await fetch('http://127.0.0.1:9/unreachable').catch(() => undefined);
    await (window as any).sdk.flushReplay();
    return (window as any).sdk.sessionId as string;
  });
  type Chunk = { events: Array<{ type: number; data?: { tag?: string; payload?: Record<string, unknown> } }> };
  let events: Array<{ tag?: string; payload?: Record<string, unknown> }> = [];
  await expect
    .poll(async () => {
      const chunks = (await controlGet<{ data: Chunk[] }>(ingest, `/replay/chunks?session_id=${sessionId}&limit=100`))
        .body.data;
      events = chunks
        .flatMap((chunk) => chunk.events)
        .flatMap((event) => (event.type === 5 && event.data ? [event.data] : []));
      return events.filter((event) => event.tag === 'network' || event.tag === 'network_error').length;
    })
    .toBe(3);
  expect(events.filter((event) => event.tag === 'network').map((event) => event.payload)).toEqual([
    expect.objectContaining({ method: 'GET', url: `${app.origin}/api/echo?status=200`, status: 200 }),
    expect.objectContaining({ method: 'GET', url: 'http://127.0.0.1:9/unreachable', status: 0 }),
  ]);
  expect(events.find((event) => event.tag === 'network_error')!.payload).toMatchObject({
    url: 'http://127.0.0.1:9/unreachable',
    status: 0,
    error: expect.stringContaining('TypeError'),
  });

  let steps: Array<Record<string, any>> = [];
  await expect
    .poll(async () => {
      steps = (await controlGet<{ data: Array<Record<string, any>> }>(ingest, `/recipes?session_id=${sessionId}`)).body
        .data;
      return steps.length;
    })
    .toBe(2);
  const ok = steps.find((step) => step.status === 200)!;
  expect(ok).toMatchObject({ method: 'GET', url: `${app.origin}/api/echo?status=200` });
  expect(JSON.stringify(ok)).not.toContain('secret-token');
});
