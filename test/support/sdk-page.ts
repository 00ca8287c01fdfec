import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './build-sdk';
import { serveLocally } from './local-server';

/**
 * A local origin for browser tests of the SDK: `/` serves the HTML the test gives, `/svc.min.js` and
 * `/svc-recorder.min.js` the built script-tag files (dist/cdn; svc.min.js loads the recorder from beside itself when
 * replay starts), and `/api/echo` answers with the request headers it received as JSON (with permissive CORS, so
 * the same server can play a third-party API for a page on another origin). Every request's headers are recorded.
 */
export interface SdkPageServer {
  origin: string;
  /** Headers (lower-case names) of each `/api/echo` request, in arrival order. */
  echoed: Array<Record<string, string | string[] | undefined>>;
  setHtml(html: string): void;
  /** Serves `body` as JavaScript at `path` (e.g. a recorder file of another version), ahead of the built files. */
  setScript(path: string, body: string): void;
  close(): Promise<void>;
}

/** The script-tag files, served from dist/cdn under their own names. */
const CDN_FILES = new Set(['/svc.min.js', '/svc-recorder.min.js']);

export async function startSdkPage(html = '<!doctype html><title>svc</title><p>page</p>'): Promise<SdkPageServer> {
  let page = html;
  const echoed: SdkPageServer['echoed'] = [];
  const scripts = new Map<string, string>();
  const local = await serveLocally((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const script = scripts.get(path) ?? (CDN_FILES.has(path) ? readFileSync(join(ROOT, 'dist/cdn', path)) : undefined);
    if (script !== undefined) {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'no-store' });
      res.end(script);
      return;
    }
    if (path.startsWith('/api/echo')) {
      const cors = {
        'access-control-allow-origin': '*',
        'access-control-allow-headers': req.headers['access-control-request-headers'] ?? '*',
        'access-control-allow-methods': 'GET, POST, PUT, DELETE',
      };
      if (req.method === 'OPTIONS') {
        res.writeHead(204, cors).end();
        return;
      }
      echoed.push({ ...req.headers });
      const status = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status') ?? 200);
      req.resume();
      req.on('end', () => {
        res.writeHead(status, { ...cors, 'content-type': 'application/json' });
        res.end(JSON.stringify({ headers: req.headers }));
      });
      return;
    }
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(page);
  });
  return {
    origin: local.origin,
    echoed,
    setHtml: (next) => void (page = next),
    setScript: (path, body) => void scripts.set(path, body),
    close: local.close,
  };
}
