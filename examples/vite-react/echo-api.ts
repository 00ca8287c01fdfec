import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from 'vite';

/**
 * `/api/echo`: a stand-in for the app's backend. It answers with the request headers it received, so you can see the
 * `traceparent` and `x-svc-session-id` headers the SDK adds to same-origin requests. Served by `vite` (dev) and
 * `vite preview` (production build).
 */
export function echoApi(): Plugin {
  const handle = (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (!req.url?.startsWith('/api/echo')) return next();
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
  };
  return {
    name: 'echo-api',
    configureServer(server) {
      server.middlewares.use(handle);
    },
    configurePreviewServer(server) {
      server.middlewares.use(handle);
    },
  };
}
