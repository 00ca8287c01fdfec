import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { compress } from 'hono/compress';
import { ApiError } from '../http/errors';
import { createRouter, errors } from '../http/openapi';
import { consoleBuild } from './files';

/**
 * The console's Content-Security-Policy: its own scripts only and no inline script. Styles may be inline because
 * the replay player writes the recorded page's CSS into its sandboxed iframe as `<style>` elements, and the recorded
 * page's images, fonts and media load from wherever the page had them, as a faithful replay needs;
 * `Referrer-Policy: no-referrer` keeps the console's addresses out of those requests. The page talks to its own
 * origin only.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src * data: blob:',
  'font-src * data:',
  'media-src * data: blob:',
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export const CONSOLE_PAGE_HEADERS = {
  'content-security-policy': CONSOLE_CSP,
  'cache-control': 'no-cache',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** Asset names carry a hash of their content, so a browser may keep them for good. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

/**
 * The console's own addresses and what each shows: each answers the console's page, whose script then shows the view
 * the path and query name. Details use singular paths (`/session/{id}`) so they never meet the signed pages at
 * `/incidents/{id}` and `/issues/{id}` that notifications link to.
 */
export const CONSOLE_PAGES = {
  '/sessions': 'sessions, filtered and sorted',
  '/session/{id}':
    'one session: its replay with console, network, errors, traces and Web Vitals (`?t=<ms>` opens a moment)',
  '/issues': 'issues',
  '/issue/{id}': 'one issue: its stack, sessions, analysis and pull request',
  '/traces': 'trace search',
  '/trace/{id}': "one trace's waterfall",
  '/vitals': 'Web Vitals per page',
  '/releases':
    "an app's releases, one compared with the release before it: Web Vitals, span error rate, error-free sessions",
  '/alerts': 'alert rules: their state, last value and incident',
  '/alert/{id}': 'one alert rule in the editor, with the preview of when it would have fired (`new` makes one)',
  '/incidents': 'incidents',
  '/incident/{id}': 'one incident',
  '/notifications': 'notification channels, rules and deliveries',
  '/cost': 'cost of the current period',
  '/test-runs': 'Playwright test runs, filtered by branch, commit, status and time',
  '/test-run/{id}': 'one test run: its tests, failed first, with errors, original stacks and links to their sessions',
  '/tests/flaky': 'flaky tests: flip rate and last flips over the last N runs',
  '/test/{id}': "one test's history over runs (`{id}` is its test key)",
  '/ingest-health':
    'ingest requests the server refused, per reason with the last example, beside what the SDK reported it dropped',
  '/setup':
    "how to send the project's first event: its ingest key, app names and snippets, and whether data has arrived",
  '/sign-in':
    'sign-in: single sign-on, e-mail and password, or an API key (`?error=<code>` says why single sign-on failed)',
  '/welcome': 'the first owner of the server, from the one-time set-up link (`#token=…`)',
  '/join': 'an invitation to an organisation (`#token=…`)',
  '/reset': 'asks for a password-reset link; with `#token=…` sets a new password',
  '/members': "the organisation's members, roles, project limits and invitations",
  '/keys': 'machine keys: who made each, last use, create and revoke',
  '/audit': 'the audit log: every change, who made it and from where, filtered and exported as JSON lines',
  '/account': "the person's console sessions, each revocable",
  '/organisation': "the organisation's name and its single sign-on: whether it is on, and the policy in force",
  '/retention': 'how long the project keeps each signal: its own days or the server default, set by who may configure',
  '/usage':
    "ingest per signal and day (accepted, throttled, refused) against the daily quotas, the month's projection, spikes, and the limits, set by who may configure",
} as const;

export const CONSOLE_PATHS = Object.keys(CONSOLE_PAGES) as Array<keyof typeof CONSOLE_PAGES>;

const tags = ['console'];
const assetRoute = createRoute({
  method: 'get',
  path: '/console/assets/{file}',
  tags,
  summary: 'A script or stylesheet of the console; names carry a content hash and are cached for good',
  request: { params: z.object({ file: z.string().openapi({ example: 'index-0EyXHl7I.js' }) }) },
  responses: {
    200: {
      description: 'JavaScript, CSS or a source map',
      content: { 'text/javascript': { schema: z.string() }, 'text/css': { schema: z.string() } },
    },
    ...errors(404),
  },
});
const pageRoute = (path: keyof typeof CONSOLE_PAGES) =>
  createRoute({
    method: 'get',
    path,
    tags,
    summary: `Console: ${CONSOLE_PAGES[path]} (HTML; the page asks the control plane for data with the key it is given)`,
    ...(path.includes('{id}')
      ? { request: { params: z.object({ id: z.string().openapi({ example: 'a1b2c3' }) }) } }
      : {}),
    responses: {
      200: {
        description: 'The console page, with a Content-Security-Policy header',
        content: { 'text/html': { schema: z.string() } },
      },
    },
  });
const viewerRedirect = (path: '/viewer' | '/viewer/') =>
  createRoute({
    method: 'get',
    path,
    tags,
    summary:
      "The old replay viewer address: redirects to the console, keeping the link's fragment (`#key=…&session=…`)",
    responses: { 302: { description: 'To /' } },
  });

/** The console's page, or a plain answer saying how to build it when this server was started without one. */
export function consolePage(c: Context) {
  const build = consoleBuild();
  if (!build.built) return c.text(`svc console: ${build.reason}\n`, 503, { 'cache-control': 'no-store' });
  return c.html(build.html, 200, CONSOLE_PAGE_HEADERS);
}

/**
 * The console (server/console, a React app built by Vite into dist/console): its page at `/` (see landing/routes.ts)
 * and at every console path, and its hashed assets. Keyless: the page asks the control plane for data with the key
 * the user gives it; nothing here needs one.
 */
export function consoleRoutes() {
  const app = createRouter();
  app.use('/console/*', compress());
  for (const path of CONSOLE_PATHS) app.openapi(pageRoute(path), consolePage);
  return app
    .openapi(viewerRedirect('/viewer'), (c) => c.redirect('/', 302))
    .openapi(viewerRedirect('/viewer/'), (c) => c.redirect('/', 302))
    .openapi(assetRoute, (c) => {
      const { file } = c.req.valid('param');
      const build = consoleBuild();
      const asset = build.built ? build.assets.get(file) : undefined;
      if (!asset)
        throw new ApiError(404, 'not_found', `no console file ${file}; reload the console for the current names`);
      return c.body(asset.body, 200, {
        'content-type': asset.contentType,
        'cache-control': ASSET_CACHE,
        'x-content-type-options': 'nosniff',
      });
    });
}
