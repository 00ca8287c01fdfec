/**
 * The data set of `bench/scale.ts`: a month of a busy web app, as the browser SDK sends it. Every session is drawn from
 * its own seeded generator, so any session can be rebuilt from its number alone (the loader never holds the month in
 * memory) and every run loads the same data.
 *
 * A session: one page load trace and interaction traces (`spansPerSession` spans in all, a third of them requests to the
 * API), console logs, the five Web Vitals of its entry page, and for some an error (a failed request and the exception
 * log the SDK writes, the stuff issues are made of) and a replay of two chunks. Sessions start uniformly over `days`,
 * environments, releases (one every two or three days), browsers and pages are drawn from fixed weighted lists.
 */
import { gzipSync } from 'node:zlib';
import { pickWeighted, prng, SHOP_PAGES } from './harness';

/** What is loaded; see {@link scaledShape}. */
export interface ScaleShape {
  sessions: number;
  spansPerSession: number;
  logsPerSession: number;
  /** Sessions with a replay. */
  replays: number;
  /** Distinct errors (issues). */
  issues: number;
  days: number;
  /** The newest session starts before this. */
  endMs: number;
}

/** One session, rebuilt from its number by {@link sessionOf}. */
export interface Session {
  index: number;
  id: string;
  startMs: number;
  env: string;
  release: string;
  userAgent: string;
  userId: string | null;
  plan: string;
  pages: string[];
  /** The error this session hits (an issue number), or null. */
  error: number | null;
  replay: boolean;
  random: () => number;
}

type Random = () => number;
const DAY = 86_400_000;

const pick = <T>(random: Random, xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
const hexOf = (random: Random, chars: number) => {
  let out = '';
  while (out.length < chars)
    out += Math.floor(random() * 2 ** 32)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, chars);
};

const ENVS = [
  ['production', 85],
  ['staging', 15],
] as const;
const USER_AGENTS = [
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    45,
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    15,
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
    20,
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    12,
  ],
  ['Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 8],
] as const;
/** Pages, the first ten far more visited than the product pages. */
export const PAGES = [...SHOP_PAGES, ...Array.from({ length: 200 }, (_, i) => `/products/${1000 + i}`)];
/** A page about one session in ten thousand sees: the "URL contains" filter's hard case. */
export const RARE_PAGE = '/promo/rare-landing-page';
const API = ['/api/cart', '/api/products', '/api/user/profile', '/api/checkout', '/api/search', '/api/recommendations'];
const LOG_LINES = [
  'cart updated',
  'product list rendered',
  'search results shown',
  'feature flag evaluated',
  'websocket reconnected',
];
const PLANS = [
  ['free', 70],
  ['pro', 25],
  ['enterprise', 5],
] as const;

/** `--scale` times the issue's month: 10 M spans, 1 M sessions (50,000 with replay), 20,000 issues, 5 M log records. */
export function scaledShape(scale: number, days: number, endMs: number): ScaleShape {
  const sessions = Math.max(1000, Math.round(1_000_000 * scale));
  return {
    sessions,
    spansPerSession: 10,
    logsPerSession: 5,
    replays: Math.round(sessions * 0.05),
    issues: Math.max(10, Math.round(20_000 * scale)),
    days,
    endMs,
  };
}

/** The release live at `ms`: a new one every 2.5 days, `2027.<n>.0`. */
export const releaseAt = (shape: ScaleShape, ms: number) =>
  `2027.${Math.floor((ms - (shape.endMs - shape.days * DAY)) / (2.5 * DAY)) + 1}.0`;

/**
 * Session `index`. One session in ten hits an error: the first `issues` of them one issue each (so every issue
 * exists), the rest mostly the common ones (a cube of a uniform draw). Replays go to every twentieth session.
 */
