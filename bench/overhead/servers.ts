/**
 * The two local origins of `bench:overhead`, both plain node:http on 127.0.0.1:
 *
 * - the app server serves the workload page of each variant under `/r/<run>/<variant>/` (gzip-encoded JavaScript,
 *   counted per run), and the workloads' API: `/api/items` (50 products), `/api/save` (every fifth save answering
 *   500), `/api/step` (a form step's JSON echoed with an id; coupon `EXPIRED` answered 422), `/api/feed` (12 cards)
 *   and `/img/<id>.png` (generated images);
 * - the sink, on another port so that telemetry is cross-origin as in production, accepts any POST under
 *   `/r/<run>/otlp/*` or `/r/<run>/ingest/*` (svc), `/api/<run>/envelope/` (Sentry) and `/r/<run>/dd/*` (Datadog,
 *   through its `proxy` option), answers CORS preflights, and
 *   keeps every body per run.
 */
import http from 'node:http';
import { serveLocally, type LocalServer } from '../../test/support/local-server';
import type { Variant, VariantBuild } from './build';
import { generatedPng } from './images';
import type { Workload } from './page/workloads/names';

/** A listening server and how to stop it. */
export type Listening = Pick<LocalServer, 'origin' | 'close'>;

function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

// ------------------------------------------------------------------------------------------------ app server

/**
 * The app server; `assign(run, workload)` says which workload a run's page renders (before it is loaded),
 * `scriptBytes(run)` is the JavaScript it sent for that run, as encoded on the wire.
 */
export interface AppServer extends Listening {
  assign(run: number, workload: Workload): void;
  scriptBytes(run: number): number;
}

const ITEM_TAGS = ['new', 'sale', 'eco', 'bestseller', 'limited'];

function items(page: number): unknown[] {
  return Array.from({ length: 50 }, (_, i) => {
    const id = page * 50 + i;
    return { id, name: `Product ${id}`, price: 5 + ((id * 37) % 200) / 4, tags: ITEM_TAGS.slice(0, 1 + (id % 3)) };
  });
}

const json = (res: http.ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
};

/** A POST body parsed as JSON, or undefined when it is not JSON. */
async function jsonBody(req: http.IncomingMessage): Promise<Record<string, any> | undefined> {
  try {
    return JSON.parse((await readBody(req)).toString('utf8')) as Record<string, any>;
  } catch {
    return undefined;
  }
}

/** The workloads' API; false when `url` is none of it. */
function api(req: http.IncomingMessage, res: http.ServerResponse, url: URL): boolean {
  const page = Number(url.searchParams.get('page') ?? 0);
  const image = /^\/img\/(\d+)\.png$/.exec(url.pathname);
  if (url.pathname === '/api/items') json(res, 200, items(page));
  else if (url.pathname === '/api/feed') json(res, 200, feed(page));
  else if (image) {
    res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' });
    res.end(generatedPng(Number(image[1])));
  } else if (url.pathname === '/api/save' && req.method === 'POST') {
    void jsonBody(req).then((body) => {
      const attempt = Number(body?.attempt) || 0;
      const failed = attempt > 0 && attempt % 5 === 0;
      json(res, failed ? 500 : 200, failed ? { error: 'unavailable' } : { id: attempt });
    });
  } else if (url.pathname === '/api/step' && req.method === 'POST') {
    void jsonBody(req).then((body) => {
      if (body?.values?.coupon === 'EXPIRED') json(res, 422, { error: 'coupon expired', field: 'coupon' });
      else json(res, 200, { id: `${String(body?.flow)}-${String(body?.step)}`, received: body?.values ?? null });
    });
  } else return false;
  return true;
}

function feed(page: number): unknown[] {
  return Array.from({ length: 12 }, (_, i) => {
    const id = page * 12 + i;
    return { id, title: `Story ${id}`, text: `What happened in story ${id}, in one line of text for the card.` };
  });
}

