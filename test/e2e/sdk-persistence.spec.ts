import type { Page } from '@playwright/test';
import type { ExportLogsServiceRequest } from '../../wire/otlp-json';
import { INGEST_PATHS } from '../../wire/paths';
import { startIngestProxy, type IngestProxy } from '../support/ingest-proxy';
import { controlGet, type TestServer } from '../support/svc-server';
import { logRecords, SEQ } from './support/log-records';
import { expect, hex, test } from './fixtures';
import { sdkPageForFile } from './support/sdk-page';

/**
 * Nothing lost quietly (issue 17): the real SDK (dist/cdn/svc.min.js) in Chromium against the real server behind a
 * recording proxy that can play ingest down. Requests whose retries are spent go to IndexedDB (`svc-outbox`), those a
 * closing page could not hand over to local storage; the next page load of the origin sends them, oldest first, and
 * deletes each after its 2xx. The outbox is bounded (oldest dropped and counted), and two tabs starting at once send
 * each kept request once. Every wait is for an event: a record stored, the outbox emptied.
 */

/** Spent retries take four failed flushes; their backoff ceilings are 1, 2 and 4 s (src/pipeline/retry.ts). */
const PERSIST_TIMEOUT_MS = 30_000;

const app = sdkPageForFile();

function sdkHtml(proxy: IngestProxy, ingest: TestServer, flushIntervalMs = 100): string {
  const config = {
    apiKey: ingest.ingestKey,
    serviceName: 'web-app',
    ingestUrl: proxy.url,
    flushIntervalMs,
    requestTimeoutMs: 1000,
    replay: { enabled: false },
    vitals: { enabled: false },
  };
  return `<!doctype html><title>persistence</title><script src="/svc.min.js"></script>
<script>window.sdk = Svc.initBrowserSDK(${JSON.stringify(config)});</script><p>page</p>`;
}

const PLAIN_HTML = '<!doctype html><title>plain</title><p>no SDK here</p>';

async function openSdkPage(
  page: Page,
  proxy: IngestProxy,
  ingest: TestServer,
  flushIntervalMs?: number,
): Promise<string> {
  app.setHtml(sdkHtml(proxy, ingest, flushIntervalMs));
  await page.goto(`${app.origin}/`);
  return page.evaluate(() => (window as any).sdk.sessionId as string);
}

interface OutboxRow {
  id: number;
  path: string;
  body: string;
  count: number;
  bytes: number;
  claimedUntil: number;
}

/**
 * Runs `work` on the page's outbox store. Opens the database with the SDK's schema (src/pipeline/outbox.ts), so that
 * looking before the SDK created it does not leave a database without the store.
 */
function withOutbox<T>(page: Page, work: string, arg?: unknown): Promise<T> {
  return page.evaluate(
    ({ work, arg }) =>
      new Promise<T>((resolve, reject) => {
        const open = indexedDB.open('svc-outbox', 1);
        open.onupgradeneeded = () => open.result.createObjectStore('requests', { keyPath: 'id', autoIncrement: true });
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const store = db.transaction('requests', 'readwrite').objectStore('requests');
          const request = new Function('store', 'arg', work)(store, arg) as IDBRequest<T>;
          request.onsuccess = () => {
            db.close();
            resolve(request.result);
          };
          request.onerror = () => reject(request.error);
        };
      }),
    { work, arg },
  );
}

const outboxRows = (page: Page) => withOutbox<OutboxRow[]>(page, 'return store.getAll();');
const putRow = (page: Page, row: Omit<OutboxRow, 'id'>) => withOutbox<number>(page, 'return store.add(arg);', row);

/** Requests a closing page kept in local storage, as `{ path, body }`. */
const keptInStorage = (page: Page): Promise<Array<{ path: string; body: string }>> =>
  page.evaluate(() =>
    Object.keys(localStorage)
      .filter((key) => key.startsWith('svc.otlp.'))
      .map((key) => JSON.parse(localStorage.getItem(key)!) as { path: string; body: string }),
  );

