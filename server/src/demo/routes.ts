import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createRoute, z, type RouteConfig } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { ApiError } from '../http/errors';
import { createRouter, errors } from '../http/openapi';
import { findClosedPort } from './closed-port';
import { echo, EchoQuery } from './echo';
import { renderDemoPage } from './page';

/** The keys the demo page puts in its script tag: those the CLI prints. */
export interface DemoKeys {
  ingestKey: string;
  appName: string;
}

export interface DemoOptions {
  /**
   * Absolute path of the built script-tag bundle, `dist/cdn/svc.min.js`. The session recorder it loads when replay
   * starts, `svc-recorder.min.js`, is served from the same folder.
   */
  sdkPath: string;
  /** Read at each page view, so keys known only once the server has started still reach the page. */
  keys(): DemoKeys | null;
}

/** `service.name` when no key (and so no app) is known: the SDK's own default. */
const DEFAULT_APP = 'web-app';

/** The recorder file `svc.min.js` loads from beside itself (src/cdn/load-recorder.ts) once replay starts. */
const RECORDER_FILE = 'svc-recorder.min.js';

/** An SDK file, read at each request so a rebuilt SDK is served without a restart. */
async function serveFile(path: string, contentType: string): Promise<Response> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    throw new ApiError(404, 'not_found', `${path} is missing; build it with \`npm run build:sdk\``);
  }
  return new Response(new Uint8Array(bytes), { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
}

const tags = ['demo'];
const get = (path: string, summary: string, responses: RouteConfig['responses']) =>
  createRoute({ method: 'get', path, tags, summary, responses });
const pageRoute = createRoute({
  method: 'get',
  path: '/demo/',
  tags,
  summary: 'The SDK demo page (HTML)',
  request: {
    query: z.object({
      api_key: z.string().optional().openapi({ description: 'Ingest key to use instead of the one the server knows' }),
    }),
  },
  responses: { 200: { description: 'HTML', content: { 'text/html': { schema: z.string() } } } },
});
const file = (path: string, summary: string, type: string) =>
  get(path, summary, { 200: { description: summary, content: { [type]: { schema: z.string() } } }, ...errors(404) });

const echoRoute = (method: 'get' | 'post') =>
  createRoute({
    method,
    path: '/demo/api/echo',
    tags,
    summary: `Echo the request (${method.toUpperCase()}): method, path, query and every header received`,
    description:
      "Same-origin target of the demo page's requests, to show the `traceparent` and session headers the SDK adds.",
    request: { query: EchoQuery },
    responses: {
      200: {
        description: 'The echo, with the status asked for (`bodyBytes` for POST)',
        content: {
          'application/json': {
            schema: z.object({
              method: z.string(),
              path: z.string(),
              query: z.record(z.string(), z.string()),
              headers: z.record(z.string(), z.string()),
              bodyBytes: z.number().int().optional(),
            }),
          },
        },
      },
      ...errors(400, 413),
    },
  });

/**
 * The demo page and what it needs, all same-origin and keyless: the page (`/demo/`), the SDK bundle, the session
 * recorder it loads on demand, their source maps, and an echo endpoint the page's requests go to. Registered only
 * when the server is given an SDK file.
 */
export function demoRoutes(services: Services, options: DemoOptions) {
  const app = createRouter();
  let closedPort: Promise<number> | undefined;
  const js = 'text/javascript';
  const map = 'application/json';
  const recorderPath = join(dirname(options.sdkPath), RECORDER_FILE);

  app.openapi(get('/demo', 'Redirects to /demo/', { 302: { description: 'To /demo/' } }), (c) => c.redirect('/demo/'));
  app.openapi(pageRoute, async (c) => {
    const keys = options.keys();
    // A key in the address (ingest keys are public) lets the page work when the server knows none.
    const ingestKey = c.req.valid('query').api_key?.trim() || keys?.ingestKey;
    closedPort ??= findClosedPort();
    const html = renderDemoPage({
      ingestKey,
      appName: keys?.appName ?? DEFAULT_APP,
      publicUrl: services.publicUrl,
      closedPort: await closedPort,
    });
    return c.html(html, 200, { 'cache-control': 'no-store' });
  });
  app.openapi(file('/demo/svc.min.js', 'The SDK script-tag bundle the page loads', js), () =>
    serveFile(options.sdkPath, `${js}; charset=utf-8`),
  );
  app.openapi(file('/demo/svc.min.js.map', 'Its source map', map), () =>
    serveFile(`${options.sdkPath}.map`, `${map}; charset=utf-8`),
  );
  app.openapi(
    file(`/demo/${RECORDER_FILE}`, 'The session recorder svc.min.js loads when replay starts (beside --demo-sdk)', js),
    () => serveFile(recorderPath, `${js}; charset=utf-8`),
  );
  app.openapi(file(`/demo/${RECORDER_FILE}.map`, 'Its source map', map), () =>
    serveFile(`${recorderPath}.map`, `${map}; charset=utf-8`),
  );
  // The echo answers with whatever status the caller asked for, which no typed answer can name.
  for (const method of ['get', 'post'] as const)
    app.openapi(echoRoute(method), async (c) => (await echo(c, services, c.req.valid('query'))) as never);
  return app;
}
