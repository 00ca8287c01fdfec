import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { keepConnectionsLonger } from './keep-alive';

export interface Listening {
  server: ServerType;
  port: number;
  /** e.g. http://127.0.0.1:4318, an IPv6 host in brackets. */
  url: string;
}

/** Serves `fetch` on host and port (0 for any free one); rejects when the port cannot be had. */
export async function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  host: string,
  port: number,
): Promise<Listening> {
  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve({ fetch, hostname: host, port }, () => resolve(s));
    keepConnectionsLonger(s);
    s.once('error', reject);
  });
  const bound = (server.address() as AddressInfo).port;
  return { server, port: bound, url: `http://${host.includes(':') ? `[${host}]` : host}:${bound}` };
}

/** Stops accepting and closes every connection: idle keep-alive ones would hold close() open until they time out. */
export function closeServer(server: ServerType): Promise<void> {
  return new Promise<void>((resolve) => {
    server.close(() => resolve());
    (server as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
}
