import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { breadcrumbsBefore, type Breadcrumb } from '../../server/src/issues/breadcrumbs';
import type { LogItem, SpanItem } from '../../src/pipeline/items';
import { ENCODE_BODY } from '../../src/pipeline/otlp-json';
import { chunkBody, eventsJson } from '../../src/replay/encode';
import { describeException, exceptionAttributes, exceptionBody } from '../../src/signals/exception';
import { SDK_NAME, SDK_VERSION } from '../../src/version';
import { INGEST_PATHS } from '../../wire/paths';
import { MASK } from '../../wire/replay';
import { databaseKinds } from '../support/databases';
import { click, el, pageLoad, txt, type DomNode, type RrwebEvent } from '../support/rrweb';
import { postIngest, startTestServer, type TestServer } from '../support/server';

/**
 * Breadcrumbs of an error, read back from what the server stored of one session: replay chunks, logs and spans,
 * each posted as the SDK posts it (its own encoders build the bodies), then read with breadcrumbsBefore on the
 * server's database.
 */

const kinds = await databaseKinds();

/** The error's time: breadcrumbs come from the 30 s before it, both ends included. */
const T = 1_750_000_000_000;
const SERVICE = { 'service.name': 'web-app' };
const mouseMove = (at: number): RrwebEvent => ({
  type: 3,
  timestamp: at,
  data: { source: 1, positions: [{ x: 1, y: 1, id: 3, timeOffset: 0 }] },
});
const addNode = (parentId: number, node: DomNode, at: number): RrwebEvent => ({
  type: 3,
  timestamp: at,
  data: { source: 0, adds: [{ parentId, nextId: null, node }], removes: [], texts: [], attributes: [] },
});
/** The SDK's timeline event for a URL change (src/signals/navigation.ts). */
const navigation = (url: string, title: string, at: number): RrwebEvent => ({
  type: 5,
  timestamp: at,
  data: { tag: 'navigation', payload: { url, title, trigger: 'pushState' } },
});

/** The shop page: a button, a button whose text the recorder masked, and an icon button named by its aria-label. */
const SHOP_PAGE = [
  el(4, 'main', {}, el(5, 'button', { id: 'add' }, txt(6, 'Add to cart'))),
  el(7, 'button', { id: 'pay', class: 'svc-mask' }, txt(8, MASK)),
  el(9, 'button', { 'aria-label': 'Add to wishlist' }, el(10, 'svg', {})),
];

interface Sent {
  logs: LogItem[];
  spans: SpanItem[];
  chunks: Array<{ replayId: string; events: RrwebEvent[] }>;
}

const consoleLog = (sessionId: string, level: LogItem['level'], body: string, timeMs: number): LogItem => ({
  kind: 'log',
  timeMs,
  level,
  body,
  sessionId,
  attributes: { 'log.source': 'console', 'session.id': sessionId },
});

function errorLog(sessionId: string, error: Error, timeMs: number): LogItem {
  const info = describeException(error);
  const attributes = { 'log.source': 'onerror', ...exceptionAttributes(info), 'session.id': sessionId };
  return { kind: 'log', timeMs, level: 'error', body: exceptionBody(info), sessionId, attributes };
}

/** A `browser.fetch` span as src/tracing/fetch.ts ends it. */
function fetchSpan(
  sessionId: string,
  method: string,
  url: string,
  status: number,
  startMs: number,
  durationMs: number,
  error?: string,
): SpanItem {
  return {
    kind: 'span',
    traceId: randomHex(32),
    spanId: randomHex(16),
    name: `browser.fetch ${method}`,
    spanKind: 3,
    startMs,
    endMs: startMs + durationMs,
    sessionId,
    attributes: {
      'http.method': method,
      'http.url': url,
      replay_id: 'r-shop',
      'http.status_code': status,
      'http.duration_ms': durationMs,
      'session.id': sessionId,
    },
    events: [],
    statusCode: error !== undefined || status >= 400 ? 2 : 0,
    statusMessage: error ?? (status >= 400 ? `HTTP ${status}` : undefined),
    scope: { name: SDK_NAME, version: SDK_VERSION },
  };
}

/** An XHR span as the SDK records it (src/tracing/xhr-network.ts): the semantic-convention names plus the SDK's. */
function xhrSpan(sessionId: string, url: string, status: number, startMs: number, durationMs: number): SpanItem {
  const base = fetchSpan(sessionId, 'GET', url, status, startMs, durationMs);
  const attributes = {
    'http.request.method': 'GET',
    'url.full': url,
    'http.response.status_code': status,
    ...base.attributes,
  };
  return {
    ...base,
    name: 'GET',
    attributes,
    scope: { name: '@opentelemetry/instrumentation-xml-http-request', version: '0.57.0' },
  };
}

let hexCounter = 0;
const randomHex = (length: number): string => (++hexCounter).toString(16).padStart(length, '0');