export function sessionOf(shape: ScaleShape, index: number): Session {
  const random = prng(0x5ca1e + index * 7919);
  const startMs = shape.endMs - Math.floor(random() * shape.days * DAY) - 3_600_000;
  const pageCount = 1 + Math.floor(random() * 4);
  const pages = Array.from({ length: pageCount }, () =>
    random() < 0.7 ? PAGES[Math.floor(random() * 10)]! : pick(random, PAGES),
  );
  if (random() < 0.0001) pages.push(RARE_PAGE);
  const errorSlot = index % 10 === 3 ? Math.floor(index / 10) : -1;
  const error = errorSlot < 0 ? null : errorSlot < shape.issues ? errorSlot : Math.floor(shape.issues * random() ** 3);
  const replayEvery = Math.max(1, Math.round(shape.sessions / Math.max(1, shape.replays)));
  return {
    index,
    id: hexOf(random, 32),
    startMs,
    env: pickWeighted(random, ENVS),
    release: releaseAt(shape, startMs),
    userAgent: pickWeighted(random, USER_AGENTS),
    userId: random() < 0.6 ? `user-${Math.floor(random() * 50_000)}` : null,
    plan: pickWeighted(random, PLANS),
    pages,
    error,
    replay: index % replayEvery === 7 % replayEvery,
    random,
  };
}

const str = (v: string) => ({ stringValue: v });
const int = (v: number) => ({ intValue: v });
const attrs = (o: Record<string, unknown>) => Object.entries(o).map(([key, value]) => ({ key, value }));
const ns = (ms: number) => `${Math.floor(ms)}${String(Math.floor((ms % 1) * 1e6)).padStart(6, '0')}`;

function resourceOf(s: Session) {
  return {
    attributes: attrs({
      'service.name': str('web-app'),
      'service.version': str(s.release),
      'deployment.environment.name': str(s.env),
      'session.id': str(s.id),
      'user_agent.original': str(s.userAgent),
      'telemetry.sdk.name': str('@svc/browser'),
      'svc.replay.mode': str(s.replay ? 'full' : 'off'),
    }),
  };
}

const userAttrs = (s: Session) => ({
  ...(s.userId === null ? {} : { 'user.id': str(s.userId) }),
  'session.attributes.plan': str(s.plan),
});

interface SpanSpec {
  name: string;
  startMs: number;
  durationMs: number;
  parent: string | null;
  attributes: Record<string, unknown>;
  error?: boolean;
}

/** The spans of one trace as OTLP, the first its root. */
function traceSpans(random: Random, specs: SpanSpec[]): unknown[] {
  const traceId = hexOf(random, 32);
  const ids = specs.map(() => hexOf(random, 16));
  return specs.map((spec, i) => ({
    traceId,
    spanId: ids[i],
    ...(spec.parent === null ? {} : { parentSpanId: ids[0] }),
    name: spec.name,
    kind: spec.parent === null ? 1 : 3,
    startTimeUnixNano: ns(spec.startMs),
    endTimeUnixNano: ns(spec.startMs + spec.durationMs),
    attributes: attrs(spec.attributes),
    status: spec.error ? { code: 2, message: 'HTTP 500' } : {},
  }));
}

/** A request span of a trace: fetch to the API, failing when `error`. */
function requestSpec(random: Random, at: number, error: boolean): SpanSpec {
  const path = pick(random, API);
  return {
    name: `HTTP GET`,
    startMs: at,
    durationMs: 20 + random() ** 2 * 900,
    parent: 'root',
    attributes: {
      'http.request.method': str('GET'),
      'url.full': str(`https://shop.example.com${path}`),
      'http.response.status_code': int(error ? 500 : 200),
    },
    error,
  };
}

/**
 * The session's spans: a page load of its entry page with resource and request children, then one interaction trace
 * per further page (a click that navigates, with requests), until `spansPerSession` spans are made.
 */
