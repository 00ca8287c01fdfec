import type { ServerType } from '@hono/node-server';

/**
 * Idle keep-alive connections are kept 65 s instead of Node's 5 s. A client reusing a connection at the moment the
 * server closes it gets "other side closed" / ECONNRESET on a request that never reached the server: with 5 s that
 * race is hit by any client whose event loop stalls a few seconds (a busy page, a test blocked on a child process),
 * and behind a load balancer whose idle timeout is the usual 60 s every reused connection risks it. The server must
 * outlast the balancer, hence 65 s; the headers timeout stays above it, as Node requires.
 */
export const KEEP_ALIVE_MS = 65_000;

export function keepConnectionsLonger(server: ServerType): void {
  if (!('keepAliveTimeout' in server)) return;
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
}