/**
 * Session `s-shop`: replay `r-shop` loaded the shop page 4 minutes before the error (its only full snapshot), added a
 * checkout button 40 s before, then the user clicked, navigated and clicked in the window; replay `r-reload` is a
 * reload 3 s before the error. Console output, a log, requests and the error itself around the window's edges.
 */
function shopSession(): Sent {
  const s = 's-shop';
  return {
    chunks: [
      { replayId: 'r-shop', events: pageLoad('http://shop.test/products?page=2', T - 240_000, ...SHOP_PAGE) },
      { replayId: 'r-shop', events: [mouseMove(T - 120_000)] },
      {
        replayId: 'r-shop',
        events: [
          addNode(3, el(20, 'button', { 'data-testid': 'checkout' }, txt(21, 'Checkout')), T - 40_000),
          click(5, T - 39_000),
        ],
      },
      {
        replayId: 'r-shop',
        events: [
          click(5, T - 30_001),
          click(5, T - 30_000),
          click(20, T - 28_000),
          navigation('http://shop.test/checkout', 'Checkout', T - 25_000),
        ],
      },
      { replayId: 'r-shop', events: [click(7, T - 10_000), click(10, T - 5_000)] },
      {
        replayId: 'r-reload',
        events: [
          ...pageLoad('http://shop.test/checkout?step=2', T - 3_000, el(4, 'button', { id: 'retry' }, txt(5, 'Retry'))),
          click(4, T),
          click(4, T + 1),
        ],
      },
    ],
    logs: [
      consoleLog(s, 'info', 'too early', T - 45_000),
      consoleLog(s, 'warn', 'just outside the window', T - 30_001),
      consoleLog(s, 'warn', 'stock low for sku 42\nsecond line', T - 20_000),
      { ...consoleLog(s, 'info', 'cart opened', T - 15_000), attributes: { 'session.id': s } },
      // The outcome log src/tracing/fetch.ts writes beside the span: the span is the breadcrumb.
      {
        ...consoleLog(s, 'error', 'POST http://shop.test/api/cart → 500 (120 ms)', T - 11_880),
        attributes: { 'http.method': 'POST', 'http.url': 'http://shop.test/api/cart', 'session.id': s },
      },
      errorLog(s, new TypeError("Cannot read properties of undefined (reading 'total')"), T),
      consoleLog(s, 'error', 'after the error', T + 1),
    ],
    spans: [
      fetchSpan(s, 'GET', 'http://shop.test/api/too-early', 200, T - 30_001, 4),
      {
        ...fetchSpan(s, 'POST', 'http://shop.test/ui', 0, T - 30_000, 1),
        name: 'click',
        spanKind: 1,
        attributes: { event_type: 'click', target_element: 'BUTTON', 'session.id': s },
      },
      fetchSpan(s, 'POST', 'http://shop.test/api/cart', 500, T - 12_000, 120.4),
      xhrSpan(s, 'https://api.other.test/v1/rates?currency=EUR', 200, T - 8_000, 35),
      fetchSpan(s, 'GET', 'http://shop.test/api/stock', 0, T - 6_000, 3, 'TypeError: Failed to fetch'),
      fetchSpan(s, 'GET', 'http://shop.test/api/later', 200, T + 1, 4),
    ],
  };
}

/** Session `s-busy`: a page load, then 150 clicks and 150 console lines, alternating, in the 15 s before the error. */
const busySession = (): Sent => ({
  chunks: [
    { replayId: 'r-busy', events: pageLoad('http://shop.test/products', T - 20_000, ...SHOP_PAGE) },
    { replayId: 'r-busy', events: Array.from({ length: 150 }, (_, i) => click(5, T - 14_950 + i * 100)) },
  ],
  spans: [],
  logs: Array.from({ length: 150 }, (_, i) => consoleLog('s-busy', 'info', `line ${i}`, T - 14_900 + i * 100)),
});

/** Session `s-stale`: its only full snapshot is 400 s before the error, further back than breadcrumbs read. */
const staleSession = (): Sent => ({
  chunks: [
    { replayId: 'r-stale', events: pageLoad('http://shop.test/products', T - 400_000, ...SHOP_PAGE) },
    { replayId: 'r-stale', events: [click(5, T - 10_000)] },
  ],
  spans: [fetchSpan('s-stale', 'GET', 'http://shop.test/api/cart', 200, T - 9_000, 12)],
  logs: [],
});