/** `test.seq` of the log records in an OTLP/JSON logs body. */
function seqsInBody(body: string): number[] {
  const request = JSON.parse(body) as ExportLogsServiceRequest;
  return (request.resourceLogs ?? []).flatMap((r) =>
    r.scopeLogs.flatMap((s) =>
      s.logRecords.flatMap((l) => {
        const value = l.attributes?.find((a) => a.key === SEQ)?.value;
        return value && 'intValue' in value ? [Number(value.intValue)] : [];
      }),
    ),
  );
}

const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

async function outboxSeqs(page: Page): Promise<number[]> {
  return sorted(
    (await outboxRows(page)).filter((r) => r.path === INGEST_PATHS.logs).flatMap((r) => seqsInBody(r.body)),
  );
}

type Row = Record<string, unknown> & { attributes: Record<string, unknown> };

async function stored(ingest: TestServer, kind: 'logs' | 'metrics', sessionId: string): Promise<Row[]> {
  const res = await controlGet<{ data: Row[] }>(ingest, `/${kind}?session_id=${sessionId}&limit=1000`);
  expect(res.status).toBe(200);
  return res.body.data;
}

/** `test.seq` of every stored log of the session, duplicates kept. */
async function storedSeqs(ingest: TestServer, sessionId: string): Promise<number[]> {
  return sorted(
    (await stored(ingest, 'logs', sessionId)).flatMap((r) =>
      typeof r.attributes[SEQ] === 'number' ? [r.attributes[SEQ]] : [],
    ),
  );
}

test('ingest down: spent retries go to IndexedDB; after a reload with ingest back, each record is stored once and the outbox is empty', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const sessionId = await openSdkPage(page, proxy, ingest);
    proxy.setFault({ kind: 'down' });
    await logRecords(page, 0, 20);
    await expect
      .poll(() => outboxSeqs(page), { message: 'the records in the outbox', timeout: PERSIST_TIMEOUT_MS })
      .toEqual(range(0, 20));
    expect(await storedSeqs(ingest, sessionId)).toEqual([]);

    proxy.setFault(undefined);
    await page.reload();
    await expect.poll(() => outboxRows(page), { message: 'the outbox emptied' }).toEqual([]);
    // Each row is deleted only after its 2xx: once the outbox is empty, everything it held has been stored.
    expect(await storedSeqs(ingest, sessionId)).toEqual(range(0, 20));
    expect(await page.evaluate(() => localStorage.getItem('svc.outbox'))).toBeNull();
  } finally {
    await proxy.close();
  }
});

test('over the keepalive quota at page leave: what the browser did not take is kept and delivered by the next load', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    // Nothing is sent before the page is left: 200 records of ~1 KB are four ~60 KB requests, over the 64 KiB quota.
    const sessionId = await openSdkPage(page, proxy, ingest, 600_000);
    await logRecords(page, 0, 200, 1000);
    app.setHtml(PLAIN_HTML);
    await page.goto(`${app.origin}/plain`);
    const kept = (await keptInStorage(page))
      .filter((r) => r.path === INGEST_PATHS.logs)
      .flatMap((r) => seqsInBody(r.body));
    expect(kept.length, 'records kept by the closing page').toBeGreaterThan(0);
    // pagehide, then visibilitychange: each flushes, but a record is kept once.
    expect(new Set(kept).size, 'no record kept twice').toBe(kept.length);

    app.setHtml(sdkHtml(proxy, ingest));
    await page.goto(`${app.origin}/`);
    await expect.poll(() => storedSeqs(ingest, sessionId), { message: 'every record stored' }).toEqual(range(0, 200));
    await expect.poll(() => outboxRows(page), { message: 'the outbox emptied' }).toEqual([]);
    expect(await keptInStorage(page)).toEqual([]);
    expect(await storedSeqs(ingest, sessionId), 'each record once').toEqual(range(0, 200));
  } finally {
    await proxy.close();
  }
});

