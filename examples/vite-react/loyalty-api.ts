import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Plugin } from 'vite';

/**
 * `/api/loyalty`: a loyalty service that is down. It always answers 500 with an error body, which the "Show loyalty
 * points" button does not expect: the seeded bug the AI-fix proof (test/e2e/ai-fix.spec.ts) records, analyses and fixes.
 */
export function loyaltyApi(): Plugin {
  const handle = (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    if (!req.url?.startsWith('/api/loyalty')) return next();
    res.statusCode = 500;
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'no-store');
    res.end(JSON.stringify({ error: 'loyalty service unavailable' }));
  };
  return {
    name: 'loyalty-api',
    configureServer(server) {
      server.middlewares.use(handle);
    },
    configurePreviewServer(server) {
      server.middlewares.use(handle);
    },
  };
}