export function sessionSpans(shape: ScaleShape, s: Session): unknown[] {
  const { random } = s;
  const spans: unknown[] = [];
  let at = s.startMs;
  const budget = shape.spansPerSession;
  let page = 0;
  while (spans.length < budget) {
    const left = budget - spans.length;
    const size = Math.min(left, page === 0 ? 5 : Math.max(2, Math.ceil(left / Math.max(1, s.pages.length - page))));
    const path = s.pages[Math.min(page, s.pages.length - 1)]!;
    const url = `https://shop.example.com${path}`;
    const root: SpanSpec =
      page === 0
        ? {
            name: 'documentLoad',
            startMs: at,
            durationMs: 300 + random() ** 2 * 4000,
            parent: null,
            attributes: { 'url.full': str(url), ...userAttrs(s) },
          }
        : {
            name: `Navigation: ${path}`,
            startMs: at,
            durationMs: 50 + random() ** 2 * 1500,
            parent: null,
            attributes: { 'url.full': str(url), event_type: str('click'), ...userAttrs(s) },
          };
    const specs = [root];
    for (let i = 1; i < size; i++) {
      const failing = s.error !== null && page === 0 && i === 1;
      specs.push(requestSpec(random, at + 10 * i, failing));
    }
    spans.push(...traceSpans(random, specs));
    at += 5_000 + random() * 60_000;
    page += 1;
  }
  return spans;
}

/** A Chrome stack of issue `n`: its own function and file, so each issue groups alone. */
const stackOf = (n: number, message: string) => `TypeError: ${message}
    at handler${n} (https://shop.example.com/assets/chunk-${n.toString(36)}.js:${1 + (n % 400)}:${1 + (n % 80)})
    at HTMLButtonElement.onClick (https://shop.example.com/assets/app-DiwrgTda.js:12:3)`;

/** The session's log records: console lines, and its error as the SDK's captureException sends it. */
export function sessionLogs(shape: ScaleShape, s: Session): unknown[] {
  const { random } = s;
  const records: unknown[] = [];
  const count = shape.logsPerSession - (s.error === null ? 0 : 1);
  for (let i = 0; i < count; i++) {
    const warn = random() < 0.1;
    records.push({
      timeUnixNano: ns(s.startMs + 1000 + i * 7_000 + random() * 5_000),
      severityNumber: warn ? 13 : 9,
      severityText: warn ? 'WARN' : 'INFO',
      body: str(`${pick(random, LOG_LINES)} (${Math.floor(random() * 1000)} items)`),
      attributes: attrs({ 'log.source': str('console'), ...userAttrs(s) }),
    });
  }
  if (s.error !== null) {
    const message = `Cannot read properties of undefined (reading 'field${s.error}')`;
    records.push({
      timeUnixNano: ns(s.startMs + 900),
      severityNumber: 17,
      severityText: 'ERROR',
      body: str(`TypeError: ${message}`),
      attributes: attrs({
        'exception.type': str('TypeError'),
        'exception.message': str(message),
        'exception.stacktrace': str(stackOf(s.error, message)),
        ...userAttrs(s),
      }),
    });
  }
  return records;
}

const VITALS: ReadonlyArray<readonly [name: string, unit: string, median: number]> = [
  ['web_vital_lcp_ms', 'ms', 1800],
  ['web_vital_inp_ms', 'ms', 120],
  ['web_vital_cls', '1', 0.05],
  ['web_vital_fcp_ms', 'ms', 1100],
  ['web_vital_ttfb_ms', 'ms', 350],
];

/** The five Web Vitals of the session's entry page, log-normal around a typical median. */
export function sessionVitals(s: Session): unknown[] {
  const { random } = s;
  const path = s.pages[0]!;
  return VITALS.map(([name, unit, median]) => ({
    name,
    unit,
    gauge: {
      dataPoints: [
        {
          timeUnixNano: ns(s.startMs + 2_000 + random() * 3_000),
          asDouble: median * Math.exp((random() + random() + random() - 1.5) * 0.8),
          attributes: attrs({ 'url.path': str(path) }),
        },
      ],
    },
  }));
}

