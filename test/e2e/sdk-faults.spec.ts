import { gunzipSync } from 'node:zlib';
import type { Page } from '@playwright/test';
import type {
  ExportLogsServiceRequest,
  ExportMetricsServiceRequest,
  ExportTraceServiceRequest,
  KeyValue,
} from '../../wire/otlp-json';
import { INGEST_PATHS } from '../../wire/paths';
import { startIngestProxy, type IngestProxy, type ProxiedRequest } from '../support/ingest-proxy';
import { controlGet, type TestServer } from '../support/svc-server';
import { logRecords, SEQ } from './support/log-records';
import { expect, test } from './fixtures';
import { sdkPageForFile } from './support/sdk-page';

/**
 * Ingest faults in real Chromium with the real SDK bundle (dist/cdn/svc.min.js) and the real reference server behind
 * a proxy that plays the fault (test/support/ingest-proxy.ts): ingest down, slow past `requestTimeoutMs`, answering
 * 429 with Retry-After, 500 and 400. Throughout, the app keeps working and nothing surfaces in the page; the queue
 * and the heap stay bounded; after recovery what the queue held arrives, exactly once.
 */

const FLUSH_MS = 100;
/**
 * Well above what the reference server takes to store a batch, so a healthy request is never abandoned: a request
 * abandoned after the server stored it would legitimately be stored twice when retried (at-least-once).
 */
const TIMEOUT_MS = 1000;
const DROPPED_METRIC = 'svc.sdk.dropped_items';
/** The retry policy's first ceilings are 1, 2, 4, 8 s (src/pipeline/retry.ts); recovery waits cover a few of them. */
const RECOVERY_TIMEOUT_MS = 20_000;
/** `test.seq` of the marker record of settle(), which no test logs otherwise. */
const MARKER_SEQ = 1_000_000;

const app = sdkPageForFile();

interface PageOptions {
  maxQueueSize?: number;
  /**
   * Wrap `fetch` before the SDK starts, so the SDK's transport (it keeps the fetch it found at start-up) goes through
   * a probe that counts ingest requests in flight and keeps their bodies.
   */
  probe?: boolean;
  /**
   * The `persistence` option. Off where a test is about the in-memory queue: with it, records whose retries are spent
   * leave the queue for IndexedDB (test/e2e/sdk-persistence.spec.ts).
   */
  persistence?: boolean;
}

/**
 * The page: the probe (optional), the SDK from its script tag, and a tiny app (a button that adds list items).
 * Vitals are off so the SDK records nothing on its own after load (LCP would be reported at the first click), which
 * lets a test account for every record; replay is off for the same reason.
 */
function pageHtml(proxy: IngestProxy, ingest: TestServer, options: PageOptions): string {
  const config = {
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl: proxy.url,
    flushIntervalMs: FLUSH_MS,
    requestTimeoutMs: TIMEOUT_MS,
    maxQueueSize: options.maxQueueSize ?? 1000,
    persistence: options.persistence ?? true,
    debug: true,
    replay: { enabled: false },
    vitals: { enabled: false },
  };
  const probe = `<script>
(() => {
  const base = window.fetch.bind(window);
  const probe = (window.ingestProbe = { inFlight: 0, calls: [] });
  window.fetch = (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    if (!url.startsWith(${JSON.stringify(proxy.url)})) return base(input, init);
    probe.inFlight += 1;
    // Bodies are gzipped where the browser can (CompressionStream): keep the bytes, Node decompresses them.
    const body = init && init.body;
    probe.calls.push({ at: performance.now(), path: new URL(url).pathname,
      body: typeof body === 'string' ? body : null, gzip: body instanceof Uint8Array ? Array.from(body) : null });
    return base(input, init).finally(() => { probe.inFlight -= 1; });
  };
})();
</script>`;
  return `<!doctype html><html><head><title>faults</title>${options.probe ? probe : ''}
<script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script></head>
<body><button id="add" type="button">Add</button><ul id="items"></ul>
<script>
document.getElementById('add').addEventListener('click', () => {
  const item = document.createElement('li');
  item.textContent = 'item ' + (document.querySelectorAll('#items li').length + 1);
  document.getElementById('items').append(item);
});
</script></body></html>`;
}

interface OpenedPage {
  sessionId: string;
  /** Uncaught exceptions and unhandled rejections in the page. */
  pageErrors: string[];
  /** Console errors other than Chromium's own lines about requests to ingest that failed. */
  consoleErrors: string[];
  /** The SDK's `[svc]` debug warnings. */
  sdkWarnings: string[];
}

