// Serves index.html with the SDK settings filled in from the environment, the SDK's script-tag build from the
// installed package (svc.min.js, and svc-recorder.min.js, which svc.min.js loads from beside itself once session
// replay starts), and `/api/echo`, a stand-in for the site's backend that answers with the request headers it
// received (to show the `traceparent` and `x-svc-session-id` headers the SDK adds to same-origin requests), and the
// page's own scripts that `npm run build` wrote to dist/, under /assets/ (their source maps are not served).
// Usage: SVC_API_KEY=... SVC_INGEST_URL=http://127.0.0.1:4318 PORT=8080 node server.js
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const cdnDir = path.join(path.dirname(require.resolve('@svc/browser/package.json')), 'dist', 'cdn');
const cdnFiles = new Set(['/svc.min.js', '/svc.min.js.map', '/svc-recorder.min.js', '/svc-recorder.min.js.map']);
const assetsDir = path.join(__dirname, 'dist');
const settings = {
  SVC_API_KEY: process.env.SVC_API_KEY ?? '',
  SVC_SERVICE_NAME: process.env.SVC_SERVICE_NAME ?? 'web-app',
  SVC_INGEST_URL: process.env.SVC_INGEST_URL ?? 'http://127.0.0.1:4318',
  SVC_ENV: process.env.SVC_ENV ?? 'production',
};
const escapeAttribute = (value) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const page = fs
  .readFileSync(path.join(__dirname, 'index.html'), 'utf8')
  .replace(/%(SVC_[A-Z_]+)%/g, (placeholder, name) => (name in settings ? escapeAttribute(settings[name]) : placeholder));

/** A built script, or 404 when `npm run build` has not made it. */
function sendAsset(res, file) {
  if (!fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return res.writeHead(404).end();
  res.writeHead(200, { 'content-type': 'text/javascript' });
  fs.createReadStream(file).pipe(res);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname === '/api/echo') {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
  } else if (cdnFiles.has(url.pathname)) {
    const type = url.pathname.endsWith('.js') ? 'text/javascript' : 'application/json';
    res.writeHead(200, { 'content-type': type });
    fs.createReadStream(path.join(cdnDir, url.pathname.slice(1))).pipe(res);
  } else if (url.pathname.startsWith('/assets/') && url.pathname.endsWith('.js')) {
    sendAsset(res, path.join(assetsDir, path.basename(url.pathname)));
  } else if (url.pathname === '/favicon.ico') {
    res.writeHead(204).end();
  } else {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(page);
  }
});

const port = Number(process.env.PORT ?? 8080);
server.listen(port, '127.0.0.1', () => console.log(`serving on http://127.0.0.1:${port}`));
