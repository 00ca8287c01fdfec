/**
 * The webhook's HTTPS server: `POST /mutate-v1-pod` (AdmissionReview v1), `/healthz`, `/readyz`. Anything sent to the
 * webhook path is answered 200 with an AdmissionReview that allows the pod — a wrong method, a wrong content type, a
 * body over the limit included (drained, answered with its request's uid) — because the API server treats any other
 * answer as a webhook failure. Certificates
 * come from a TlsSource and are switched in place with `setSecureContext` when it rotates them: no restart, open
 * connections keep the certificate they were made with.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SecureContextOptions } from 'node:tls';
import { WEBHOOK_PATH } from '../markers.js';
import type { TlsMaterial, TlsSource } from '../certs/source.js';
import { readBody, type BodyLimits } from './body.js';
import { admit, type AdmissionContext, type Skipped } from './handler.js';

/**
 * kube-apiserver stores objects up to 1.5 MiB (etcd's default limit) and sends the pod once in a CREATE review; this
 * leaves room for the review's envelope and still refuses to buffer something absurd.
 */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;
/**
 * A body over the limit is still read to its end, so that the client gets the answer rather than a reset. No API
 * server sends this much; past it, the webhook answers and closes the connection.
 */
export const DEFAULT_DRAIN_BYTES = 32 * 1024 * 1024;
/** Draining must end well before the API server gives up on the webhook (timeoutSeconds, 10 s by default). */
export const DEFAULT_DRAIN_MS = 5000;

export interface WebhookServerOptions extends AdmissionContext {
  /** 0 picks a free port (tests); the chosen one is in the result. */
  port: number;
  host?: string;
  tls: TlsSource;
  maxBodyBytes?: number;
  /** Bounds on reading a body over maxBodyBytes to its end; defaults DEFAULT_DRAIN_BYTES and DEFAULT_DRAIN_MS. */
  drainBytes?: number;
  drainMs?: number;
  /** `/readyz` answers 503 while this returns false (e.g. before the controller's caches synced); default ready. */
  isReady?: () => boolean;
}

export interface WebhookServer {
  port: number;
  close(): Promise<void>;
}

function secureContext(material: TlsMaterial): SecureContextOptions {
  return { key: material.key, cert: material.cert, minVersion: 'TLSv1.2' };
}

function send(res: ServerResponse, status: number, contentType: string, body: string, close = false): void {
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...(close ? { connection: 'close' } : {}),
  });
  res.end(body);
}

function isJson(contentType: string | undefined): boolean {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

/** How much of a body is read, and how much of an oversized one is drained (never less than the limit), and how long. */
export function bodyLimits(options: Pick<WebhookServerOptions, 'maxBodyBytes' | 'drainBytes' | 'drainMs'>): BodyLimits {
  const maxBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  return {
    maxBytes,
    drainBytes: Math.max(options.drainBytes ?? DEFAULT_DRAIN_BYTES, maxBytes),
    drainMs: options.drainMs ?? DEFAULT_DRAIN_MS,
  };
}

/** Why a request to the webhook path is not an AdmissionReview to read (answered as a skip), or undefined. */
export function requestProblem(method: string | undefined, contentType: string | undefined): string | undefined {
  if (method !== 'POST') return `method ${method ?? '(none)'} is not POST`;
  if (!isJson(contentType)) return `content type ${JSON.stringify(contentType ?? '')} is not application/json`;
  return undefined;
}

/** The answer to any other path: the probes, or 404. */
export function otherPathAnswer(path: string | undefined, ready: boolean): [status: number, body: string] {
  if (path === '/healthz') return [200, 'ok\n'];
  if (path === '/readyz') return ready ? [200, 'ok\n'] : [503, 'not ready\n'];
  return [404, 'not found\n'];
}

/** Timeouts for kube-apiserver as the client, and a failed handshake ignored (it concerns that client only). */
function tuneForApiServer(server: Server): void {
  // kube-apiserver keeps webhook connections idle for up to 90 s (client-go's IdleConnTimeout); staying open longer
  // means the client, not this server, closes an idle connection, so a request never races a server-side close.
  server.keepAliveTimeout = 100_000;
  // The API server gives up after the webhook's timeoutSeconds (10 s); a request that dribbles in longer is abandoned.
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  server.on('tlsClientError', () => undefined);
}

/** Presents each renewed certificate from `tls`; a certificate it cannot take leaves the previous one. */
function followCertificate(server: Server, tls: TlsSource, log: WebhookServerOptions['log']): () => void {
  return tls.onChange((material) => {
    try {
      server.setSecureContext(secureContext(material));
      log('info', 'webhook server now presents the renewed certificate');
    } catch (error) {
      log('error', 'webhook server could not switch to the renewed certificate; it keeps the previous one', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const limits = bodyLimits(options);

  async function answer(res: ServerResponse, body: string, skipped?: Skipped, close = false): Promise<void> {
    const review = await admit(body, options, skipped);
    if (!res.destroyed) send(res, 200, 'application/json', JSON.stringify(review), close);
  }

  function mutate(req: IncomingMessage, res: ServerResponse): void {
    const problem = requestProblem(req.method, req.headers['content-type']);
    if (problem !== undefined) {
      req.resume();
      void answer(res, '', { reason: problem });
      return;
    }
    void readBody(req, limits).then((read) => {
      if (read.kind === 'complete') return answer(res, read.body);
      // A body that could not be drained in time leaves the connection mid-request: close it after the answer.
      if (read.kind === 'tooLarge')
        return answer(res, '', { reason: `body larger than ${limits.maxBytes} bytes`, uid: read.uid }, !read.drained);
      // A client that went away mid-body gets no answer; there is nobody to send it to.
      return undefined;
    });
  }

  const server: Server = createServer({ ...secureContext(options.tls.current()) }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === WEBHOOK_PATH) return mutate(req, res);
    req.resume();
    // Only /readyz asks isReady: a probe of another path must not depend on it.
    const [status, body] = otherPathAnswer(path, path === '/readyz' ? (options.isReady?.() ?? true) : true);
    send(res, status, 'text/plain', body);
  });
  tuneForApiServer(server);
  const unsubscribe = followCertificate(server, options.tls, options.log);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    port,
    close() {
      unsubscribe();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections end now; requests in flight get their answer, but not forever.
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 5000).unref();
      });
    },
  };
}
