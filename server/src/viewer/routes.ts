import { Hono } from 'hono';
import { compress } from 'hono/compress';
import type { AppEnv } from '../http/env';
import { ApiError } from '../http/errors';
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

/**
 * The session replay viewer (`/viewer/`), keyless and same-origin: the page and its files (its own script and style,
 * rrweb-player from the installed package). The page asks the control-plane API for data with the control key the user
 * gives it; the server hands out nothing here that needs a key.
 */
export function viewerRoutes(): Hono<AppEnv> {
  const assets = viewerAssets();
  const byName = new Map<string, ViewerAsset>(Object.values(assets).map((a: ViewerAsset) => [a.name, a]));
  const html = renderViewerPage(assets);
  const app = new Hono<AppEnv>();

  app.use('/viewer/*', compress());
  app.get('/viewer', (c) => c.redirect('/viewer/'));
  app.get('/viewer/', (c) => c.html(html, 200, PAGE_HEADERS));
  app.get(`${VIEWER_ASSET_PREFIX}:file`, (c) => {
    const asset = byName.get(c.req.param('file'));
    if (!asset) throw new ApiError(404, 'not_found', `no viewer file ${c.req.param('file')}; reload /viewer/ for the current names`);
    return c.body(asset.body, 200, { 'content-type': asset.contentType, 'cache-control': ASSET_CACHE, 'x-content-type-options': 'nosniff' });
  });
  return app;
}
