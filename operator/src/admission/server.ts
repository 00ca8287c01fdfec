/**
 * The webhook's HTTPS server: `POST /mutate-v1-pod` (AdmissionReview v1), `/healthz`, `/readyz`. Anything sent to the
 * webhook path is answered 200 with an AdmissionReview that allows the pod — a wrong method, a wrong content type, a
 * body over the limit included — because the API server treats any other answer as a webhook failure. Certificates
 * come from a TlsSource and are switched in place with `setSecureContext` when it rotates them: no restart, open
 * connections keep the certificate they were made with.
 */
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SecureContextOptions } from 'node:tls';
import { WEBHOOK_PATH } from '../markers.js';
import type { TlsMaterial, TlsSource } from '../certs/source.js';
import { admit, type AdmissionContext } from './handler.js';

/**
 * kube-apiserver stores objects up to 1.5 MiB (etcd's default limit) and sends the pod once in a CREATE review; this
 * leaves room for the review's envelope and still refuses to buffer something absurd.
 */
export const DEFAULT_MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface WebhookServerOptions extends AdmissionContext {
  /** 0 picks a free port (tests); the chosen one is in the result. */
  port: number;
  host?: string;
  tls: TlsSource;
  maxBodyBytes?: number;
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
  res.writeHead(status, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), ...(close ? { connection: 'close' } : {}) });
  res.end(body);
}

function isJson(contentType: string | undefined): boolean {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase();
  return mediaType === 'application/json';
}

export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  async function answer(res: ServerResponse, body: string, skipped?: string, close = false): Promise<void> {
    const review = await admit(body, options, skipped);
    if (!res.destroyed) send(res, 200, 'application/json', JSON.stringify(review), close);
  }

  function mutate(req: IncomingMessage, res: ServerResponse): void {
    if (req.method !== 'POST') {
      req.resume();
      void answer(res, '', `method ${req.method ?? '(none)'} is not POST`);
      return;
    }
    if (!isJson(req.headers['content-type'])) {
      req.resume();
      void answer(res, '', `content type ${JSON.stringify(req.headers['content-type'] ?? '')} is not application/json`);
      return;
    }
    const declared = Number(req.headers['content-length']);
    const tooLarge = `body larger than ${maxBodyBytes} bytes`;
    // Answer without reading a body announced as too large, and close the connection rather than drain it.
    if (Number.isFinite(declared) && declared > maxBodyBytes) {
      void answer(res, '', tooLarge, true);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    req.on('data', (chunk: Buffer) => {
      if (overflow) return;
      size += chunk.length;
      if (size > maxBodyBytes) {
        overflow = true;
        chunks.length = 0;
        req.pause();
        void answer(res, '', tooLarge, true);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!overflow) void answer(res, Buffer.concat(chunks, size).toString('utf8'));
    });
    // A client that goes away mid-body gets no answer; there is nobody to send it to.
    req.on('error', () => undefined);
  }

  const server: Server = createServer({ ...secureContext(options.tls.current()) }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === WEBHOOK_PATH) return mutate(req, res);
    req.resume();
    if (path === '/healthz') return send(res, 200, 'text/plain', 'ok\n');
    if (path === '/readyz') return (options.isReady?.() ?? true) ? send(res, 200, 'text/plain', 'ok\n') : send(res, 503, 'text/plain', 'not ready\n');
    send(res, 404, 'text/plain', 'not found\n');
  });
  // kube-apiserver keeps webhook connections idle for up to 90 s (client-go's IdleConnTimeout); staying open longer
  // means the client, not this server, closes an idle connection, so a request never races a server-side close.
  server.keepAliveTimeout = 100_000;
  // The API server gives up after the webhook's timeoutSeconds (10 s); a request that dribbles in longer is abandoned.
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  // A failed handshake (a scanner, a client that does not trust the CA) concerns that client only.
  server.on('tlsClientError', () => undefined);

  const unsubscribe = options.tls.onChange((material) => {
    try {
      server.setSecureContext(secureContext(material));
      options.log('info', 'webhook server now presents the renewed certificate');
    } catch (error) {
      options.log('error', 'webhook server could not switch to the renewed certificate; it keeps the previous one', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  });

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
