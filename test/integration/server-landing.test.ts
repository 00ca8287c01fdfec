import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../support/server-process';

// What a browser sends when a person types the server's address.
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

const VOID = new Set(['meta', 'link', 'br', 'img', 'input', 'hr']);

/** Every element closed in order: the page is well-formed, so any parser reads the one document it means. */
function unbalancedTags(html: string): string[] {
  const stack: string[] = [];
  const problems: string[] = [];
  for (const [, closing, name] of html.matchAll(/<(\/?)([a-z][a-z0-9]*)\b[^>]*>/gi)) {
    const tag = name!.toLowerCase();
    if (VOID.has(tag)) continue;
    if (!closing) stack.push(tag);
    else if (stack.pop() !== tag) problems.push(`</${tag}> closes the wrong element`);
  }
  return [...problems, ...stack.map((tag) => `<${tag}> is never closed`)];
}

const links = (html: string) => [...html.matchAll(/<a\s+href="([^"]+)"[^>]*>([^<]*)<\/a>/g)].map(([, href, text]) => ({ href: href!, text: text! }));

describe('GET / on the built server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-landing-'));
  // A stand-in for dist/cdn/svc.min.js: the demo page only has to exist for the landing page to link it.
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

  const page = async (server: ServerProcess) => {
    const res = await fetch(`${server.url}/`, { headers: { accept: BROWSER_ACCEPT } });
    return { res, html: await res.text() };
  };

  it('shows a person a small, accessible HTML page under a strict policy', async () => {
    const { res, html } = await page(plain);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html; charset=utf-8$/i);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('vary')).toMatch(/accept/i);

    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
    expect(unbalancedTags(html)).toEqual([]);
    expect(html).toMatch(/<meta charset="utf-8">/);
    expect(html).toMatch(/<title>svc reference server<\/title>/);
    expect(html.match(/<h1>/g)).toHaveLength(1);
    expect(html.match(/<h2>/g)!.length).toBeGreaterThanOrEqual(2);
    expect(html).not.toMatch(/<script|\son\w+=/i);

    // Nothing may run, nothing may load but the page's own style, which is allowed by its hash alone.
    const csp = res.headers.get('content-security-policy')!;
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1]!;
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ]);
  });

  it('links the viewer, the OpenAPI document and the health check with text, and names the docs; every link answers', async () => {
    const { html } = await page(plain);
    const found = links(html);
    expect(found.map((l) => l.href)).toEqual(['/viewer/', '/docs/api', '/openapi.json', '/healthz']);
    for (const { href, text } of found) {
      expect(text.trim().length, href).toBeGreaterThan(3);
      expect((await fetch(new URL(href, plain.url))).status, href).toBe(200);
    }
    expect(html).not.toContain('/demo/');
    for (const doc of ['docs/server.md', 'docs/ingest.md', 'docs/query-api.md', 'docs/viewer.md', 'docs/sdk.md']) expect(html).toContain(doc);
  });

  it('links the demo page when the server serves it', async () => {
    const { html } = await page(withDemo);
    const demo = links(html).find((l) => l.href === '/demo/');
    expect(demo?.text).toBe('SDK demo page');
    expect((await fetch(`${withDemo.url}/demo/`)).status).toBe(200);
  });

  it('answers a program that asks for JSON with the same links, absolute', async () => {
    for (const [server, demo] of [
      [plain, undefined],
      [withDemo, `${withDemo.url}/demo/`],
    ] as const) {
      const res = await fetch(`${server.url}/`, { headers: { accept: 'application/json' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const body = (await res.json()) as { name: string; links: Record<string, string> };
      expect(body.links).toEqual({
        viewer: `${server.url}/viewer/`,
        ...(demo ? { demo } : {}),
        api_reference: `${server.url}/docs/api`,
        openapi: `${server.url}/openapi.json`,
        health: `${server.url}/healthz`,
        control_plane: `${server.url}/control-plane`,
        otlp: `${server.url}/otlp`,
      });
    }
    // A client that says nothing, or anything, gets the page.
    expect((await fetch(`${plain.url}/`, { headers: { accept: '*/*' } })).headers.get('content-type')).toMatch(/^text\/html/);
  });

  it('still answers other unknown paths with the JSON error', async () => {
    const res = await fetch(`${plain.url}/nope`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: { code: 'not_found', message: 'no endpoint GET /nope' } });
  });
});
