import { randomBytes } from 'node:crypto';
import { expect, test as base, type CDPSession, type Page } from '@playwright/test';
import { serveLocally } from '../support/local-server';
import { controlGet, startCliServer, type CliServer, type TestServer } from '../support/svc-server';

/**
 * A second local origin serving the page under test, so the page is cross-origin to the ingest server exactly as a
 * real app is: same host (127.0.0.1), another port. Every path answers the same blank HTML page.
 */
export interface PageOrigin {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  close(): Promise<void>;
}

export async function startPageOrigin(): Promise<PageOrigin> {
  return serveLocally((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end('<!doctype html><html><head><title>svc e2e page</title></head><body><p>e2e</p></body></html>');
  });
}

/** A CORS preflight as Chromium sent and received it (seen through the DevTools protocol, not through the page). */
export interface ObservedPreflight {
  url: string;
  requestHeaders: Record<string, string>;
  status?: number;
  /** Response headers with lower-case names. */
  responseHeaders?: Record<string, string>;
}

/** An ordinary (non-preflight) request the page made, with its response once received. */
export interface ObservedRequest {
  url: string;
  method: string;
  status?: number;
  /** Response headers with lower-case names. */
  responseHeaders?: Record<string, string>;
}

const lower = (headers: object) =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v)]));

/**
 * Records what Chromium puts on the wire for the page, preflights included. Playwright's own `page.on('request')`
 * does not surface CORS preflights; the DevTools protocol does (initiator type `preflight`).
 */
export class NetworkLog {
  readonly preflights: ObservedPreflight[] = [];
  readonly requests: ObservedRequest[] = [];
  private readonly byId = new Map<string, ObservedPreflight | ObservedRequest>();

  private constructor(private readonly cdp: CDPSession) {}

  static async attach(page: Page): Promise<NetworkLog> {
    const cdp = await page.context().newCDPSession(page);
    const log = new NetworkLog(cdp);
    cdp.on('Network.requestWillBeSent', (e) => {
      if (e.initiator.type === 'preflight') {
        const p: ObservedPreflight = { url: e.request.url, requestHeaders: lower(e.request.headers) };
        log.byId.set(e.requestId, p);
        log.preflights.push(p);
      } else {
        const r: ObservedRequest = { url: e.request.url, method: e.request.method };
        log.byId.set(e.requestId, r);
        log.requests.push(r);
      }
    });
    cdp.on('Network.responseReceived', (e) => {
      const entry = log.byId.get(e.requestId);
      if (!entry) return;
      entry.status = e.response.status;
      entry.responseHeaders = lower(e.response.headers);
    });
    await cdp.send('Network.enable');
    return log;
  }

  preflightsTo(url: string): ObservedPreflight[] {
    return this.preflights.filter((p) => p.url === url);
  }

  requestsTo(url: string, method = 'POST'): ObservedRequest[] {
    return this.requests.filter((r) => r.url === url && r.method === method);
  }

  async detach(): Promise<void> {
    await this.cdp.detach().catch(() => undefined);
  }
}

export const hex = (bytes: number) => randomBytes(bytes).toString('hex');

/** An OTLP/JSON export with one span from the bootstrapped app `web-app`. */
export function otlpTrace(opts: { traceId: string; name: string; sessionId?: string }) {
  const now = BigInt(Date.now()) * 1_000_000n;
  const resourceAttributes = [{ key: 'service.name', value: { stringValue: 'web-app' } }];
  if (opts.sessionId) resourceAttributes.push({ key: 'session.id', value: { stringValue: opts.sessionId } });
  return {
    resourceSpans: [
      {
        resource: { attributes: resourceAttributes },
        scopeSpans: [
          {
            scope: { name: 'svc-e2e', version: '1.0.0' },
            spans: [
              {
                traceId: opts.traceId,
                spanId: hex(8),
                name: opts.name,
                kind: 3,
                startTimeUnixNano: String(now - 5_000_000n),
                endTimeUnixNano: String(now),
                attributes: [{ key: 'http.request.method', value: { stringValue: 'GET' } }],
                status: { code: 1 },
              },
            ],
          },
        ],
      },
    ],
  };
}

export type SpanRow = Record<string, unknown> & {
  app: string;
  name: string;
  trace_id: string;
  session_id: string | null;
};

/** Spans of one trace, read back through the control-plane query API with the control key. */
export async function spansOfTrace(t: TestServer, traceId: string): Promise<SpanRow[]> {
  const res = await controlGet<{ data: SpanRow[] }>(t, `/spans?trace_id=${traceId}`);
  expect(res.status, 'GET /control-plane/spans').toBe(200);
  return res.body.data;
}

/** Waits until the trace has `count` spans stored (beacons and keepalive requests report nothing to the page). */
export async function waitForSpans(t: TestServer, traceId: string, count = 1): Promise<SpanRow[]> {
  let rows: SpanRow[] = [];
  await expect
    .poll(
      async () => {
        rows = await spansOfTrace(t, traceId);
        return rows.length;
      },
      { message: `span(s) of trace ${traceId} stored`, timeout: 10_000, intervals: [50, 100, 250, 500] },
    )
    .toBe(count);
  return rows;
}

/**
 * Worker-scoped page origin and server: one `svc-server start` process per worker (built, on a SQLite file, with the
 * writer thread; test/support/svc-server.ts). Test-scoped `ingest`: a fresh project on that server (its own keys and
 * `web-app`, so a test reads back only what it sent), and network log. A failing test gets the server's output.
 */
export const test = base.extend<
  { ingest: TestServer; network: NetworkLog },
  { pageOrigin: PageOrigin; svcServer: CliServer }
>({
  pageOrigin: [
    // Playwright requires an object pattern as a fixture's first parameter, even an empty one.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const origin = await startPageOrigin();
      await use(origin);
      await origin.close();
    },
    { scope: 'worker' },
  ],
  svcServer: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startCliServer();
      await use(server);
      await server.close();
    },
    { scope: 'worker' },
  ],
  ingest: async ({ svcServer }, use, testInfo) => {
    const printed = svcServer.output().length;
    const project = await svcServer.newProject();
    await use(project);
    await project.close();
    if (testInfo.status !== testInfo.expectedStatus) {
      await testInfo.attach('svc-server output', {
        body: svcServer.output().slice(printed),
        contentType: 'text/plain',
      });
    }
  },
  network: async ({ page }, use) => {
    const log = await NetworkLog.attach(page);
    await use(log);
    await log.detach();
  },
});

export { expect };
