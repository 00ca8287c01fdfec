import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file of the built console: Vite names every asset after its content, so browsers may keep it for good. */
export interface ConsoleFile {
  contentType: string;
  body: Uint8Array<ArrayBuffer>;
}

/** The console as the server serves it: its page, and its assets by file name; `missing` when it was never built. */
export type ConsoleBuild =
  | { built: true; html: string; assets: Map<string, ConsoleFile> }
  | { built: false; reason: string };

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
};

/**
 * Where `vite build` put the console (server/console/vite.config.ts → server/dist/console/): beside the bundled
 * server in dist/, or two levels up from this module when the server runs from source (tests, tsx).
 */
const CANDIDATES = [new URL('./console/', import.meta.url), new URL('../../dist/console/', import.meta.url)];

let loaded: ConsoleBuild | undefined;

/** Reads the built console once per process (a few hundred KB). */
export function consoleBuild(): ConsoleBuild {
  loaded ??= readBuild();
  return loaded;
}

function readBuild(): ConsoleBuild {
  const dir = CANDIDATES.map((u) => fileURLToPath(u)).find((d) => existsSync(join(d, 'index.html')));
  if (!dir) return { built: false, reason: 'the console is not built: run `npm run build -w @svc/server`' };
  const assets = new Map<string, ConsoleFile>();
  const assetDir = join(dir, 'assets');
  for (const name of existsSync(assetDir) ? readdirSync(assetDir) : []) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType) assets.set(name, { contentType, body: new Uint8Array(readFileSync(join(assetDir, name))) });
  }
  return { built: true, html: readFileSync(join(dir, 'index.html'), 'utf8'), assets };
}
