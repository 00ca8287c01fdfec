import type http from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { gunzipSync } from 'node:zlib';
import { API_KEY_QUERY_PARAM } from '../../wire/paths';
import { serveLocally } from './local-server';

/**
 * An HTTP proxy between a page and the reference ingest server, for browser tests of the SDK's delivery. It records
 * every request as it arrives (beacons and keepalive requests report nothing to a closing page) and can play an
 * unhealthy ingest:
 *
 * - `down`: every connection, open or new, is reset at once, before a byte of HTTP is read. To the page this is a
 *   server that has gone away (the preflight fails too), not a slow one.
 * - `slow`: POSTs are held unanswered and never forwarded, so nothing the page gave up on can have been stored (a
 *   duplicate after recovery can only come from the page). A held request ends when the client closes it; Chromium
 *   does not close an aborted keepalive request (it only rejects the page's promise), so those stay open until the
 *   proxy closes.
 * - `status`: POSTs are answered with a fixed status (and headers) without being forwarded.
 * - `lost`: POSTs are forwarded and stored, then the connection is reset instead of answering: the page cannot tell
 *   this from a request that never arrived, and sends it again.
 *
 * Outside `down`, CORS preflights are always forwarded: a fault applies to the requests that carry telemetry.
 */

/** What an unhealthy ingest does; `undefined` is healthy (forward everything). */
export type IngestFault =
  | { readonly kind: 'down' }
  | { readonly kind: 'slow' }
  | { readonly kind: 'lost' }
  | {
      readonly kind: 'status';
      readonly status: number;
      readonly headers?: Readonly<Record<string, string>>;
      readonly body?: string;
    };

/** One request as the proxy saw it. Times are `performance.now()` milliseconds of the test process. */
export interface ProxiedRequest {
  method: string;
  path: string;
  /** The key came as `?api_key=` (a beacon) rather than in the X-API-Key header. */
  beacon: boolean;
  apiKeyHeader: boolean;
  contentType: string;
  bytes: number;
  /** The request body as UTF-8 text (decompressed when it came gzipped; `bytes` counts what was on the wire). */
  body: string;
  receivedAt: number;
  /** What the proxy did with it. */
  handling: 'forwarded' | 'held' | 'answered' | 'lost';
  /** Status sent back (the server's when forwarded); unset until answered. */
  status?: number;
  answeredAt?: number;
  /** The client closed the connection before any answer: an abort or a timeout on the page. */
  abandonedAt?: number;
}

export interface IngestProxy {
  /** Base URL to give the SDK as `ingestUrl`, e.g. http://127.0.0.1:41234 */
  url: string;
  /** Every request that got past the connection, in arrival order. */
  seen: ProxiedRequest[];
  /** Times at which connections were reset while `down`. */
  resets: number[];
  /** Resolves once `count` connections have been reset in all: a wait for the page's next attempt while `down`. */
  resetsReach(count: number): Promise<void>;
  /** The POSTs seen, optionally only those to `path`. */
  posts(path?: string): ProxiedRequest[];
  /** Largest sum of declared POST body bytes that were unanswered at the same time. */
  maxInFlight(): number;
  /** Requests neither answered nor abandoned yet. */
  pending(): number;
  /** Last time a request arrived, was answered or abandoned, or a connection was reset. */
  lastActivity(): number;
  /**
   * Plays `fault` from now on; `undefined` makes ingest healthy again. With `times`, only that many POSTs meet the
   * fault (`status`, `slow` and `lost`) and ingest is healthy after them, so a test need not race the page to recover.
   * With `path`, only POSTs to that path meet it: another signal's batch sent first cannot take the fault's turn.
   */
  setFault(fault: IngestFault | undefined, times?: number, path?: string): void;
  close(): Promise<void>;
}

/** Request headers passed upstream: what ingest and its CORS handling read. */
const FORWARDED_REQUEST_HEADERS = [
  'content-type',
  'content-encoding',
  'x-api-key',
  'origin',
  'access-control-request-method',
  'access-control-request-headers',
];
/** Answer headers that describe the proxy's own connection or encoding, not the upstream answer. */
const HOP_HEADERS = ['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'];

/**
 * CORS headers for an answer the proxy makes up, as the reference server sends them (server/src/http/cors.ts). A
 * gateway answering for ingest must send them too: without them the page cannot read the status, and without
 * exposing Retry-After it cannot read the delay.
 */
function corsHeaders(origin: string | undefined): Record<string, string> {
  if (origin === undefined) return {};
  return {
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': 'retry-after',
    vary: 'Origin',
  };
}

/**
 * Starts a proxy to the ingest server at `target`. `answerDelayMs` holds back each forwarded answer, so requests stay
 * in flight longer (the keepalive budget can then run out).
 */