/** One OTLP request of the sessions' spans, logs or Web Vitals (one resource per session, as a collector batches). */
export function otlpBody(
  signal: 'traces' | 'logs' | 'metrics',
  shape: ScaleShape,
  sessions: readonly Session[],
): { bytes: Buffer; records: number } {
  let records = 0;
  const resources = sessions.map((s) => {
    const scope = { name: '@svc/browser', version: '0.1.0' };
    if (signal === 'traces') {
      const spans = sessionSpans(shape, s);
      records += spans.length;
      return { resource: resourceOf(s), scopeSpans: [{ scope, spans }] };
    }
    if (signal === 'logs') {
      const logRecords = sessionLogs(shape, s);
      records += logRecords.length;
      return { resource: resourceOf(s), scopeLogs: [{ scope, logRecords }] };
    }
    const metrics = sessionVitals(s);
    records += metrics.length;
    return { resource: resourceOf(s), scopeMetrics: [{ scope, metrics }] };
  });
  const key = { traces: 'resourceSpans', logs: 'resourceLogs', metrics: 'resourceMetrics' }[signal];
  return { bytes: Buffer.from(JSON.stringify({ [key]: resources })), records };
}

/** A page of about 300 nodes as rrweb serializes it (full snapshot), ids from 1. */
function fullSnapshot(random: Random, path: string) {
  let id = 1;
  const text = (t: string) => ({ type: 3, textContent: t, id: id++ });
  const element = (tagName: string, attributes: Record<string, string>, childNodes: unknown[]) => ({
    type: 2,
    tagName,
    attributes,
    childNodes,
    id: id++,
  });
  const rows = Array.from({ length: 60 }, (_, i) =>
    element('li', { class: 'product-row' }, [
      element('a', { href: `/products/${1000 + i}` }, [text(`Product ${1000 + i} – ${Math.floor(random() * 1e4)}`)]),
      element('span', { class: 'price' }, [text(`$${(random() * 200).toFixed(2)}`)]),
    ]),
  );
  const body = element('body', {}, [
    element('header', { class: 'site-header' }, [element('nav', {}, [text('Shop · Cart · Account')])]),
    element('main', { id: 'content' }, [element('h1', {}, [text(path)]), element('ul', { class: 'products' }, rows)]),
  ]);
  return {
    type: 2,
    data: {
      node: { type: 0, childNodes: [element('html', { lang: 'en' }, [element('head', {}, []), body])], id: id++ },
      initialOffset: { top: 0, left: 0 },
    },
  };
}

/**
 * The session's replay: two chunks of one recording, gzip as the SDK's worker sends them. The first holds the page's
 * meta and full snapshot, both mouse moves and clicks, the second more interaction and a few DOM mutations.
 */
export function replayChunks(s: Session): Buffer[] {
  const { random } = s;
  const at = s.startMs + 500;
  const interaction = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) =>
      i % 5 === 4
        ? { type: 3, timestamp: from + i * 400, data: { source: 2, type: 2, id: 10 + i, x: 200, y: 300 } }
        : {
            type: 3,
            timestamp: from + i * 400,
            data: {
              source: 1,
              positions: [{ x: Math.floor(random() * 1200), y: Math.floor(random() * 800), id: 5, timeOffset: -40 }],
            },
          },
    );
  const mutations = (from: number) =>
    Array.from({ length: 5 }, (_, i) => ({
      type: 3,
      timestamp: from + i * 900,
      data: {
        source: 0,
        texts: [{ id: 20 + i, value: `$${(random() * 200).toFixed(2)}` }],
        attributes: [],
        removes: [],
        adds: [],
      },
    }));
  const first = [
    { type: 4, timestamp: at, data: { href: `https://shop.example.com${s.pages[0]!}`, width: 1280, height: 800 } },
    { ...fullSnapshot(random, s.pages[0]!), timestamp: at + 5 },
    ...interaction(at + 100, 40),
  ];
  const secondAt = at + 20_000;
  const second = [...interaction(secondAt, 40), ...mutations(secondAt + 500)];
  const replayId = `${s.id.slice(0, 16)}-r1`;
  return [first, second].map((events, seq) =>
    Buffer.from(
      JSON.stringify({
        serviceName: 'web-app',
        sessionId: s.id,
        replayId,
        seq,
        startTs: (events[0] as { timestamp: number }).timestamp,
        endTs: (events[events.length - 1] as { timestamp: number }).timestamp,
        eventCount: events.length,
        encoding: 'gzip',
        data: gzipSync(JSON.stringify(events)).toString('base64'),
      }),
    ),
  );
}
