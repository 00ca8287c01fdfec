import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The console as `npm run build -w @svc/server` builds it (server/console/vite.config.ts), into a directory of its
 * own: the JavaScript a browser must load before the first page shows stays within the budget, the replay
 * player is not part of it, and the page has no inline script for the CSP to allow.
 */

const CONFIG = fileURLToPath(new URL('../../server/console/vite.config.ts', import.meta.url));
/** Issue 20: the console's initial JavaScript, min+gzip. */
const INITIAL_JS_BUDGET = 200_000;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

let out: string;
let manifest: Record<string, ManifestChunk>;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'svc-console-build-'));
  await build({ configFile: CONFIG, logLevel: 'warn', build: { outDir: out, emptyOutDir: true } });
  manifest = JSON.parse(readFileSync(join(out, '.vite', 'manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
}, 120_000);
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The entry chunk and every chunk it imports statically, transitively: what loads before any page code runs. */
function initialChunks(): string[] {
  const entry = Object.keys(manifest).find((key) => manifest[key]!.isEntry);
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const next of manifest[key]!.imports ?? []) visit(next);
  };
  visit(entry!);
  return [...seen].map((key) => manifest[key]!.file);
}

const gzipSize = (file: string) => gzipSync(readFileSync(join(out, file)), { level: 9 }).length;

describe('console build', () => {
  it(`loads at most ${INITIAL_JS_BUDGET} bytes of JavaScript (min+gzip) before the first page`, () => {
    const files = initialChunks();
    const total = files.reduce((sum, file) => sum + gzipSize(file), 0);
    expect(files.length).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(INITIAL_JS_BUDGET);
  });

  it('keeps the replay player out of the initial JavaScript', () => {
    for (const file of initialChunks()) expect(readFileSync(join(out, file), 'utf8')).not.toContain('rrweb-player');
  });

  it('has no inline script: every script of the page is a file under /console/assets/', () => {
    const html = readFileSync(join(out, 'index.html'), 'utf8');
    const scripts = html.match(/<script\b[^>]*>[\s\S]*?<\/script>/g) ?? [];
    expect(scripts.length).toBeGreaterThan(0);
    for (const script of scripts)
      expect(script).toMatch(/^<script type="module" crossorigin src="\/console\/assets\/[^"]+\.js"><\/script>$/);
  });
});