test('a full outbox drops its oldest requests and counts their records in svc.sdk.dropped_items (reason outbox_full)', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const sessionId = await openSdkPage(page, proxy, ingest);
    // An old request of 7 records that fills the 2 MB bound on its own (its size is what the outbox counts).
    const oldId = await putRow(page, {
      path: INGEST_PATHS.logs,
      body: '{}',
      count: 7,
      bytes: 1_999_990,
      claimedUntil: 0,
    });
    proxy.setFault({ kind: 'down' });
    await logRecords(page, 0, 5);
    await expect
      .poll(() => outboxSeqs(page), { message: 'the new records in the outbox', timeout: PERSIST_TIMEOUT_MS })
      .toEqual(range(0, 5));
    expect((await outboxRows(page)).map((r) => r.id)).not.toContain(oldId);

    // Back up: the next delivery drains the outbox, and the counter goes out with a later batch.
    proxy.setFault(undefined);
    await logRecords(page, 5, 1);
    await expect.poll(() => storedSeqs(ingest, sessionId), { message: 'every record stored' }).toEqual(range(0, 6));
    const drops = async () =>
      (await stored(ingest, 'metrics', sessionId))
        .filter((m) => m.name === 'svc.sdk.dropped_items' && m.attributes.reason === 'outbox_full')
        .map((m) => m.value);
    await expect.poll(drops, { message: 'the drop counted' }).toEqual([7]);
    await expect.poll(() => outboxRows(page), { message: 'the outbox emptied' }).toEqual([]);
  } finally {
    await proxy.close();
  }
});

test('two tabs starting at once: each kept request is sent by one of them only', async ({ page, context, ingest }) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    // Twenty kept requests of one record each, as an earlier page left them, and the marker that says so.
    const sessionId = hex(16);
    app.setHtml(PLAIN_HTML);
    await page.goto(`${app.origin}/plain`);
    for (let i = 0; i < 20; i++) {
      const body = JSON.stringify({
        resourceLogs: [
          {
            resource: {
              attributes: [
                { key: 'service.name', value: { stringValue: 'web-app' } },
                { key: 'session.id', value: { stringValue: sessionId } },
              ],
            },
            scopeLogs: [
              {
                scope: { name: 'e2e' },
                logRecords: [
                  {
                    timeUnixNano: `${Date.now()}000000`,
                    severityNumber: 9,
                    body: { stringValue: `kept ${i}` },
                    attributes: [{ key: SEQ, value: { intValue: String(i) } }],
                  },
                ],
              },
            ],
          },
        ],
      });
      await putRow(page, { path: INGEST_PATHS.logs, body, count: 1, bytes: body.length, claimedUntil: 0 });
    }
    await page.evaluate(() => localStorage.setItem('svc.outbox', '1'));

    const other = await context.newPage();
    app.setHtml(sdkHtml(proxy, ingest));
    await Promise.all([page.goto(`${app.origin}/`), other.goto(`${app.origin}/`)]);
    await expect.poll(() => outboxRows(page), { message: 'the outbox emptied' }).toEqual([]);
    expect(await storedSeqs(ingest, sessionId), 'each kept record once').toEqual(range(0, 20));
    expect(proxy.posts(INGEST_PATHS.logs).filter((p) => p.body.includes(sessionId))).toHaveLength(20);
  } finally {
    await proxy.close();
  }
});

