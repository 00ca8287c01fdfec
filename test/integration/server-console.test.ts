import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONSOLE_PATHS } from '../../server/src/console/routes';
import { startServerProcess, type ServerProcess } from '../support/server-process';

/**
 * The console's HTTP side on the built server (`svc-server start`; test/e2e/console/ drives the pages in Chromium):
 * `/` and every console path answer its page without a key under a strict CSP, its assets are cached for good and
 * compressed, old viewer links redirect, programs asking `/` for JSON get the links, and nothing else changed meaning.
 */

// What a browser sends when a person types the server's address.
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const directives = (csp: string) =>
  Object.fromEntries(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name, ...values]) => [name!, values]),
  );
const assetUrls = (html: string) => [...html.matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);

describe('the console on the built server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-console-'));
  // A stand-in for dist/cdn/svc.min.js: the demo page only has to exist for the index to link it.
  const sdkPath = join(dir, 'svc.min.js');
  writeFileSync(sdkPath, 'window.Svc = {};\n');
  let plain: ServerProcess;
  let withDemo: ServerProcess;

  beforeAll(async () => {
    [plain, withDemo] = await Promise.all([
      startServerProcess({ 'database-url': ':memory:' }),
      startServerProcess({ 'database-url': ':memory:', 'demo-sdk': sdkPath }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([plain?.stop(), withDemo?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a person at / with the console page: no key needed, own scripts only, no inline script', async () => {
    const res = await fetch(`${plain.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8$/i);
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('vary')).toMatch(/accept/i);
    const csp = directives(res.headers.get('content-security-policy') ?? '');
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['connect-src']).toEqual(["'self'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(csp['base-uri']).toEqual(["'none'"]);
    const html = await res.text();
    expect(html).toMatch(/<title>svc console<\/title>/);
    expect(html).not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/\son\w+=/i);
    expect(assetUrls(html).length).toBeGreaterThanOrEqual(2);
  });

  it('answers every console address with the same page, and leaves the signed pages and unknown paths alone', async () => {
    const index = await (await fetch(`${plain.url}/`)).text();
    for (const path of CONSOLE_PATHS) {
      const res = await fetch(`${plain.url}${path.replace('{id}', 'some-id')}?filter=x`);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toBe(index);
      expect(res.headers.get('content-security-policy'), path).toContain("script-src 'self'");
    }
    // The signed pages notifications link to keep their addresses (unsigned: refused, not the console).
    for (const path of ['/incidents/abc', '/issues/abc'])
      expect(await (await fetch(`${plain.url}${path}`)).text(), path).not.toBe(index);
    const res = await fetch(`${plain.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'no endpoint GET /nope' } });
  });

  it('serves its assets gzipped and cached for good, and 404 in the error shape for a name it does not have', async () => {
    const urls = assetUrls(await (await fetch(`${plain.url}/`)).text());
    for (const url of urls) {
      const res = await fetch(`${plain.url}${url}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toMatch(url.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      expect(res.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
      expect(res.headers.get('content-encoding'), url).toBe('gzip');
      expect(res.headers.get('x-content-type-options'), url).toBe('nosniff');
    }
    const missing = await fetch(`${plain.url}/console/assets/index-00000000.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it("redirects the old viewer addresses to the console, whose script keeps the link's fragment", async () => {
    for (const path of ['/viewer', '/viewer/']) {
      const res = await fetch(`${plain.url}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(302);
      expect(res.headers.get('location'), path).toBe('/');
    }
  });

  it('answers a program that asks / for JSON with the links, absolute; the demo only when served', async () => {
    for (const [server, demo] of [
      [plain, undefined],
      [withDemo, `${withDemo.url}/demo/`],
    ] as const) {
      const res = await fetch(`${server.url}/`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await res.json()) as { name: string; links: Record<string, string> };
      expect(body.links).toEqual({
        console: `${server.url}/`,
        ...(demo ? { demo } : {}),
        api_reference: `${server.url}/docs/api`,
        openapi: `${server.url}/openapi.json`,
        health: `${server.url}/healthz`,
        control_plane: `${server.url}/control-plane`,
        otlp: `${server.url}/otlp`,
      });
    }
    // A client that says nothing, or anything, gets the page.
    expect((await fetch(`${plain.url}/`, { headers: { accept: '*/*' } })).headers.get('content-type')).toMatch(
      /^text\/html/,
    );
  });

  it('gives no data away: the control plane behind it still wants a key', async () => {
    expect((await fetch(`${plain.url}/control-plane/sessions`)).status).toBe(401);
    expect((await fetch(`${plain.url}/control-plane/me`)).status).toBe(401);
  });
});