describe.each(kinds)('breadcrumbs of an error on %s', (kind) => {
  let t: TestServer;
  const crumbs = (
    sessionId: string | null,
    atMs = T,
    windowMs?: number,
    projectId = t.projectId,
  ): Promise<Breadcrumb[]> =>
    breadcrumbsBefore(t.server.database.db, {
      projectId,
      sessionId,
      atMs,
      ...(windowMs !== undefined && { windowMs }),
    });

  const post = (path: string, body: string) => postIngest(t, path, body);

  async function send({ chunks, logs, spans }: Sent, sessionId: string): Promise<void> {
    const seqs = new Map<string, number>();
    for (const { replayId, events } of chunks) {
      const seq = seqs.get(replayId) ?? 0;
      seqs.set(replayId, seq + 1);
      const payload = eventsJson(events.map((e) => JSON.stringify(e)));
      await post(
        INGEST_PATHS.replayChunk,
        chunkBody(
          'web-app',
          { sessionId, replayId, nextSeq: seq + 1 },
          seq,
          events.map((e) => e.timestamp),
          payload,
        ),
      );
    }
    if (logs.length > 0) await post(INGEST_PATHS.logs, ENCODE_BODY.logs(logs, SERVICE));
    if (spans.length > 0) await post(INGEST_PATHS.traces, ENCODE_BODY.traces(spans, SERVICE));
  }

  beforeAll(async () => {
    t = await startTestServer(kind);
    await send(shopSession(), 's-shop');
    await send(busySession(), 's-busy');
    await send(staleSession(), 's-stale');
  });
  afterAll(() => t?.close());

  it('lists clicks, navigations, console output, logs, requests and the error of the 30 s before it, oldest first', async () => {
    const list = await crumbs('s-shop');
    expect(list.map(({ at, kind, message }) => [at, kind, message])).toEqual([
      [iso(T - 30_000), 'click', 'click on <button id="add"> "Add to cart"'],
      [iso(T - 28_000), 'click', 'click on <button data-testid="checkout"> "Checkout"'],
      [iso(T - 25_000), 'navigation', 'navigated to /checkout'],
      [iso(T - 20_000), 'console', 'console.warn: stock low for sku 42'],
      [iso(T - 15_000), 'log', 'info: cart opened'],
      [iso(T - 12_000), 'request', 'POST /api/cart → 500 (120 ms)'],
      [iso(T - 10_000), 'click', 'click on <button id="pay">'],
      [iso(T - 8_000), 'request', 'GET https://api.other.test/v1/rates?currency=EUR → 200 (35 ms)'],
      [iso(T - 6_000), 'request', 'GET /api/stock failed: TypeError: Failed to fetch (3 ms)'],
      [iso(T - 5_000), 'click', 'click on <button> "Add to wishlist"'],
      [iso(T - 3_000), 'navigation', 'loaded /checkout?step=2'],
      [iso(T), 'click', 'click on <button id="retry"> "Retry"'],
      [iso(T), 'error', "TypeError: Cannot read properties of undefined (reading 'total')"],
    ]);
  });

  it('keeps the facts behind each message as data', async () => {
    const list = await crumbs('s-shop');
    const byMessage = (start: string) => list.find((c) => c.message.startsWith(start))?.data;
    expect(byMessage('navigated')).toEqual({
      url: 'http://shop.test/checkout',
      title: 'Checkout',
      trigger: 'pushState',
    });
    expect(byMessage('loaded')).toEqual({ url: 'http://shop.test/checkout?step=2', trigger: 'load' });
    expect(byMessage('POST')).toMatchObject({
      method: 'POST',
      url: 'http://shop.test/api/cart',
      status: 500,
      duration_ms: 120.4,
    });
    expect(byMessage('click on <button id="pay">')).toEqual({ node_id: 7, element: '<button id="pay">' });
    expect(byMessage('TypeError')).toEqual({ level: 'error', type: 'TypeError' });
    expect(JSON.stringify(list)).not.toContain(MASK);
  });

  it('reads a shorter window when asked', async () => {
    const list = await crumbs('s-shop', T, 5_000);
    expect(list.map((c) => c.message)).toEqual([
      'click on <button> "Add to wishlist"',
      'loaded /checkout?step=2',
      'click on <button id="retry"> "Retry"',
      "TypeError: Cannot read properties of undefined (reading 'total')",
    ]);
  });

  it('keeps the 100 newest when more happened', async () => {
    const list = await crumbs('s-busy');
    expect(list).toHaveLength(100);
    expect(list[0]).toEqual({
      at: iso(T - 4_950),
      kind: 'click',
      message: 'click on <button id="add"> "Add to cart"',
      data: { node_id: 5, element: '<button id="add"> "Add to cart"' },
    });
    expect(list[1]).toEqual({
      at: iso(T - 4_900),
      kind: 'console',
      message: 'console.info: line 100',
      data: { level: 'info' },
    });
    expect(list[99]!.message).toBe('console.info: line 149');
    expect(list.filter((c) => c.kind === 'click')).toHaveLength(50);
  });

  it('does not read further back than the last 5 minutes for the page a click hit', async () => {
    expect((await crumbs('s-stale')).map((c) => c.message)).toEqual([
      'click on an element the recording does not hold',
      // Without the page's address, a request keeps its full URL.
      'GET http://shop.test/api/cart → 200 (12 ms)',
    ]);
  });

  it('has none for an error without a session, or for another project', async () => {
    expect(await crumbs(null)).toEqual([]);
    expect(await crumbs('s-shop', T, undefined, 'another-project')).toEqual([]);
  });
});

const iso = (ms: number): string => new Date(ms).toISOString();