export async function startIngestProxy(target: string, options: { answerDelayMs?: number } = {}): Promise<IngestProxy> {
  const answerDelayMs = options.answerDelayMs ?? 0;
  const seen: ProxiedRequest[] = [];
  const resets: number[] = [];
  const sockets = new Set<Socket>();
  let fault: IngestFault | undefined;
  let faultsLeft = Infinity;
  let faultPath: string | undefined;
  let inFlight = 0;
  let maxInFlight = 0;
  let lastActivity = performance.now();
  const touch = () => void (lastActivity = performance.now());

  const resetWaiters = new Set<{ count: number; reached: () => void }>();
  function reset(socket: Socket): void {
    socket.resetAndDestroy();
    resets.push(performance.now());
    touch();
    for (const waiter of resetWaiters) if (resets.length >= waiter.count) waiter.reached();
  }
  const resetsReach = (count: number) =>
    new Promise<void>((resolve) => {
      const waiter = {
        count,
        reached: () => {
          resetWaiters.delete(waiter);
          resolve();
        },
      };
      resetWaiters.add(waiter);
      if (resets.length >= count) waiter.reached();
    });

  /** The fault a POST meets (`slow` or `status`: `down` never gets this far), counting it against `times`. */
  function faultForPost(path: string): IngestFault | undefined {
    if (fault === undefined || (faultPath !== undefined && path !== faultPath)) return undefined;
    const current = fault;
    faultsLeft -= 1;
    if (faultsLeft <= 0) fault = undefined;
    return current;
  }

  async function forward(
    req: http.IncomingMessage,
    url: URL,
    body: Buffer,
    res: http.ServerResponse,
    entry: ProxiedRequest,
    lose = false,
  ) {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_REQUEST_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = await fetch(url, {
      method: req.method,
      headers,
      body: req.method === 'POST' ? new Uint8Array(body) : undefined,
    });
    const answer = Buffer.from(await upstream.arrayBuffer());
    const answerHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!HOP_HEADERS.includes(name)) answerHeaders[name] = value;
    });
    if (answerDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, answerDelayMs));
    entry.status = upstream.status;
    if (lose) {
      reset(req.socket);
      return;
    }
    res.writeHead(upstream.status, answerHeaders).end(answer);
  }

  function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void {
    // A request that was still arriving when ingest went down goes the way of its connection.
    if (fault?.kind === 'down') {
      reset(req.socket);
      return;
    }
    const url = new URL(req.url ?? '/', target);
    const postFault = req.method === 'POST' ? faultForPost(url.pathname) : undefined;
    const entry: ProxiedRequest = {
      method: req.method ?? '',
      path: url.pathname,
      beacon: url.searchParams.has(API_KEY_QUERY_PARAM),
      apiKeyHeader: req.headers['x-api-key'] !== undefined,
      contentType: req.headers['content-type'] ?? '',
      bytes: body.length,
      body: (req.headers['content-encoding'] === 'gzip' ? gunzipSync(body) : body).toString('utf8'),
      receivedAt: performance.now(),
      handling:
        postFault === undefined
          ? 'forwarded'
          : postFault.kind === 'slow'
            ? 'held'
            : postFault.kind === 'lost'
              ? 'lost'
              : 'answered',
    };
    seen.push(entry);
    touch();
    res.on('close', () => {
      if (res.writableFinished) entry.answeredAt = performance.now();
      else entry.abandonedAt = performance.now();
      touch();
    });

    if (postFault?.kind === 'status') {
      entry.status = postFault.status;
      res
        .writeHead(postFault.status, { ...corsHeaders(req.headers.origin), ...postFault.headers })
        .end(postFault.body ?? '');
    } else if (postFault === undefined || postFault.kind === 'lost') {
      forward(req, url, body, res, entry, postFault !== undefined).catch(() => res.destroy());
    }
    // `slow`: no answer; the entry is settled if the client closes the connection.
  }

  const local = await serveLocally((req, res) => {
    // Body bytes count as in flight from the request's arrival to the end of its answer (or its abandonment).
    const declared = req.method === 'POST' ? Number(req.headers['content-length'] ?? 0) : 0;
    inFlight += declared;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => void (inFlight -= declared));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks)));
  });
  local.server.on('connection', (socket: Socket) => {
    if (fault?.kind === 'down') {
      reset(socket);
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  return {
    url: local.origin,
    seen,
    resets,
    resetsReach,
    posts: (path) => seen.filter((r) => r.method === 'POST' && (path === undefined || r.path === path)),
    maxInFlight: () => maxInFlight,
    pending: () => seen.filter((r) => r.answeredAt === undefined && r.abandonedAt === undefined).length,
    lastActivity: () => lastActivity,
    setFault(next, times = Infinity, path) {
      fault = next;
      faultsLeft = times;
      faultPath = path;
      // Going down drops the connections already open too (a browser keeps idle ones to reuse).
      if (next?.kind === 'down') for (const socket of sockets) reset(socket);
    },
    close: () => local.close(),
  };
}