test('without IndexedDB (blocked or private mode) nothing breaks: records that cannot be kept are counted (reason persist_failed)', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.addInitScript(() => Object.defineProperty(window, 'indexedDB', { value: undefined }));
    const sessionId = await openSdkPage(page, proxy, ingest);
    proxy.setFault({ kind: 'down' });
    await logRecords(page, 0, 3);
    // The marker is set when the pipeline hands requests to the outbox, which then fails to open.
    await expect
      .poll(() => page.evaluate(() => localStorage.getItem('svc.outbox')), { timeout: PERSIST_TIMEOUT_MS })
      .toBe('1');
    proxy.setFault(undefined);
    const lost = async () =>
      (await stored(ingest, 'metrics', sessionId))
        .filter((m) => m.name === 'svc.sdk.dropped_items' && m.attributes.reason === 'persist_failed')
        .map((m) => m.value as number);
    await expect
      .poll(async () => Math.max(0, ...(await lost())), { message: 'the loss counted' })
      .toBeGreaterThanOrEqual(3);
    expect(await storedSeqs(ingest, sessionId)).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await proxy.close();
  }
});

/** The kept requests and the outbox marker the SDK may leave in local storage: gone once all went out. */
const leftInStorage = (page: Page): Promise<string[]> =>
  page.evaluate(() => Object.keys(localStorage).filter((key) => key === 'svc.outbox' || key.startsWith('svc.otlp.')));

test('ingest answering 503 for the whole first page, then a reload with ingest back: each of the 20 records is stored once, nothing is left', async ({
  page,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    // Defaults (2 s flushes, 5 s timeout), as a real page has them: the retry budget is not spent before the leave.
    const sessionId = await openSdkPage(page, proxy, ingest, 2000);
    proxy.setFault({ kind: 'status', status: 503 });
    await logRecords(page, 0, 20);
    await expect.poll(() => proxy.posts(INGEST_PATHS.logs).length, { message: 'a failed attempt' }).toBe(1);
    // Left while backing off. A keepalive request handed over at the leave (none while the SDK waits) would meet the
    // 503 after the page is gone: what is not acknowledged is kept, each record once.
    app.setHtml(PLAIN_HTML);
    await page.goto(`${app.origin}/plain`);
    const kept = (await keptInStorage(page)).flatMap((r) => seqsInBody(r.body));
    expect(sorted(kept), 'records kept by the leaving page').toEqual(range(0, 20));
    await expect.poll(() => proxy.pending(), { message: 'the leave answered' }).toBe(0);
    expect(await storedSeqs(ingest, sessionId)).toEqual([]);

    proxy.setFault(undefined);
    app.setHtml(sdkHtml(proxy, ingest));
    await page.goto(`${app.origin}/`);
    await expect.poll(() => storedSeqs(ingest, sessionId), { message: 'every record stored' }).toEqual(range(0, 20));
    await expect.poll(() => outboxRows(page), { message: 'the outbox emptied' }).toEqual([]);
    await expect.poll(() => leftInStorage(page), { message: 'local storage emptied' }).toEqual([]);
    expect(await storedSeqs(ingest, sessionId), 'each record once').toEqual(range(0, 20));
  } finally {
    await proxy.close();
  }
});

test('800 records queued when the tab is closed, far over the keepalive quota: the next load delivers every one, once', async ({
  page,
  context,
  ingest,
}) => {
  const proxy = await startIngestProxy(ingest.url);
  try {
    // ~1.5 KB per encoded record: about 40 fit one ~60 KB request, the rest cannot leave with the tab.
    const sessionId = await openSdkPage(page, proxy, ingest, 600_000);
    await logRecords(page, 0, 800, 1000);
    await page.close();
    await expect
      .poll(() => proxy.posts(INGEST_PATHS.logs).length > 0 && proxy.pending() === 0, { message: 'the leave answered' })
      .toBe(true);

    const next = await context.newPage();
    app.setHtml(sdkHtml(proxy, ingest));
    await next.goto(`${app.origin}/`);
    await expect
      .poll(() => storedSeqs(ingest, sessionId), { message: 'every record stored', timeout: 20_000 })
      .toEqual(range(0, 800));
    await expect.poll(() => outboxRows(next), { message: 'the outbox emptied' }).toEqual([]);
    await expect.poll(() => leftInStorage(next), { message: 'local storage emptied' }).toEqual([]);
  } finally {
    await proxy.close();
  }
});
