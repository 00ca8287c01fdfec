import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

/**
 * The replay viewer's HTTP side (test/e2e/viewer.spec.ts plays sessions in it): the page and its files are served
 * keyless, from the installed rrweb-player rather than a CDN, with a strict Content-Security-Policy on the page and
 * content-hashed, long-cached asset names; the built server carries the page's files too.
 */

const PLAYER_DIST = dirname(createRequire(import.meta.url).resolve('rrweb-player/dist/style.css'));

/** The `/viewer/assets/...` URLs the page loads, in document order. */
const assetUrls = (html: string) => [...html.matchAll(/(?:href|src)="(\/viewer\/assets\/[^"]+)"/g)].map((m) => m[1]!);

/** The page's CSP as a map of directive to its sources. */
function directives(policy: string): Record<string, string[]> {
  return Object.fromEntries(policy.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...sources]) => [name!, sources]));
}

describe('replay viewer page', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('sqlite');
  });
  afterAll(() => t.close());

  it('serves the page without a key, under a CSP that runs only its own scripts', async () => {
    const redirect = await fetch(`${t.url}/viewer`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('location')).toBe('/viewer/');

    const res = await fetch(`${t.url}/viewer/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const csp = directives(res.headers.get('content-security-policy') ?? '');
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['connect-src']).toEqual(["'self'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(csp['object-src'] ?? csp['default-src']).toEqual(["'none'"]);

    const html = await res.text();
    // Nothing from another origin: no CDN, no inline script.
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(assetUrls(html)).toHaveLength(4);
  });

  it('serves rrweb-player from the installed package and the page files, gzipped and cached for good', async () => {
    const html = await (await fetch(`${t.url}/viewer/`)).text();
    const urls = assetUrls(html);
    const player = urls.find((u) => /\/rrweb-player\.[0-9a-f]{12}\.js$/.test(u));
    expect(player, urls.join(', ')).toBeDefined();
    for (const url of urls) {
      const res = await fetch(`${t.url}${url}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toMatch(url.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      expect(res.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-encoding'), url).toBe('gzip');
      const body = Buffer.from(await res.arrayBuffer());
      if (url === player) expect(body.equals(readFileSync(join(PLAYER_DIST, 'rrweb-player.umd.min.cjs')))).toBe(true);
    }
  });

  it('answers 404 in the error shape for a file it does not have', async () => {
    const res = await fetch(`${t.url}/viewer/assets/viewer.000000000000.js`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'not_found' });
  });

  it('gives no data away: the API behind it still wants the control key', async () => {
    expect((await fetch(`${t.url}/control-plane/sessions`)).status).toBe(401);
  });
});

describe('replay viewer of the built server', () => {
  // The bin the global setup built (test/support/build-server.ts), as `npm start` runs it.
  const CLI = resolve(__dirname, '../../server/dist/cli.js');
  const dir = mkdtempSync(join(tmpdir(), 'svc-viewer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints the viewer URL with the control key in its fragment, and serves the page files the build copied', async () => {
    const child = spawn(process.execPath, [CLI, 'start', '--port', '0'], { env: { ...process.env, SVC_DATABASE_URL: join(dir, 'svc.db') } });
    try {
      let out = '';
      const banner = await new Promise<string>((ok, fail) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('control key:')) ok(out);
        });
        child.once('exit', (code) => fail(new Error(`svc-server exited with ${code}: ${out}`)));
      });
      const controlKey = /control key:\s+(\S+)/.exec(banner)![1]!;
      const viewer = new URL(/viewer:\s+(\S+)/.exec(banner)![1]!);
      expect(viewer.pathname).toBe('/viewer/');
      expect(new URLSearchParams(viewer.hash.slice(1)).get('key')).toBe(controlKey);

      const html = await (await fetch(viewer)).text();
      for (const url of assetUrls(html)) expect((await fetch(new URL(url, viewer))).status, url).toBe(200);
    } finally {
      const exited = new Promise((ok) => child.once('exit', ok));
      if (child.kill('SIGTERM')) await exited;
    }
  });
});
