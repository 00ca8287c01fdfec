import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Hono } from 'hono';
import type { AppEnv, Services } from '../http/env';
import { ApiError } from '../http/errors';
import { findClosedPort } from './closed-port';
import { echo } from './echo';
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

/**
 * The demo page and what it needs, all same-origin and keyless: the page (`/demo/`), the SDK bundle, the session
 * recorder it loads on demand, their source maps, and an echo endpoint the page's requests go to. Registered only
 * when the server is given an SDK file.
 */
export function demoRoutes(services: Services, options: DemoOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  let closedPort: Promise<number> | undefined;

  app.get('/demo', (c) => c.redirect('/demo/'));
  app.get('/demo/', async (c) => {
    const keys = options.keys();
    // A key in the address (ingest keys are public) lets the page work when the server knows none.
    const ingestKey = c.req.query('api_key')?.trim() || keys?.ingestKey;
    closedPort ??= findClosedPort();
    const html = renderDemoPage({ ingestKey, appName: keys?.appName ?? DEFAULT_APP, publicUrl: services.publicUrl, closedPort: await closedPort });
    return c.html(html, 200, { 'cache-control': 'no-store' });
  });
  app.get('/demo/svc.min.js', () => serveFile(options.sdkPath, 'text/javascript; charset=utf-8'));
  app.get('/demo/svc.min.js.map', () => serveFile(`${options.sdkPath}.map`, 'application/json; charset=utf-8'));
  const recorderPath = join(dirname(options.sdkPath), RECORDER_FILE);
  app.get(`/demo/${RECORDER_FILE}`, () => serveFile(recorderPath, 'text/javascript; charset=utf-8'));
  app.get(`/demo/${RECORDER_FILE}.map`, () => serveFile(`${recorderPath}.map`, 'application/json; charset=utf-8'));
  app.get('/demo/api/echo', (c) => echo(c, services));
  app.post('/demo/api/echo', (c) => echo(c, services));
  return app;
}
