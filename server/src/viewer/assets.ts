import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One file the viewer page loads, held in memory and served under a name that changes with its content. */
export interface ViewerAsset {
  /** e.g. `viewer.3f2a9c1b07de.js`: cacheable for ever, since new content gets a new name. */
  name: string;
  contentType: string;
  body: Uint8Array<ArrayBuffer>;
}

/** The files of the viewer page, by role. */
export interface ViewerAssets {
  playerScript: ViewerAsset;
  playerStyle: ViewerAsset;
  pageScript: ViewerAsset;
  pageStyle: ViewerAsset;
}

/**
 * The page's own script and style. In the source tree they sit in `viewer-assets/` beside this module; the server build
 * bundles this module into `dist/` and copies the folder to `dist/viewer-assets/` (tsup.config.ts), so the same
 * relative URL finds them in both.
 */
const PAGE_FILES = new URL('./viewer-assets/', import.meta.url);

const CONTENT_TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

function asset(path: string, base: string, ext: keyof typeof CONTENT_TYPES): ViewerAsset {
  let body: Buffer;
  try {
    body = readFileSync(path);
  } catch (err) {
    throw new Error(`replay viewer: cannot read ${path} (${(err as Error).message}); rebuild the server with \`npm run build -w @svc/server\``);
  }
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { name: `${base}.${hash}.${ext}`, contentType: CONTENT_TYPES[ext], body: new Uint8Array(body) };
}

/**
 * rrweb-player comes from the installed package, never a CDN: its minified UMD build (which defines the global
 * `rrwebPlayer`) and its stylesheet. Only `./dist/style.css` is exported, so the script is found beside it.
 */
function playerAssets(): Pick<ViewerAssets, 'playerScript' | 'playerStyle'> {
  const style = createRequire(import.meta.url).resolve('rrweb-player/dist/style.css');
  return {
    playerScript: asset(join(dirname(style), 'rrweb-player.umd.min.cjs'), 'rrweb-player', 'js'),
    playerStyle: asset(join(dirname(style), 'style.min.css'), 'rrweb-player', 'css'),
  };
}

let loaded: ViewerAssets | undefined;

/** Reads the viewer's files once per process (a few hundred KB), failing at start-up if one is missing. */
export function viewerAssets(): ViewerAssets {
  loaded ??= {
    ...playerAssets(),
    pageScript: asset(fileURLToPath(new URL('viewer.js', PAGE_FILES)), 'viewer', 'js'),
    pageStyle: asset(fileURLToPath(new URL('viewer.css', PAGE_FILES)), 'viewer', 'css'),
  };
  return loaded;
}
