import { serveLocally } from '../../support/local-server';

/** One file served by a {@link StaticOrigin}. */
export interface StaticFile {
  contentType: string;
  body: string;
}

/** A local origin serving fixed files; every other path answers `fallback` (a page, so SPA URLs load too). */
export interface StaticOrigin {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  close(): Promise<void>;
}

export const js = (body: string): StaticFile => ({ contentType: 'text/javascript; charset=utf-8', body });
export const html = (body: string): StaticFile => ({ contentType: 'text/html; charset=utf-8', body });

/**
 * Serves `files` by path on 127.0.0.1 and a random port: a page origin of its own, cross-origin to the ingest server
 * as a real app is. `files` is read on every request, so a test can add files after start.
 */
export function startStaticOrigin(files: Record<string, StaticFile>, fallback: StaticFile): Promise<StaticOrigin> {
  return serveLocally((req, res) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (path === '/favicon.ico') {
      res.writeHead(204).end();
      return;
    }
    const file = files[path] ?? fallback;
    res.writeHead(200, { 'content-type': file.contentType, 'cache-control': 'no-store' });
    res.end(file.body);
  });
}
