import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PipelineClock } from '../../src/pipeline/clock';
import type { LogItem, MetricItem, SpanItem } from '../../src/pipeline/items';
import { createPipeline, DROPPED_ITEMS_METRIC } from '../../src/pipeline/pipeline';
import { DEFAULT_RETRY_POLICY } from '../../src/pipeline/retry';
import type { Pipeline, PipelineOptions } from '../../src/pipeline/types';
import { SDK_NAME, SDK_VERSION } from '../../src/version';
import { controlGet, startTestServer, type TestServer } from '../support/server';

/**
 * The pipeline in Node with Node's real fetch: against the real reference server (records read back through the
 * query API), and against small local servers that misbehave on purpose (429 with Retry-After, 500, 408, 400, hanging,
 * connection refused).
 */

/**
 * Virtual time running SCALE times faster than real time: `now()` and every timer the pipeline sets agree, so a
 * 3-second Retry-After takes 30 real ms, and a gap between two requests can be checked in virtual milliseconds.
 */
const SCALE = 100;
function fastClock(): PipelineClock {
  const realStart = performance.now();
  const virtualStart = Date.UTC(2030, 0, 1);
  return {
    now: () => virtualStart + (performance.now() - realStart) * SCALE,
    // +1 ms: a real timer may fire a fraction of a millisecond early.
    setTimeout: (fn, ms) => setTimeout(fn, Math.ceil(ms / SCALE) + 1),
    clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
    random: () => 0.5,
  };
}

const hex = (n: number) =>
  Array.from({ length: n }, () =>
    Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('');
const NOW = Date.now();

const log = (sessionId: string, body: string, extra: Partial<LogItem> = {}): LogItem => ({
  kind: 'log',
  timeMs: NOW,
  level: 'info',
  body,
  sessionId,
  attributes: { 'session.id': sessionId },
  ...extra,
});

interface Harness {
  pipeline: Pipeline;
  warnings: string[];
  fetches: string[];
}

const running: Pipeline[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((p) => p.shutdown()));
});

type Overrides = Omit<Partial<PipelineOptions>, 'config'> & { config?: Partial<PipelineOptions['config']> };

function makePipeline(base: string, apiKey: string, overrides: Overrides = {}): Harness {
  const warnings: string[] = [];
  const fetches: string[] = [];
  const { config, ...rest } = overrides;
  const pipeline = createPipeline({
    config: {
      apiKey,
      serviceName: 'web-app',
      appId: undefined,
      env: 'staging',
      serviceVersion: '1.2.3',
      flushIntervalMs: 60_000,
      maxQueueSize: 1000,
      requestTimeoutMs: 5000,
      ...config,
    },
    resource: {
      'telemetry.sdk.name': SDK_NAME,
      'telemetry.sdk.version': SDK_VERSION,
      'telemetry.sdk.language': 'webjs',
    },
    fetch: (input, init) => {
      fetches.push(String(input));
      return fetch(input, init);
    },
    sendBeacon: undefined,
    ingestUrl: (path) => `${base}${path}`,
    debug: { warn: (m) => warnings.push(m), error: (m) => warnings.push(`error: ${m}`) },
    ...rest,
  });
  running.push(pipeline);
  return { pipeline, warnings, fetches };
}

