import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ResolvedOptions } from './config';

const SDK_FILE = 'svc.min.js';
const RECORDER_FILE = 'svc-recorder.min.js';

/** The installed `@svc/browser`'s script-tag files (dist/cdn), found through its package.json. */
async function installedFiles(): Promise<[sdk: string, recorder: string]> {
  let cdn: string;
  try {
    cdn = join(dirname(createRequire(import.meta.url).resolve('@svc/browser/package.json')), 'dist', 'cdn');
  } catch {
    throw new Error(
      'svc: `inject: true` adds the script-tag SDK of @svc/browser, which is not installed: npm install -D @svc/browser, or give inject the address of an svc.min.js',
    );
  }
  return Promise.all([readFile(join(cdn, SDK_FILE), 'utf8'), readFile(join(cdn, RECORDER_FILE), 'utf8')]);
}

async function download(url: string): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`svc: GET ${url} (inject) answered ${res.status}`);
  return res.text();
}

/** An `svc.min.js` at `url`, with the recorder beside it (without it, replay does not start; the rest works). */
async function downloadedFiles(url: string): Promise<[sdk: string, recorder: string]> {
  const recorder = download(new URL(RECORDER_FILE, url).href).catch(() => '');
  return [await download(url), await recorder];
}

/**
 * The init script that starts the SDK in a page: both files inline (the recorder registers itself, so the SDK never
 * has to find its address), then `Svc.init` with the ingest key and URL. Top frame only, as an app's iframes are not
 * the app; http(s) documents only, as a page's first about:blank would start a session of its own. The handoff (`__SVC_TEST__`) is set by an earlier init script, so the SDK sees it at init.
 */
export function injectScript(
  sdk: string,
  recorder: string,
  o: Pick<ResolvedOptions, 'url' | 'ingestKey' | 'serviceName'>,
): string {
  const config = JSON.stringify({ apiKey: o.ingestKey, ingestUrl: o.url, serviceName: o.serviceName }).replace(
    /</g,
    '\\u003c',
  );
  // Line breaks around the files: each may end in a `//# sourceMappingURL` comment.
  return `if (window.top === window && /^https?:$/.test(location.protocol) && !window.Svc) {\n${sdk}\n;\n${recorder}\n;\nSvc.init(${config});\n}`;
}

let cached: { key: string; script: Promise<string> } | undefined;

/** The inject script for these options, read (or downloaded) once per worker process. */
export function loadInjectScript(o: ResolvedOptions): Promise<string> {
  if (!o.url || !o.ingestKey) {
    return Promise.reject(
      new Error(
        'svc: `inject` needs the server URL and an ingest key: set use.svc.url and use.svc.ingestKey, or SVC_URL and SVC_INGEST_KEY',
      ),
    );
  }
  const key = JSON.stringify([o.inject, o.url, o.ingestKey, o.serviceName]);
  if (cached?.key !== key) {
    const files = typeof o.inject === 'string' ? downloadedFiles(o.inject) : installedFiles();
    cached = { key, script: files.then(([sdk, recorder]) => injectScript(sdk, recorder, o)) };
  }
  return cached.script;
}
