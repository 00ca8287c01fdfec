import { Hono } from 'hono';
import { accepts } from 'hono/accepts';
import type { AppEnv, Services } from '../http/env';
import { LANDING_CSP, renderLandingPage, type LandingLinks } from './page';

/** The answer depends on Accept, so caches must keep the two apart. */
const COMMON = { vary: 'Accept', 'cache-control': 'no-cache' };
const PAGE_HEADERS = { ...COMMON, 'content-security-policy': LANDING_CSP, 'referrer-policy': 'no-referrer' };

/**
 * `GET /`: a small HTML page for a person who opens the server's address, or, for a program that asks for
 * `application/json` first, the same links as JSON. A browser's Accept ranks HTML first; with none, HTML too.
 */
export function landingRoutes(services: Pick<Services, 'publicUrl'>, links: LandingLinks): Hono<AppEnv> {
  const html = renderLandingPage(links);
  // Read per request: the public URL is known only once the server listens (a port of 0 picks one).
  const index = (base: string) => ({
    name: 'svc reference server',
    links: {
      viewer: `${base}/viewer/`,
      ...(links.demo ? { demo: `${base}/demo/` } : {}),
      openapi: `${base}/openapi.json`,
      health: `${base}/healthz`,
      control_plane: `${base}/control-plane`,
      otlp: `${base}/otlp`,
    },
  });
  const app = new Hono<AppEnv>();
  app.get('/', (c) => {
    const type = accepts(c, { header: 'Accept', supports: ['text/html', 'application/json'], default: 'text/html' });
    return type === 'application/json' ? c.json(index(services.publicUrl), 200, COMMON) : c.html(html, 200, PAGE_HEADERS);
  });
  return app;
}
