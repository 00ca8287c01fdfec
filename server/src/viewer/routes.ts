import { createRoute, z } from '@hono/zod-openapi';
import { compress } from 'hono/compress';
import { ApiError } from '../http/errors';
import { createRouter, errors } from '../http/openapi';
import { viewerAssets, type ViewerAsset } from './assets';
import { renderViewerPage, VIEWER_ASSET_PREFIX, VIEWER_CSP } from './page';

const PAGE_HEADERS = {
  'content-security-policy': VIEWER_CSP,
  'cache-control': 'no-cache',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/** Asset names carry a hash of their content, so a browser may keep them for good. */
const ASSET_CACHE = 'public, max-age=31536000, immutable';

const tags = ['viewer'];
const redirectRoute = createRoute({ method: 'get', path: '/viewer', tags, summary: 'Redirects to /viewer/', responses: { 302: { description: 'To /viewer/' } } });
const pageRoute = createRoute({
  method: 'get',
  path: '/viewer/',
  tags,
  summary: 'The session replay viewer page (HTML); open /viewer/#key=<control key>&session=<session id>',
  responses: { 200: { description: 'HTML, with a Content-Security-Policy header', content: { 'text/html': { schema: z.string() } } } },
});
const assetRoute = createRoute({
  method: 'get',
  path: `${VIEWER_ASSET_PREFIX}{file}`,
  tags,
  summary: 'A script or stylesheet of the viewer page (rrweb-player included); names carry a content hash and are cached for good',
  request: { params: z.object({ file: z.string().openapi({ example: 'viewer.3f2a9c1b07de.js' }) }) },
  responses: { 200: { description: 'JavaScript or CSS', content: { 'text/javascript': { schema: z.string() }, 'text/css': { schema: z.string() } } }, ...errors(404) },
});

/**
 * The session replay viewer (`/viewer/`), keyless and same-origin: the page and its files (its own script and style,
 * rrweb-player from the installed package). The page asks the control-plane API for data with the control key the user
 * gives it; the server hands out nothing here that needs a key.
 */
export function viewerRoutes() {
  const assets = viewerAssets();
  const byName = new Map<string, ViewerAsset>(Object.values(assets).map((a: ViewerAsset) => [a.name, a]));
  const html = renderViewerPage(assets);
  const app = createRouter();
  app.use('/viewer/*', compress());
  return app
    .openapi(redirectRoute, (c) => c.redirect('/viewer/'))
    .openapi(pageRoute, (c) => c.html(html, 200, PAGE_HEADERS))
    .openapi(assetRoute, (c) => {
      const { file } = c.req.valid('param');
      const asset = byName.get(file);
      if (!asset) throw new ApiError(404, 'not_found', `no viewer file ${file}; reload /viewer/ for the current names`);
      return c.body(asset.body, 200, { 'content-type': asset.contentType, 'cache-control': ASSET_CACHE, 'x-content-type-options': 'nosniff' });
    });
}
