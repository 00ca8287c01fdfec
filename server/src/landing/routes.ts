import { createRoute, z } from '@hono/zod-openapi';
import { accepts } from 'hono/accepts';
import type { Services } from '../http/env';
import { createRouter } from '../http/openapi';
import { LANDING_CSP, renderLandingPage, type LandingLinks } from './page';

/** The answer depends on Accept, so caches must keep the two apart. */
const COMMON = { vary: 'Accept', 'cache-control': 'no-cache' };
const PAGE_HEADERS = { ...COMMON, 'content-security-policy': LANDING_CSP, 'referrer-policy': 'no-referrer' };

const landingRoute = createRoute({
  method: 'get',
  path: '/',
  tags: ['service'],
  summary: 'Where to go from here: the viewer, the demo (when enabled), this document and the docs',
  description: 'An HTML page (no script, strict Content-Security-Policy); with `Accept: application/json` first, the same links as JSON.',
  responses: {
    200: {
      description: 'The landing page or its links',
      content: { 'text/html': { schema: z.string() }, 'application/json': { schema: z.object({ name: z.string(), links: z.record(z.string(), z.string()) }) } },
    },
  },
});

/**
 * `GET /`: a small HTML page for a person who opens the server's address, or, for a program that asks for
 * `application/json` first, the same links as JSON. A browser's Accept ranks HTML first; with none, HTML too.
 */
export function landingRoutes(services: Pick<Services, 'publicUrl'>, links: LandingLinks) {
  const html = renderLandingPage(links);
  // Read per request: the public URL is known only once the server listens (a port of 0 picks one).
  const index = (base: string) => ({
    name: 'svc reference server',
    links: {
      viewer: `${base}/viewer/`,
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
    return type === 'application/json' ? c.json(index(services.publicUrl), 200, COMMON) : c.html(html, 200, PAGE_HEADERS);
  });
}