function page(variant: Variant, entry: string, sinkOrigin: string, workload: Workload): string {
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    `<meta name="bench-sink" content="${sinkOrigin}"><meta name="bench-workload" content="${workload}">`,
    `<title>Bench shop</title><style>#list li{display:flex;gap:8px}.cell{display:inline-block;width:60px}</style>`,
    `<script type="module" src="./${entry}"></script>`,
    `</head><body data-variant="${variant}"></body></html>`,
  ].join('');
}

/** Serves every variant's build (telling the page where the sink is) and the page's API. */
export async function startAppServer(
  builds: ReadonlyMap<Variant, VariantBuild>,
  sinkOrigin: string,
): Promise<AppServer> {
  const scriptBytes = new Map<number, number>();
  const workloads = new Map<number, Workload>();
  const local = await serveLocally((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (api(req, res, url)) return;
    const match = /^\/r\/(\d+)\/([a-z-]+)\/(.*)$/.exec(url.pathname);
    const build = match ? builds.get(match[2] as Variant) : undefined;
    if (!match || !build) {
      res.writeHead(404).end();
      return;
    }
    const rest = match[3] ?? '';
    const file = build.files.get(rest);
    if (file) {
      const run = Number(match[1]);
      scriptBytes.set(run, (scriptBytes.get(run) ?? 0) + file.gzip.length);
      res.writeHead(200, {
        'content-type': 'text/javascript',
        'content-encoding': 'gzip',
        'cache-control': 'no-store',
      });
      res.end(file.gzip);
      return;
    }
    if (rest.startsWith('assets/')) {
      res.writeHead(404).end();
      return;
    }
    // Every other path is a route of the single-page app.
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(page(build.variant, build.entry, sinkOrigin, workloads.get(Number(match[1])) ?? 'classic'));
  });
  return {
    origin: local.origin,
    close: local.close,
    assign: (run, workload) => workloads.set(run, workload),
    scriptBytes: (run) => scriptBytes.get(run) ?? 0,
  };
}

// ------------------------------------------------------------------------------------------------ sink

/** One telemetry request the sink received. */
export interface SinkRequest {
  /** Path and query, e.g. `/r/3/otlp/v1/traces` or `/api/3/envelope/?sentry_key=...`. */
  url: string;
  contentType: string;
  /** `Content-Encoding` as sent (`identity` when absent). */
  encoding: string;
  /** The body exactly as received. */
  body: Buffer;
}

/** The sink: `requests(run)` lists what arrived for a run; `lastArrival(run)` is when the latest did (ms, monotonic). */
export interface Sink extends Listening {
  requests(run: number): SinkRequest[];
  lastArrival(run: number): number;
}

const SINK_PATH = /^\/(?:r\/(\d+)\/(?:otlp|ingest|dd)\/|api\/(\d+)\/envelope\/)/;

function corsHeaders(req: http.IncomingMessage): Record<string, string> {
  return {
    'access-control-allow-origin': req.headers.origin ?? '*',
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': req.headers['access-control-request-headers'] ?? 'content-type',
    'access-control-max-age': '600',
    vary: 'Origin',
  };
}

/** Starts the telemetry sink. */
export async function startSink(): Promise<Sink> {
  const byRun = new Map<number, SinkRequest[]>();
  const last = new Map<number, number>();
  const local = await serveLocally((req, res) => {
    const url = req.url ?? '/';
    const match = SINK_PATH.exec(url);
    if (!match) {
      res.writeHead(404, corsHeaders(req)).end();
      return;
    }
    if (req.method === 'OPTIONS') {
      res.writeHead(204, corsHeaders(req)).end();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405, corsHeaders(req)).end();
      return;
    }
    const run = Number(match[1] ?? match[2]);
    void readBody(req).then((body) => {
      const list = byRun.get(run) ?? [];
      list.push({
        url,
        contentType: req.headers['content-type'] ?? '',
        encoding: req.headers['content-encoding'] ?? 'identity',
        body,
      });
      byRun.set(run, list);
      last.set(run, performance.now());
      res.writeHead(200, { ...corsHeaders(req), 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  return {
    origin: local.origin,
    close: local.close,
    requests: (run) => byRun.get(run) ?? [],
    lastArrival: (run) => last.get(run) ?? 0,
  };
}
