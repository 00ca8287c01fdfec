import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createRoute, z } from '@hono/zod-openapi';
import { compress } from 'hono/compress';
import { createRouter, errors } from '../http/openapi';

/**
 * The interactive API reference at `/docs/api`: Swagger UI from the installed `swagger-ui-dist`, served from this
 * server's own origin. Not Scalar: its Hono middleware loads the reference from a CDN by default, and the reference
 * must work offline and under a CSP that allows only 'self'. The page reads `/openapi.json`; the control key is typed
 * into Swagger UI's Authorize dialog and stays in the browser tab (persistAuthorization off: not even localStorage).
 */
const PREFIX = '/docs/api';

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // Swagger UI sets style attributes on its elements.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${PREFIX}/swagger-ui.css">
</head>
<body>
<div id="api"></div>
<script src="${PREFIX}/swagger-ui-bundle.js"></script>
<script src="${PREFIX}/start.js"></script>
</body>
</html>
`;

/** No inline script (the CSP forbids it): the page starts Swagger UI from this file. */
const START = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#api',
  deepLinking: true,
  persistAuthorization: false,
  tryItOutEnabled: true,
  validatorUrl: null,
});
`;

type Asset = { body: Uint8Array<ArrayBuffer>; type: string };

let files: Record<string, Asset> | undefined;

/** Read once per process, on the first request: the bundle is about 1.5 MB. */
function assets(): Record<string, Asset> {
  if (files) return files;
  const dir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  const read = (name: string) => new Uint8Array(readFileSync(join(dir, name)));
  files = {
    'swagger-ui.css': { body: read('swagger-ui.css'), type: 'text/css; charset=utf-8' },
    'swagger-ui-bundle.js': { body: read('swagger-ui-bundle.js'), type: 'text/javascript; charset=utf-8' },
    'start.js': { body: new TextEncoder().encode(START), type: 'text/javascript; charset=utf-8' },
  };
  return files;
}

const pageRoute = createRoute({
  method: 'get',
  path: PREFIX,
  tags: ['service'],
  summary: 'Interactive API reference (Swagger UI) for this document; enter the control key under Authorize',
  responses: {
    200: {
      description: 'HTML, with a Content-Security-Policy header',
      content: { 'text/html': { schema: z.string() } },
    },
  },
});

const fileRoute = createRoute({
  method: 'get',
  path: `${PREFIX}/{file}`,
  tags: ['service'],
  summary: 'A script or stylesheet of the API reference page',
  request: { params: z.object({ file: z.enum(['swagger-ui.css', 'swagger-ui-bundle.js', 'start.js']) }) },
  responses: {
    200: { description: 'JavaScript or CSS', content: { 'text/javascript': { schema: z.string() } } },
    ...errors(400),
  },
});

export function apiReferenceRoutes() {
  const app = createRouter();
  app.use(`${PREFIX}/*`, compress());
  return app
    .openapi(pageRoute, (c) =>
      c.html(PAGE, 200, {
        'content-security-policy': CSP,
        'cache-control': 'no-cache',
        'referrer-policy': 'no-referrer',
      }),
    )
    .openapi(fileRoute, (c) => {
      const file = assets()[c.req.valid('param').file]!;
      return c.body(file.body, 200, { 'content-type': file.type, 'cache-control': 'no-cache' });
    });
}