describe('pipeline against the reference server', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('sqlite');
  });
  afterAll(() => t?.close());

  it('sends logs, spans and metrics, one request per signal, and they read back field for field', async () => {
    const { pipeline, fetches } = makePipeline(t.url, t.ingestKey);
    const traceId = hex(16);
    const spanId = hex(8);
    const [s1, s2] = [`sess-${hex(4)}`, `sess-${hex(4)}`];
    const levels = ['debug', 'info', 'warn', 'error', 'fatal'] as const;
    levels.forEach((level, i) =>
      pipeline.enqueue(
        log(s1, `${level} body`, {
          level,
          timeMs: NOW + i,
          traceId,
          spanId,
          attributes: { 'session.id': s1, n: i, ratio: 0.5, tags: ['a', 'b'] },
        }),
      ),
    );
    const span: SpanItem = {
      kind: 'span',
      traceId,
      spanId,
      parentSpanId: hex(8),
      name: 'browser.fetch GET',
      spanKind: 3,
      startMs: NOW + 0.25,
      endMs: NOW + 42.75,
      sessionId: s2,
      attributes: { 'session.id': s2, 'http.method': 'GET', 'http.status_code': 503 },
      events: [{ name: 'exception', timeMs: NOW + 40, attributes: { 'exception.type': 'TypeError' } }],
      statusCode: 2,
      statusMessage: 'HTTP 503',
      scope: { name: '@svc/browser', version: SDK_VERSION },
    };
    pipeline.enqueue(span);
    const lcp: MetricItem = {
      kind: 'metric',
      name: 'LCP',
      value: 1234.5,
      unit: 'ms',
      timeMs: NOW,
      sessionId: s2,
      attributes: { 'session.id': s2, rating: 'good' },
    };
    pipeline.enqueue(lcp);
    await pipeline.flush();

    expect(fetches.map((u) => new URL(u).pathname).sort()).toEqual([
      '/otlp/v1/logs',
      '/otlp/v1/metrics',
      '/otlp/v1/traces',
    ]);

    const logs = (await controlGet(t, `/logs?session_id=${s1}`)).body.data;
    expect(logs.map((l) => [l.severity_number, l.severity_text, l.body])).toEqual([
      [21, 'FATAL', 'fatal body'],
      [17, 'ERROR', 'error body'],
      [13, 'WARN', 'warn body'],
      [9, 'INFO', 'info body'],
      [5, 'DEBUG', 'debug body'],
    ]);
    expect(logs[4]).toMatchObject({
      app: 'web-app',
      session_id: s1,
      trace_id: traceId,
      span_id: spanId,
      time_unix_nano: `${NOW}000000`,
      attributes: { 'session.id': s1, n: 0, ratio: 0.5, tags: ['a', 'b'] },
      resource: {
        attributes: {
          'service.name': 'web-app',
          'service.version': '1.2.3',
          'deployment.environment': 'staging',
          'telemetry.sdk.name': SDK_NAME,
          'telemetry.sdk.version': SDK_VERSION,
          'session.id': s1,
        },
      },
      scope: { name: SDK_NAME, version: SDK_VERSION },
    });

    const spans = (await controlGet(t, `/spans?trace_id=${traceId}`)).body.data;
    expect(spans).toHaveLength(1);
    expect(spans[0]).toMatchObject({
      session_id: s2,
      trace_id: traceId,
      span_id: spanId,
      parent_span_id: span.parentSpanId,
      name: 'browser.fetch GET',
      kind: 3,
      start_time_unix_nano: `${NOW}250000`,
      end_time_unix_nano: `${NOW + 42}750000`,
      duration_ms: 42.5,
      status: { code: 2, message: 'HTTP 503' },
      attributes: { 'http.method': 'GET', 'http.status_code': 503 },
      events: [{ name: 'exception', timeUnixNano: `${NOW + 40}000000`, attributes: { 'exception.type': 'TypeError' } }],
      resource: { attributes: { 'service.name': 'web-app', 'session.id': s2 } },
    });

    const metrics = (await controlGet(t, `/metrics?session_id=${s2}`)).body.data;
    expect(metrics).toHaveLength(1);
    expect(metrics[0]).toMatchObject({
      name: 'LCP',
      unit: 'ms',
      type: 'gauge',
      value: 1234.5,
      attributes: { rating: 'good' },
      resource: { attributes: { 'session.id': s2 } },
    });
  });

  it('splits a batch over ~60 KB into several requests and every record arrives once', async () => {
    const { pipeline, fetches } = makePipeline(t.url, t.ingestKey);
    const session = `sess-${hex(4)}`;
    for (let i = 0; i < 400; i++) pipeline.enqueue(log(session, `record ${i} ${'x'.repeat(400)}`));
    await pipeline.flush();
    expect(fetches.length).toBeGreaterThan(2);
    const bodies = (await controlGet(t, `/logs?session_id=${session}&limit=1000`)).body.data.map(
      (l) => (l.body as string).split(' ')[1],
    );
    expect(bodies.map(Number).sort((a, b) => a - b)).toEqual(Array.from({ length: 400 }, (_, i) => i));
  });

  it('reports records dropped by a full queue as svc.sdk.dropped_items with the next batch, with a debug warning', async () => {
    const { pipeline, warnings } = makePipeline(t.url, t.ingestKey, { config: { maxQueueSize: 5 } });
    const session = `sess-${hex(4)}`;
    for (let i = 0; i < 8; i++) pipeline.enqueue(log(session, `r${i}`));
    expect(pipeline.dropped).toBe(3);
    await pipeline.flush();
    expect((await controlGet(t, `/logs?session_id=${session}`)).body.data.map((l) => l.body)).toEqual([
      'r7',
      'r6',
      'r5',
      'r4',
      'r3',
    ]);
    const dropped = (await controlGet(t, `/metrics?session_id=${session}&name=${DROPPED_ITEMS_METRIC}`)).body.data;
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toMatchObject({
      type: 'sum',
      value: 3,
      unit: '{item}',
      attributes: { reason: 'queue_full' },
      data: { aggregationTemporality: 2, isMonotonic: true },
    });
    expect(warnings.some((w) => w.includes('queue full') && w.includes('3'))).toBe(true);
    // Reported once: the next flush with nothing new sends no second point.
    pipeline.enqueue(log(session, 'later'));
    await pipeline.flush();
    expect((await controlGet(t, `/metrics?session_id=${session}&name=${DROPPED_ITEMS_METRIC}`)).body.data).toHaveLength(
      1,
    );
  });

  it('posts non-OTLP JSON (a replay chunk) with the same key', async () => {
    const { pipeline } = makePipeline(t.url, t.ingestKey);
    const session = `sess-${hex(4)}`;
    const events = [{ type: 4, timestamp: NOW, data: { href: 'http://x/', width: 1, height: 1 } }];
    const chunk = {
      serviceName: 'web-app',
      sessionId: session,
      replayId: 'r1',
      seq: 0,
      startTs: NOW,
      endTs: NOW,
      eventCount: 1,
      encoding: 'json',
      data: JSON.stringify(events),
    };
    expect(await pipeline.postJson('/ingest/replay/chunk', JSON.stringify(chunk))).toBe(true);
    expect((await controlGet(t, `/replay/chunks?session_id=${session}`)).body.data).toMatchObject([
      { replay_id: 'r1', seq: 0, events },
    ]);
    expect(await pipeline.postJson('/ingest/replay/chunk', JSON.stringify({ ...chunk, seq: -1 }))).toBe(false);
  });

  it('hands a queue larger than the keepalive budget over at unload: keepalive up to 64 KiB, beacons for the rest', async () => {
    const beacons: { url: string; bytes: number }[] = [];
    const pending: Promise<unknown>[] = [];
    // Node has no sendBeacon: this one posts the way a browser's does (text/plain, key in the URL) and says yes.
    const sendBeacon = (url: string, data: BodyInit) => {
      beacons.push({ url, bytes: Buffer.byteLength(data as string) });
      pending.push(fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain;charset=UTF-8' }, body: data }));
      return true;
    };
    const { pipeline, fetches } = makePipeline(t.url, t.ingestKey, { sendBeacon });
    const session = `sess-${hex(4)}`;
    for (let i = 0; i < 500; i++) pipeline.enqueue(log(session, `unload ${i} ${'y'.repeat(400)}`));
    pipeline.flushForUnload();
    // Handed over synchronously: keepalive fetches within the budget, beacons (≤ 60 KB each) beyond it.
    expect(fetches.length).toBeGreaterThan(0);
    expect(beacons.length).toBeGreaterThan(0);
    for (const b of beacons) {
      expect(b.url).toContain(`api_key=${encodeURIComponent(t.ingestKey)}`);
      expect(b.bytes).toBeLessThanOrEqual(60_000);
    }
    await Promise.all(pending);
    await expect
      .poll(async () => (await controlGet(t, `/logs?session_id=${session}&limit=1000`)).body.data.length, {
        timeout: 10_000,
      })
      .toBe(500);
  });

  it('sends nothing without an API key or a service name', async () => {
    for (const config of [{ apiKey: undefined }, { serviceName: undefined }]) {
      const { pipeline, fetches, warnings } = makePipeline(t.url, t.ingestKey, { config });
      pipeline.enqueue(log('s', 'never'));
      await pipeline.flush();
      pipeline.flushForUnload();
      expect(await pipeline.postJson('/ingest/replay/chunk', '{}')).toBe(false);
      expect(fetches).toEqual([]);
      expect(warnings.join()).toMatch(/apiKey, serviceName or fetch missing/);
    }
  });
});

