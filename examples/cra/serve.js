// Serves the production build (`npm run build`) like a static host would, plus `/api/echo`, a stand-in for the app's
// backend that answers with the request headers it received (to show the `traceparent` and `x-svc-session-id`
// headers the SDK adds to same-origin requests). Usage: PORT=3000 node serve.js
const http = require('node:http');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, 'build');
const types = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.map': 'application/json', '.ico': 'image/x-icon' };

function sendFile(res, file) {
  res.writeHead(200, { 'content-type': types[path.extname(file)] ?? 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url, 'http://localhost');
  if (url.pathname === '/api/echo') {
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers }));
    return;
  }
  const file = path.join(root, path.normalize(decodeURIComponent(url.pathname)));
  if (file.startsWith(root + path.sep) && fs.statSync(file, { throwIfNoEntry: false })?.isFile()) return sendFile(res, file);
  // A single-page app: every other path is the app's own route.
  sendFile(res, path.join(root, 'index.html'));
});

const port = Number(process.env.PORT ?? 3000);
server.listen(port, '127.0.0.1', () => console.log(`serving build/ on http://127.0.0.1:${port}`));
