import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** An HTTP server on 127.0.0.1 and a free port, as tests and benchmarks use them. */
export interface LocalServer {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  port: number;
  server: http.Server;
  /** Stops listening and drops keep-alive connections, so no test waits for idle sockets to time out. */
  close(): Promise<void>;
}

export async function serveLocally(handler: http.RequestListener): Promise<LocalServer> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Serves `files` by path (each read when asked), JavaScript as such and the rest as HTML, uncached; 404 otherwise. */
export function serveFiles(files: Record<string, () => string | Buffer>): Promise<LocalServer> {
  return serveLocally((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const file = files[path];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, {
      'content-type': path.endsWith('.js') ? 'text/javascript' : 'text/html; charset=utf-8',
      'cache-control': 'no-store',
    });
    res.end(file());
  });
}
