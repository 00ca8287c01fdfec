/**
 * Realistic OTLP/JSON trace batches for `bench/ingest.ts`, posted many times over yet stored as new spans each time.
 *
 * Ingest is idempotent (a span is stored once per project, trace id and span id), so a body posted twice stores
 * nothing the second time. Generating JSON per request would cost the load generator, which shares the machine with
 * the server, about as much as parsing it costs the server. So the JSON is generated once, as templates, with the byte
 * offset of every `traceId` value; each request copies a template and overwrites the first 8 hex digits of each trace
 * id with a number no other request of this process gets. Span ids stay: a span is new when its trace id is.
 */
import { randomBytes } from 'node:crypto';
import { prng } from './harness';

/** A request body and the spans it holds, to count exactly what the server acknowledged. */
export interface Body {
  bytes: Buffer;
  spans: number;
}

/** A generated batch and where its trace ids are, to stamp them per request. */
export interface BodyTemplate {
  json: Buffer;
  /** Offset of the first hex digit of every `traceId` value, one per span. */
  traceIdAt: number[];
  spans: number;
}

const SPANS_PER_TRACE = 10;

const str = (v: string) => ({ stringValue: v });
const int = (v: number) => ({ intValue: v });
const bool = (v: boolean) => ({ boolValue: v });
const attrs = (o: Record<string, unknown>) => Object.entries(o).map(([key, value]) => ({ key, value }));
const hex = (bytes: number) => randomBytes(bytes).toString('hex');

const USER_AGENT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const API_PATHS = [
  '/api/cart',
  '/api/products?page=2',
  '/api/user/profile',
  '/api/checkout',
  '/api/search?q=shoes',
  '/api/recommendations',
];
const ASSETS = [
  '/assets/index-4f2a1c.js',
  '/assets/vendor-91bd0e.js',
  '/assets/index-77aa12.css',
  '/img/hero-1280.webp',
  '/fonts/inter.woff2',
];

type Random = () => number;
const pick = <T>(rnd: Random, xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;

/** What the spans of one trace share. */
interface Trace {
  traceId: string;
  rootId: string;
  rootStart: bigint;
  isLoad: boolean;
  sessionId: string;
}

/** A documentLoad or click root span, with HTTP/browser attributes and, for a load, three timing events. */
function rootSpan(rnd: Random, t: Trace): unknown {
  const end = t.rootStart + BigInt(Math.floor(200e6 + rnd() * 1800e6));
  return {
    traceId: t.traceId,
    spanId: t.rootId,
    name: t.isLoad ? 'documentLoad' : 'click',
    kind: 1,
    startTimeUnixNano: t.rootStart.toString(),
    endTimeUnixNano: end.toString(),
    attributes: attrs({
      'url.full': str(`https://shop.example.com/${pick(rnd, ['', 'products', 'cart', 'checkout'])}`),
      'user_agent.original': str(USER_AGENT),
      'session.id': str(t.sessionId),
      'browser.page.visibility': str('visible'),
      ...(t.isLoad
        ? {
            'document.title': str('Example Shop'),
            'navigation.type': str('navigate'),
            'http.response.body.size': int(48213),
          }
        : { event_type: str('click'), target_element: str('BUTTON'), target_xpath: str('//*[@id="add-to-cart"]') }),
      'screen.width': int(1440),
      'screen.height': int(900),
    }),
    events: t.isLoad
      ? ['fetchStart', 'domContentLoadedEventEnd', 'loadEventEnd'].map((name, i) => ({
          timeUnixNano: (t.rootStart + BigInt(i * 50_000_000)).toString(),
          name,
        }))
      : [],
    status: {},
  };
}

/** A fetch or resource child span: about ten HTTP attributes, three timing events, an error status on 5 %. */
function childSpan(rnd: Random, t: Trace, index: number): unknown {
  const isFetch = !t.isLoad || index % 2 === 0;
  const start = t.rootStart + BigInt(Math.floor(rnd() * 150e6));
  const dur = BigInt(Math.floor(5e6 + rnd() * 400e6));
  const status = rnd() < 0.05 ? 500 : rnd() < 0.05 ? 404 : 200;
  const path = isFetch ? pick(rnd, API_PATHS) : pick(rnd, ASSETS);
  const method = isFetch ? pick(rnd, ['GET', 'GET', 'GET', 'POST']) : 'GET';
  return {
    traceId: t.traceId,
    spanId: hex(8),
    parentSpanId: t.rootId,
    name: isFetch ? `HTTP ${method}` : 'resourceFetch',
    kind: 3,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + dur).toString(),
    attributes: attrs({
      'http.request.method': str(method),
      'url.full': str(`https://${isFetch ? 'api' : 'cdn'}.example.com${path}`),
      'server.address': str(isFetch ? 'api.example.com' : 'cdn.example.com'),
      'server.port': int(443),
      'http.response.status_code': int(status),
      'http.response.body.size': int(Math.floor(rnd() * 200_000)),
      'network.protocol.name': str('http'),
      'network.protocol.version': str(pick(rnd, ['1.1', '2', '3'])),
      component: str(isFetch ? 'fetch' : 'resource'),
      'http.response.cached': bool(rnd() < 0.2),
      'session.id': str(t.sessionId),
    }),
    events: ['fetchStart', 'responseStart', 'responseEnd'].map((name, i) => ({
      timeUnixNano: (start + (dur * BigInt(i)) / 2n).toString(),
      name,
    })),
    status: status >= 500 ? { code: 2, message: `HTTP ${status}` } : {},
  };
}