/**
 * Chromium prints a console error of its own for each failed request, located at the request's URL: `Failed to load
 * resource: net::ERR_CONNECTION_RESET` (a network error) or `Failed to load resource: the server responded with a
 * status of 429 (Too Many Requests)`. Those are the browser reporting the fault we inject, not errors in the page:
 * only they are tolerated, and only at the OTLP URLs of the proxy.
 */
const BROWSER_REQUEST_FAILURE =
  /^Failed to load resource: (net::ERR_[A-Z_]+|the server responded with a status of \d{3} \([A-Za-z ]+\))$/;

function isIngestNetworkLine(text: string, locationUrl: string, proxy: IngestProxy): boolean {
  const otlpUrls = Object.values(INGEST_PATHS).map((path) => proxy.url + path);
  return otlpUrls.includes(locationUrl) && BROWSER_REQUEST_FAILURE.test(text);
}

async function openPage(
  page: Page,
  ingest: TestServer,
  proxy: IngestProxy,
  options: PageOptions = {},
): Promise<OpenedPage> {
  const opened: OpenedPage = { sessionId: '', pageErrors: [], consoleErrors: [], sdkWarnings: [] };
  page.on('pageerror', (error) => opened.pageErrors.push(error.message));
  page.on('console', (message) => {
    const text = message.text();
    if (message.type() === 'warning' && text.startsWith('[svc] ')) opened.sdkWarnings.push(text);
    if (message.type() === 'error' && !isIngestNetworkLine(text, message.location().url, proxy)) {
      opened.consoleErrors.push(`${text} (at ${message.location().url})`);
    }
  });
  app.setHtml(pageHtml(proxy, ingest, options));
  await page.goto(`${app.origin}/`);
  opened.sessionId = await page.evaluate(() => (window as any).sdk.sessionId as string);
  return opened;
}

/** Waits until ingest has been quiet (nothing pending or arriving) for a few flush periods, after some delivery. */
async function waitForQuiet(proxy: IngestProxy): Promise<void> {
  await expect
    .poll(
      () =>
        proxy.posts().some((p) => p.status === 200) &&
        proxy.pending() === 0 &&
        performance.now() - proxy.lastActivity() >= 5 * FLUSH_MS,
      { message: 'start-up telemetry delivered and ingest quiet', timeout: 10_000, intervals: [50] },
    )
    .toBe(true);
}

type Row = Record<string, unknown> & { attributes: Record<string, unknown> };