type Reply = { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang';

interface Seen {
  path: string;
  /** Virtual time of arrival. */
  at: number;
  bodies: string[];
}

/**
 * A local ingest stand-in answering each request by `script(n, now)` (n from 0, `now` virtual) and recording what it
 * received. `delayMs` delays the answer in real time.
 */
/** A request body as text; the pipeline gzips where CompressionStream exists (Node has it), as ingest accepts. */
async function requestText(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks);
  return (req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString();
}

async function faultServer(clock: PipelineClock, script: (n: number, now: number) => Reply) {
  const seen: Seen[] = [];
  let concurrent = 0;
  let maxConcurrent = 0;
  const server = http.createServer((req, res) => {
    concurrent += 1;
    maxConcurrent = Math.max(maxConcurrent, concurrent);
    void requestText(req).then((body) => {
      const n = seen.length;
      const parsed = JSON.parse(body) as {
        resourceLogs?: { scopeLogs: { logRecords: { body: { stringValue: string } }[] }[] }[];
      };
      const bodies = (parsed.resourceLogs ?? []).flatMap((r) =>
        r.scopeLogs.flatMap((s) => s.logRecords.map((l) => l.body.stringValue)),
      );
      seen.push({ path: req.url ?? '', at: clock.now(), bodies });
      const reply = script(n, clock.now());
      if (reply === 'hang') return;
      setTimeout(() => {
        concurrent -= 1;
        res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
        res.end(reply.status < 300 ? '{"partialSuccess":{}}' : '{"error":{"code":"x","message":"scripted"}}');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    maxConcurrent: () => maxConcurrent,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ok: Reply = { status: 200 };

describe('pipeline against failing ingest', () => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((p) => p.shutdown()));
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  async function setup(
    script: (n: number, now: number) => Reply,
    config: Partial<PipelineOptions['config']> = {},
    retryPolicy = DEFAULT_RETRY_POLICY,
  ) {
    const clock = fastClock();
    const server = await faultServer(clock, script);
    servers.push(server);
    const harness = makePipeline(server.url, 'key', {
      clock,
      retryPolicy,
      // Timeouts are virtual too: 10 real minutes' worth of virtual time is 6 real seconds.
      config: { flushIntervalMs: 2000, requestTimeoutMs: 600_000, ...config },
    });
    return { clock, server, ...harness };
  }

  it('waits as long as Retry-After says, in seconds or as an HTTP date, then delivers', async () => {
    const { server, pipeline } = await setup((n, now) =>
      n === 0
        ? { status: 429, headers: { 'retry-after': '30' } }
        : n === 1
          ? { status: 503, headers: { 'retry-after': new Date(now + 45_000).toUTCString() } }
          : ok,
    );
    pipeline.enqueue(log('s', 'a'));
    await pipeline.flush();
    await expect.poll(() => server.seen.length, { timeout: 10_000 }).toBe(3);
    const [first, second, third] = server.seen;
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(30_000);
    // An HTTP date has whole seconds: the wait is at least 44 s of the 45 asked for.
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(44_000);
    expect(server.seen.map((s) => s.bodies)).toEqual([['a'], ['a'], ['a']]);
  });

  it('retries 500 and 408 with backoff, sending the same records once per attempt, and keeps order with newer ones', async () => {
    // Jitter is pinned to half the ceiling and the ceiling to 60 s: each wait is 30 s.
    const policy = { baseDelayMs: 60_000, maxDelayMs: 60_000, maxRetryAfterMs: 300_000 };
    const { server, pipeline, warnings } = await setup(
      (n) => (n === 0 ? { status: 500 } : n === 1 ? { status: 408 } : ok),
      {},
      policy,
    );
    pipeline.enqueue(log('s', 'a'));
    pipeline.enqueue(log('s', 'b'));
    await pipeline.flush();
    // During the backoff, a manual flush does not send, and newer records queue behind the failed ones.
    pipeline.enqueue(log('s', 'c'));
    await pipeline.flush();
    expect(server.seen).toHaveLength(1);
    await expect.poll(() => server.seen.length, { timeout: 10_000 }).toBe(3);
    expect(server.seen.map((s) => s.bodies)).toEqual([
      ['a', 'b'],
      ['a', 'b', 'c'],
      ['a', 'b', 'c'],
    ]);
    expect(warnings.filter((w) => w.includes('retrying'))).toHaveLength(2);
    expect(warnings[0]).toMatch(/HTTP 500/);
    expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(30_000);
    expect(server.seen[2]!.at - server.seen[1]!.at).toBeGreaterThanOrEqual(30_000);
  });

  it('drops a batch refused with 400, warning with the status and the endpoint, and does not send it again (only the drop count)', async () => {
    const { server, pipeline, warnings } = await setup(() => ({ status: 400 }));
    pipeline.enqueue(log('s', 'bad'));
    await pipeline.flush();
    await pipeline.flush();
    expect(server.seen.map((s) => s.path)).toEqual(['/otlp/v1/logs', '/otlp/v1/metrics']);
    expect(warnings.filter((w) => w.includes('/logs'))).toEqual([
      expect.stringMatching(new RegExp(`${server.url}/otlp/v1/logs refused 1 records with HTTP 400`)),
    ]);
  });

  it('does not send when nothing is queued', async () => {
    const { server, pipeline, clock } = await setup(() => ok);
    const until = clock.now() + 10_000;
    await expect.poll(() => clock.now() > until, { timeout: 5000 }).toBe(true);
    await pipeline.flush();
    expect(server.seen).toHaveLength(0);
  });

  it('times out a hanging request and retries it', async () => {
    const { server, pipeline } = await setup((n) => (n === 0 ? 'hang' : ok), { requestTimeoutMs: 20_000 });
    pipeline.enqueue(log('s', 'slow'));
    await pipeline.flush();
    await expect.poll(() => server.seen.length, { timeout: 10_000 }).toBe(2);
    expect(server.seen.map((s) => s.bodies)).toEqual([['slow'], ['slow']]);
    expect(server.seen[1]!.at - server.seen[0]!.at).toBeGreaterThanOrEqual(20_000);
  });

  it('runs flushes one after another, each record sent once', async () => {
    const { server, pipeline } = await setup((n) => (n === 0 ? { status: 200, delayMs: 200 } : ok));
    pipeline.enqueue(log('s', 'one'));
    const first = pipeline.flush();
    await expect.poll(() => server.seen.length).toBe(1);
    // The first request is still unanswered: this flush waits for it instead of sending alongside.
    pipeline.enqueue(log('s', 'two'));
    const second = pipeline.flush();
    await Promise.all([first, second]);
    expect(server.maxConcurrent()).toBe(1);
    expect(server.seen.map((s) => s.bodies)).toEqual([['one'], ['two']]);
  });

  it('keeps at most maxQueueSize records while ingest is unreachable, counts the drops, and delivers after recovery', async () => {
    // A port with nothing listening: connections are refused.
    const probe = http.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));

    const clock = fastClock();
    const { pipeline, warnings } = makePipeline(`http://127.0.0.1:${port}`, 'key', {
      clock,
      retryPolicy: { baseDelayMs: 1000, maxDelayMs: 4000, maxRetryAfterMs: 300_000 },
      config: { flushIntervalMs: 2000, maxQueueSize: 10, requestTimeoutMs: 600_000 },
    });
    for (let i = 0; i < 50; i++) pipeline.enqueue(log('s', `r${i}`));
    expect(pipeline.dropped).toBe(40);
    await pipeline.flush();
    await expect
      .poll(() => warnings.filter((w) => w.includes('retrying')).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    expect(warnings.some((w) => /ECONNREFUSED|fetch failed/.test(w))).toBe(true);

    // Ingest comes back on the same port.
    const seen: { path: string; body: any }[] = [];
    const back = http.createServer((req, res) => {
      void requestText(req).then((body) => {
        seen.push({ path: req.url ?? '', body: JSON.parse(body) });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => back.listen(port, '127.0.0.1', resolve));
    servers.push({
      close: () => new Promise<void>((resolve) => (back.closeAllConnections(), back.close(() => resolve()))),
    });

    await expect.poll(() => seen.length, { timeout: 10_000 }).toBe(2);
    const logBodies = seen
      .filter((s) => s.path === '/otlp/v1/logs')
      .flatMap((s) => s.body.resourceLogs[0].scopeLogs[0].logRecords.map((l: any) => l.body.stringValue));
    expect(logBodies).toEqual(Array.from({ length: 10 }, (_, i) => `r${40 + i}`));
    const metric = seen.find((s) => s.path === '/otlp/v1/metrics')!.body.resourceMetrics[0].scopeMetrics[0].metrics[0];
    expect(metric).toMatchObject({ name: DROPPED_ITEMS_METRIC, sum: { dataPoints: [{ asInt: '40' }] } });
  });
});