/**
 * One browser session's export as one OTLP resource: `spanCount` spans in traces of ten (a documentLoad or click root
 * with fetch and resource children), as the browser SDK sends them.
 */
function sessionResourceSpans(rnd: Random, sessionId: string, spanCount: number): unknown {
  const baseNs = BigInt(Date.now()) * 1_000_000n - 60_000_000_000n;
  const spans: unknown[] = [];
  let trace: Trace | undefined;
  for (let i = 0; i < spanCount; i++) {
    const index = i % SPANS_PER_TRACE;
    if (index === 0) {
      const n = i / SPANS_PER_TRACE;
      const rootStart = baseNs + BigInt(n) * 5_000_000_000n + BigInt(Math.floor(rnd() * 1e6));
      trace = { traceId: hex(16), rootId: hex(8), rootStart, isLoad: n % 3 === 0, sessionId };
      spans.push(rootSpan(rnd, trace));
    } else spans.push(childSpan(rnd, trace!, index - 1));
  }
  return {
    resource: {
      attributes: attrs({
        'service.name': str('web-app'),
        'service.version': str('1.4.2'),
        'deployment.environment.name': str('production'),
        'telemetry.sdk.name': str('opentelemetry'),
        'telemetry.sdk.language': str('webjs'),
        'telemetry.sdk.version': str('2.12.0'),
        'session.id': str(sessionId),
        'browser.platform': str('macOS'),
        'browser.mobile': bool(false),
        'browser.language': str('en-US'),
        'user_agent.original': str(USER_AGENT),
      }),
    },
    scopeSpans: [{ scope: { name: '@svc/browser', version: '0.1.0' }, spans }],
  };
}

const TRACE_ID_KEY = Buffer.from('"traceId":"');

/** The ExportTraceServiceRequest of `resources` as a template: its JSON and the offset of every trace id in it. */
function template(resources: unknown[], spans: number): BodyTemplate {
  const json = Buffer.from(JSON.stringify({ resourceSpans: resources }));
  const traceIdAt: number[] = [];
  for (let at = json.indexOf(TRACE_ID_KEY); at >= 0; at = json.indexOf(TRACE_ID_KEY, at + 1))
    traceIdAt.push(at + TRACE_ID_KEY.length);
  // Only spans carry a traceId: one more or fewer would leave some span's id unstamped, or stamp something else.
  if (traceIdAt.length !== spans)
    throw new Error(`expected ${spans} trace ids in the template, found ${traceIdAt.length}`);
  return { json, traceIdAt, spans };
}

/** One browser session's batch: `spans` spans in one resource (the browser SDK's export). */
export function singleSessionTemplate(seed: number, spans: number): BodyTemplate {
  return template([sessionResourceSpans(prng(seed), hex(16), spans)], spans);
}

/**
 * A batch of `sessions.length` browser sessions, `spansPerSession` spans each, one resource per session in the order
 * given: what an OpenTelemetry Collector sends when it batches several browsers' exports.
 */
export function multiSessionTemplate(seed: number, sessions: readonly string[], spansPerSession: number): BodyTemplate {
  const rnd = prng(seed);
  return template(
    sessions.map((session) => sessionResourceSpans(rnd, session, spansPerSession)),
    sessions.length * spansPerSession,
  );
}

/** `count` distinct sessions of `pool`, in random order: batches share sessions, each batch in its own order. */
export function pickSessions(seed: number, pool: readonly string[], count: number): string[] {
  const rnd = prng(seed);
  const left = [...pool];
  return Array.from(
    { length: Math.min(count, left.length) },
    () => left.splice(Math.floor(rnd() * left.length), 1)[0]!,
  );
}

/** A pool of `count` random session ids. */
export const sessionPool = (count: number): string[] => Array.from({ length: count }, () => hex(16));

/**
 * murmur3's 32-bit finalizer: a bijection on 32-bit integers, so distinct request numbers stay distinct, and a
 * scattering one. A trace's first 48 bits are its indexed key (server/src/db/trace-key.ts): a plain counter there
 * would turn the random inserts of real trace ids into appends and flatter the server.
 */
function scatter(n: number): number {
  let h = n >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Requests numbered so far in this process, by every phase, so no two requests of a run share a trace id (2^32 of them). */
let requestNumber = 0;

/** A copy of `t` whose trace ids begin with this request's own 8 hex digits (the rest of each id tells its traces apart). */
export function freshBody(t: BodyTemplate): Body {
  const prefix = scatter(requestNumber++).toString(16).padStart(8, '0');
  const bytes = Buffer.allocUnsafe(t.json.length);
  t.json.copy(bytes);
  for (const at of t.traceIdAt) bytes.write(prefix, at, 'latin1');
  return { bytes, spans: t.spans };
}

/** Fresh bodies from `templates` in turn. */
export function bodySource(templates: readonly BodyTemplate[]): () => Body {
  let next = 0;
  return () => freshBody(templates[next++ % templates.length]!);
}