async function stored(ingest: TestServer, kind: 'logs' | 'spans' | 'metrics', sessionId: string): Promise<Row[]> {
  const res = await controlGet<{ data: Row[] }>(ingest, `/${kind}?session_id=${sessionId}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** `test.seq` of the stored logs of the session that carry one, ascending; the marker (see settle) left out. */
async function storedSeqs(ingest: TestServer, sessionId: string): Promise<number[]> {
  const rows = await stored(ingest, 'logs', sessionId);
  return rows
    .flatMap((r) =>
      typeof r.attributes[SEQ] === 'number' && r.attributes[SEQ] !== MARKER_SEQ ? [r.attributes[SEQ]] : [],
    )
    .sort((a, b) => a - b);
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

function intAttribute(attributes: KeyValue[], key: string): number | undefined {
  const value = attributes.find((a) => a.key === key)?.value;
  return value && 'intValue' in value ? Number(value.intValue) : undefined;
}

/** `test.seq` of the log records in an OTLP/JSON logs body, in order. */
function seqsInBody(body: string): number[] {
  const request = JSON.parse(body) as ExportLogsServiceRequest;
  return request.resourceLogs.flatMap((r) =>
    r.scopeLogs.flatMap((s) => s.logRecords.flatMap((l) => intAttribute(l.attributes, SEQ) ?? [])),
  );
}

/**
 * One key per record in an OTLP/JSON body posted to `path`, so records sent again can be recognised. The SDK's own
 * drop counter is not a record of the queue and is left out.
 */
function recordKeys(path: string, body: string): string[] {
  if (path === INGEST_PATHS.logs) {
    const request = JSON.parse(body) as ExportLogsServiceRequest;
    return request.resourceLogs.flatMap((r) =>
      r.scopeLogs.flatMap((s) => s.logRecords.map((l) => `log ${l.timeUnixNano} ${JSON.stringify(l.body)}`)),
    );
  }
  if (path === INGEST_PATHS.traces) {
    const request = JSON.parse(body) as ExportTraceServiceRequest;
    return request.resourceSpans.flatMap((r) =>
      r.scopeSpans.flatMap((s) => s.spans.map((span) => `span ${span.spanId}`)),
    );
  }
  const request = JSON.parse(body) as ExportMetricsServiceRequest;
  return request.resourceMetrics.flatMap((r) =>
    r.scopeMetrics.flatMap((s) =>
      s.metrics
        .filter((m) => m.name !== DROPPED_METRIC)
        .flatMap((m) => ('gauge' in m ? m.gauge : m.sum).dataPoints.map((p) => `metric ${m.name} ${p.timeUnixNano}`)),
    ),
  );
}

/**
 * Shows that nothing more is coming without waiting a while for it: logs a marker record and waits until it is stored
 * and every request to ingest has been answered (but those the proxy holds on purpose). A flush takes everything
 * queued, retries included once their backoff is over, so whatever was logged before the marker has by then been sent
 * with it or before it, and stored or refused: a record sent twice would already be stored twice.
 */
async function settle(page: Page, ingest: TestServer, proxy: IngestProxy, sessionId: string): Promise<void> {
  await logRecords(page, MARKER_SEQ, 1);
  await expect
    .poll(async () => (await stored(ingest, 'logs', sessionId)).some((r) => r.attributes[SEQ] === MARKER_SEQ), {
      message: 'the marker stored',
      timeout: RECOVERY_TIMEOUT_MS,
    })
    .toBe(true);
  const unanswered = () =>
    proxy.seen.filter(
      (r) => r.method === 'POST' && r.handling !== 'held' && r.answeredAt === undefined && r.abandonedAt === undefined,
    );
  await expect.poll(() => unanswered().length, { message: 'every request to ingest answered' }).toBe(0);
}

function expectHealthyPage(opened: OpenedPage): void {
  expect(opened.pageErrors, 'no uncaught errors in the page').toEqual([]);
  expect(opened.consoleErrors, 'no console errors but the browser reporting failed ingest requests').toEqual([]);
}

test.describe('ingest down', () => {
  test('the app keeps working, the queue keeps the newest maxQueueSize records and counts the rest, which arrive after recovery', async ({
    page,
    ingest,
  }) => {
    const proxy = await startIngestProxy(ingest.url);
    try {
      const opened = await openPage(page, ingest, proxy, { maxQueueSize: 50, probe: true, persistence: false });
      const { sessionId } = opened;
      // Start-up telemetry (document load spans) is delivered first, so the queue is empty when ingest goes down.
      await waitForQuiet(proxy);
      const before = {
        logs: (await stored(ingest, 'logs', sessionId)).length,
        spans: (await stored(ingest, 'spans', sessionId)).length,
        metrics: (await stored(ingest, 'metrics', sessionId)).length,
      };
      expect(before.spans, 'document load spans delivered').toBeGreaterThan(0);

      await page.evaluate(() => void ((window as any).ingestProbe.calls.length = 0));
      proxy.setFault({ kind: 'down' });

      // The app, while its telemetry cannot get out: its UI and its own requests (through the SDK's fetch) work.
      await page.click('#add');
      await page.click('#add');
      await expect(page.locator('#items li')).toHaveText(['item 1', 'item 2']);
      const echo = await page.evaluate(async () => {
        const res = await fetch('/api/echo?from=app');
        const { headers } = (await res.json()) as { headers: Record<string, string> };
        return { status: res.status, session: headers['x-svc-session-id'] };
      });
      expect(echo, 'the request went through, still carrying the session header').toEqual({
        status: 200,
        session: sessionId,
      });
      const appDoneAt = await page.evaluate(() => performance.now());

      // Wait for a flush that started after the app's records were made and has failed: it carried every record
      // the SDK held (a flush takes them all), and they are back on the queue.
      await expect
        .poll(
          () =>
            page.evaluate((t) => {
              const probe = (window as any).ingestProbe as { inFlight: number; calls: Array<{ at: number }> };
              return probe.inFlight === 0 && probe.calls.some((c) => c.at > t);
            }, appDoneAt),
          { message: 'a failed flush after the app ran', timeout: 10_000, intervals: [50] },
        )
        .toBe(true);
      expect(proxy.resets.length, 'ingest refused the connections').toBeGreaterThan(0);
      const attempted: Array<{ path: string; body: string | null; gzip: number[] | null }> = await page.evaluate(
        () => (window as any).ingestProbe.calls,
      );
      const text = (call: (typeof attempted)[number]) =>
        call.body ?? gunzipSync(Buffer.from(call.gzip ?? [])).toString();
      const held = new Set(attempted.flatMap((c) => recordKeys(c.path, text(c))));
      expect(held.size, "the app's records were held: at least its fetch span and outcome log").toBeGreaterThanOrEqual(
        2,
      );

      // 500 records in one task, started when nothing is on the wire: the queue then holds exactly the newest 50,
      // and everything older (the app's records and the first 450) is dropped and counted.
      await expect
        .poll(
          () =>
            page.evaluate((seq) => {
              const probe = (window as any).ingestProbe as { inFlight: number };
              if (probe.inFlight > 0) return false;
              for (let i = 0; i < 500; i++) (window as any).sdk.log('info', `record ${i}`, { attrs: { [seq]: i } });
              return true;
            }, SEQ),
          { message: 'logged while nothing was in flight', timeout: 10_000, intervals: [20] },
        )
        .toBe(true);
      const expectedDropped = held.size + 450;

      proxy.setFault(undefined);
      await expect.poll(() => storedSeqs(ingest, sessionId), { timeout: RECOVERY_TIMEOUT_MS }).toEqual(range(450, 500));
      const dropReports = async () =>
        (await stored(ingest, 'metrics', sessionId))
          .filter((m) => m.name === DROPPED_METRIC)
          .map((m) => ({ value: m.value, attributes: m.attributes }));
      await expect
        .poll(dropReports, { timeout: 10_000 })
        .toEqual([{ value: expectedDropped, attributes: expect.objectContaining({ reason: 'queue_full' }) }]);

      // Nothing else arrives: not the dropped records, not a second copy of anything.
      await settle(page, ingest, proxy, sessionId);
      expect(await storedSeqs(ingest, sessionId)).toEqual(range(450, 500));
      expect((await stored(ingest, 'logs', sessionId)).length, 'the 50 records and the marker').toBe(before.logs + 51);
      expect((await stored(ingest, 'spans', sessionId)).length).toBe(before.spans);
      expect((await stored(ingest, 'metrics', sessionId)).length).toBe(before.metrics + 1);
      expect(
        opened.sdkWarnings.some((w) => w.includes('queue full (maxQueueSize 50)')),
        'the drop was reported in debug mode',
      ).toBe(true);
      expectHealthyPage(opened);
    } finally {
      await proxy.close();
    }
  });

  test('the JS heap stays bounded while thousands of records cannot be sent', async ({ page, ingest }) => {
    const proxy = await startIngestProxy(ingest.url);
    try {
      proxy.setFault({ kind: 'down' });
      const opened = await openPage(page, ingest, proxy, { maxQueueSize: 50, persistence: false });
      const cdp = await page.context().newCDPSession(page);
      const heapUsed = async () => {
        await cdp.send('HeapProfiler.collectGarbage');
        return (await cdp.send('Runtime.getHeapUsage')).usedSize;
      };
      const RECORD_CHARS = 4000;
      // Fill the queue first, so the baseline already holds its 50 records and the code paths are compiled, and wait
      // for a flush of them that failed: they are back on the queue and the SDK backs off.
      await logRecords(page, 0, 200, RECORD_CHARS);
      await proxy.resetsReach(proxy.resets.length + 1);
      const before = await heapUsed();
      // 5,000 more, in slices, then the SDK's next attempt, which fails too: it carried the full queue.
      for (let from = 200; from < 5200; from += 500) await logRecords(page, from, 500, RECORD_CHARS);
      await proxy.resetsReach(proxy.resets.length + 1);
      const after = await heapUsed();
      // Each record holds its own ~4 KB body: keeping all 5,000 would add ~20 MB, while the bounded queue swaps 50
      // records for 50 of the same size (~0 growth). 5 MB is a quarter of the unbounded cost, far above what a full
      // GC leaves as noise (compiled code, inline caches: well under 1 MB), so only real retention fails it.
      expect(after - before, `heap grew from ${before} to ${after} bytes`).toBeLessThan(5 * 1024 * 1024);
      expectHealthyPage(opened);
      await cdp.detach();
    } finally {
      await proxy.close();
    }
  });
});

/** Sends `count` records once ingest has been quiet, and returns the POSTs that follow, once the records arrived. */
async function postsAfterQuiet(
  proxy: IngestProxy,
  page: Page,
  ingest: TestServer,
  sessionId: string,
  count: number,
): Promise<ProxiedRequest[]> {
  const from = proxy.seen.length;
  await logRecords(page, 0, count);
  await expect.poll(() => storedSeqs(ingest, sessionId), { timeout: RECOVERY_TIMEOUT_MS }).toEqual(range(0, count));
  return proxy.seen.slice(from).filter((r) => r.method === 'POST');
}

/** Once nothing more can come (settle), the records are stored exactly once each, and the page is healthy. */
async function expectExactlyOnce(
  page: Page,
  ingest: TestServer,
  opened: OpenedPage,
  proxy: IngestProxy,
  count: number,
): Promise<void> {
  await settle(page, ingest, proxy, opened.sessionId);
  expect(await storedSeqs(ingest, opened.sessionId), 'each record stored once').toEqual(range(0, count));
  for (const forwarded of proxy.posts().filter((p) => p.handling === 'forwarded')) {
    // A forwarded request the page gave up on may have been stored before the page retried it: that duplicate would
    // be at-least-once delivery on a too slow machine, not the fault under test.
    expect(forwarded.abandonedAt, 'no forwarded request was abandoned by the page').toBeUndefined();
  }
  expectHealthyPage(opened);
}

test('ingest slow: requests held past requestTimeoutMs are aborted and retried; after recovery every record arrives exactly once', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const opened = await openPage(page, ingest, proxy);
    await waitForQuiet(proxy);
    // The next two POSTs hang and are never forwarded: anything stored twice would have been sent twice by the SDK.
    proxy.setFault({ kind: 'slow' }, 2);
    const posts = await postsAfterQuiet(proxy, page, ingest, opened.sessionId, 20);

    expect(posts.map((p) => p.handling)).toEqual(['held', 'held', 'forwarded']);
    for (const post of posts)
      expect(seqsInBody(post.body), 'each attempt carried the same records').toEqual(range(0, 20));
    for (const held of posts.slice(0, 2)) expect(held.answeredAt, 'a held request is never answered').toBeUndefined();
    // The SDK gave up on each held request when its timeout fired, and only then retried. (The proxy cannot see the
    // abort itself: Chromium keeps an aborted keepalive request open on the network, it only rejects the page's
    // promise.) Lower bounds: each retry left at least the timeout after the previous attempt arrived.
    const timedOut = opened.sdkWarnings.filter((w) =>
      w.startsWith(`[svc] sending to ${proxy.url}${INGEST_PATHS.logs} failed (timed out)`),
    );
    expect(timedOut).toHaveLength(2);
    for (let i = 1; i < posts.length; i++)
      expect(posts[i]!.receivedAt - posts[i - 1]!.receivedAt).toBeGreaterThanOrEqual(0.9 * TIMEOUT_MS);
    await expectExactlyOnce(page, ingest, opened, proxy, 20);
  } finally {
    await proxy.close();
  }
});

/** `log.record.uid` of the log records in an OTLP/JSON logs body, in order. */
function uidsInBody(body: string): string[] {
  const request = JSON.parse(body) as ExportLogsServiceRequest;
  return request.resourceLogs.flatMap((r) =>
    r.scopeLogs.flatMap((s) =>
      s.logRecords.map((l) => {
        const value = l.attributes.find((a) => a.key === 'log.record.uid')?.value;
        return value && 'stringValue' in value ? value.stringValue : '';
      }),
    ),
  );
}

test('answer lost after ingest stored the records: the SDK sends them again, and each record is stored once', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const opened = await openPage(page, ingest, proxy);
    await waitForQuiet(proxy);
    // The next POST reaches ingest and is stored, but its answer never reaches the page.
    proxy.setFault({ kind: 'lost' }, 1);
    const from = proxy.seen.length;
    await logRecords(page, 0, 10);
    const posts = () => proxy.seen.slice(from).filter((r) => r.method === 'POST' && r.path === INGEST_PATHS.logs);
    await expect
      .poll(() => posts().map((p) => `${p.handling} ${p.status}`), { timeout: RECOVERY_TIMEOUT_MS })
      .toEqual(['lost 200', 'forwarded 200']);

    const [lost, retry] = posts() as [ProxiedRequest, ProxiedRequest];
    expect(seqsInBody(retry.body), 'the same records, sent again').toEqual(range(0, 10));
    const uids = uidsInBody(lost.body);
    expect(new Set(uids).size, 'every record has its own log.record.uid').toBe(10);
    expect(uidsInBody(retry.body), 'with the same identities').toEqual(uids);
    expect(await storedSeqs(ingest, opened.sessionId), 'each record stored once').toEqual(range(0, 10));
    expectHealthyPage(opened);
  } finally {
    await proxy.close();
  }
});

test('ingest answering 429 with Retry-After: 2: the next attempt waits at least that long, then the records arrive', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const opened = await openPage(page, ingest, proxy);
    await waitForQuiet(proxy);
    proxy.setFault(
      {
        kind: 'status',
        status: 429,
        headers: { 'retry-after': '2', 'content-type': 'application/json' },
        body: '{"error":"rate limited"}',
      },
      1,
    );
    const posts = await postsAfterQuiet(proxy, page, ingest, opened.sessionId, 10);

    expect(posts.map((p) => p.status)).toEqual([429, 200]);
    const [limited, next] = posts as [ProxiedRequest, ProxiedRequest];
    expect(seqsInBody(next.body), 'the same records, sent again').toEqual(seqsInBody(limited.body));
    // Ordering on the proxy's clock: the retry came no sooner than Retry-After after the 429 left the proxy (the
    // page received it later still). Without Retry-After the first wait is drawn below 1 s.
    expect(next.receivedAt - limited.answeredAt!).toBeGreaterThanOrEqual(1900);
    expect(opened.sdkWarnings.some((w) => w.includes('failed (HTTP 429)'))).toBe(true);
    await expectExactlyOnce(page, ingest, opened, proxy, 10);
  } finally {
    await proxy.close();
  }
});

test('ingest answering 500: the records are retried with backoff, then arrive', async ({ page, ingest }) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const opened = await openPage(page, ingest, proxy);
    await waitForQuiet(proxy);
    proxy.setFault(
      { kind: 'status', status: 500, headers: { 'content-type': 'application/json' }, body: '{"error":"internal"}' },
      2,
    );
    const posts = await postsAfterQuiet(proxy, page, ingest, opened.sessionId, 10);

    expect(posts.map((p) => p.status)).toEqual([500, 500, 200]);
    for (const post of posts)
      expect(seqsInBody(post.body), 'each attempt carried the same records').toEqual(range(0, 10));
    // Backoff: never sooner than the next timer tick after a failure.
    for (let i = 1; i < posts.length; i++)
      expect(posts[i]!.receivedAt - posts[i - 1]!.answeredAt!).toBeGreaterThanOrEqual(0.9 * FLUSH_MS);
    expect(opened.sdkWarnings.filter((w) => w.includes('failed (HTTP 500)'))).toHaveLength(2);
    await expectExactlyOnce(page, ingest, opened, proxy, 10);
  } finally {
    await proxy.close();
  }
});

test('ingest answering 400: the batch is dropped with a debug warning naming the status, never retried', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const opened = await openPage(page, ingest, proxy);
    await waitForQuiet(proxy);
    proxy.setFault(
      { kind: 'status', status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"bad batch"}' },
      1,
      INGEST_PATHS.logs,
    );
    const from = proxy.seen.length;
    await logRecords(page, 0, 5);
    const refusal = `[svc] ${proxy.url}${INGEST_PATHS.logs} refused 5 records with HTTP 400; they are dropped.`;
    await expect
      .poll(() => opened.sdkWarnings.filter((w) => w.startsWith(refusal)).length, { timeout: 10_000 })
      .toBe(1);
    expect(opened.sdkWarnings.find((w) => w.startsWith(refusal))).toContain('bad batch');

    // Later records still go; had the refused ones been put back, they would have gone first, with or before these.
    await logRecords(page, 5, 5);
    await expect
      .poll(() => storedSeqs(ingest, opened.sessionId), { timeout: RECOVERY_TIMEOUT_MS })
      .toEqual(range(5, 10));
    await settle(page, ingest, proxy, opened.sessionId);
    expect(await storedSeqs(ingest, opened.sessionId)).toEqual(range(5, 10));
    const posts = proxy.seen.slice(from).filter((r) => r.method === 'POST');
    const carrying = (seq: number) =>
      posts.filter((p) => p.path === INGEST_PATHS.logs && seqsInBody(p.body).includes(seq));
    for (const seq of range(0, 5))
      expect(
        carrying(seq).map((p) => p.status),
        `record ${seq} sent once, refused`,
      ).toEqual([400]);
    expectHealthyPage(opened);
  } finally {
    await proxy.close();
  }
});
