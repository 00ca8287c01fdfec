import { createRoute, z } from '@hono/zod-openapi';
import { accepts } from 'hono/accepts';
import { consolePage } from '../console/routes';
import type { Services } from '../http/env';
import { createRouter } from '../http/openapi';

/** What the index links to; the demo only when the server serves it (`--demo-sdk`). */
export interface LandingLinks {
  demo: boolean;
}

/** The answer depends on Accept, so caches must keep the two apart. */
const COMMON = { vary: 'Accept', 'cache-control': 'no-cache' };

const landingRoute = createRoute({
  method: 'get',
  path: '/',
  tags: ['service'],
  summary: "The console (HTML), or for programs the server's links as JSON",
  description:
    'A browser gets the console (a single-page app; strict Content-Security-Policy, no inline script). With `Accept: application/json` first, the links to the console, the demo (when enabled), the API reference and the endpoints as JSON.',
  responses: {
    200: {
      description: 'The console page or the links',
      content: {
        'text/html': { schema: z.string() },
        'application/json': { schema: z.object({ name: z.string(), links: z.record(z.string(), z.string()) }) },
      },
    },
  },
});

/**
 * `GET /`: the console for a person, or for a program that asks for `application/json` first, the server's links.
 * A browser's Accept ranks HTML first; with none, HTML too.
 */
export function landingRoutes(services: Pick<Services, 'publicUrl'>, links: LandingLinks) {
  // Read per request: the public URL is known only once the server listens (a port of 0 picks one).
  const index = (base: string) => ({
    name: 'svc reference server',
    links: {
      console: `${base}/`,
      ...(links.demo ? { demo: `${base}/demo/` } : {}),
      api_reference: `${base}/docs/api`,
      openapi: `${base}/openapi.json`,
      health: `${base}/healthz`,
      control_plane: `${base}/control-plane`,
      otlp: `${base}/otlp`,
    },
  });
  return createRouter().openapi(landingRoute, (c) => {
    const type = accepts(c, { header: 'Accept', supports: ['text/html', 'application/json'], default: 'text/html' });
    if (type === 'application/json') return c.json(index(services.publicUrl), 200, COMMON);
    const page = consolePage(c);
    page.headers.set('vary', 'Accept');
    return page;
  });
}
