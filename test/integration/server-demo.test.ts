import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, startServer } from '../../server/src/index';
import { appDocument, appRoutes } from '../support/app-routes';
import { startTestServer, type TestServer } from '../support/server';

// A stand-in for dist/cdn/svc.min.js: these tests are about the server, not the SDK (test/e2e/demo.spec.ts runs both).
const dir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
const sdkPath = join(dir, 'svc.min.js');
const SDK_TEXT = 'window.Svc = { fake: true };\n//# sourceMappingURL=svc.min.js.map\n';
const MAP_TEXT = '{"version":3,"sources":[],"mappings":""}';
writeFileSync(sdkPath, SDK_TEXT);
writeFileSync(`${sdkPath}.map`, MAP_TEXT);
const missing = join(dir, 'nope', 'svc.min.js');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const text = async (url: string, init?: RequestInit) => {
  const res = await fetch(url, init);
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    body: await res.text(),
    headers: res.headers,
  };
};

describe('demo page (server started with demoSdk)', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer('sqlite', { demoSdk: sdkPath });
  });
  afterAll(() => t.close());

  it('serves the page with the bootstrapped ingest key and app in the SDK script tag, without any key', async () => {
    const page = await text(`${t.url}/demo/`);
    expect(page.status).toBe(200);
    expect(page.type).toContain('text/html');
    expect(page.body).toContain(
      `<script src="/demo/svc.min.js" data-api-key="${t.ingestKey}" data-service-name="${t.appName}" data-ingest-url="" data-debug></script>`,
    );
    // Query API links point at this server; the control key is never in the page.
    expect(page.body).toContain(`${t.url}/control-plane/logs?app=${t.appName}`);
    expect(page.body).not.toContain(t.controlKey);
    for (const action of [
      'fetch-ok',
      'fetch-500',
      'fetch-fail',
      'xhr',
      'console-info',
      'console-warn',
      'console-error',
      'throw',
      'reject',
      'log',
      'metric',
      'push',
      'hash',
      'shift',
    ]) {
      expect(page.body).toContain(`data-action="${action}"`);
    }
  });

  it("redirects /demo to /demo/ so the page's relative links resolve", async () => {
    const res = await fetch(`${t.url}/demo`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!, t.url).pathname).toBe('/demo/');
  });

  it('serves the SDK file and its source map as they are on disk', async () => {
    const js = await text(`${t.url}/demo/svc.min.js`);
    expect(js).toMatchObject({ status: 200, body: SDK_TEXT });
    expect(js.type).toContain('javascript');
    const map = await text(`${t.url}/demo/svc.min.js.map`);
    expect(map).toMatchObject({ status: 200, body: MAP_TEXT });
  });

  it('echoes the headers it received, with the status asked for', async () => {
    const traceparent = `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`;
    const headers = { traceparent, 'x-svc-session-id': 'sess-123' };
    const ok = await fetch(`${t.url}/demo/api/echo?delay=20`, { headers });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ method: 'GET', path: '/demo/api/echo', query: { delay: '20' }, headers });

    const failed = await fetch(`${t.url}/demo/api/echo?status=500`, { headers });
    expect(failed.status).toBe(500);
    expect(((await failed.json()) as { headers: Record<string, string> }).headers.traceparent).toBe(traceparent);

    const posted = await fetch(`${t.url}/demo/api/echo`, {
      method: 'POST',
      body: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(await posted.json()).toMatchObject({ method: 'POST', bodyBytes: 5 });
  });

  it.each([
    ['status=abc', 'status must be an integer from 200 to 599'],
    ['status=700', 'status must be an integer from 200 to 599'],
    ['status=204', 'status 204 cannot carry'],
    ['delay=600000', 'delay must be an integer from 0 to 10000'],
  ])('rejects ?%s with a 400 naming the parameter', async (query, message) => {
    const res = await fetch(`${t.url}/demo/api/echo?${query}`);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string; details: { field: string } } };
    expect(body.error.message).toContain(message);
    expect(body.error.details.field).toBe(query.split('=')[0]);
  });

  it('takes an ingest key from ?api_key=, escaped', async () => {
    const page = await text(`${t.url}/demo/?api_key=${encodeURIComponent('k"><img src=x onerror=alert(1)>')}`);
    expect(page.body).toContain('data-api-key="k&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"');
    expect(page.body).not.toContain('<img');
  });

  it('documents its routes in /openapi.json', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/demo/', '/demo/svc.min.js', '/demo/api/echo']));
  });
});

describe('demo page keys', () => {
  it('HTML-escapes the key and app name it inserts', async () => {
    const t = await startTestServer('sqlite', {
      demoSdk: sdkPath,
      demoKeys: () => ({ ingestKey: `svc_ingest_"><script>alert(1)</script>`, appName: `shop & <co>'s "app"` }),
    });
    try {
      const { body } = await text(`${t.url}/demo/`);
      expect(body).toContain('data-api-key="svc_ingest_&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"');
      expect(body).toContain('data-service-name="shop &amp; &lt;co&gt;&#39;s &quot;app&quot;"');
      expect(body).not.toContain('<script>alert(1)');
      expect(body).not.toContain('<co>');
    } finally {
      await t.close();
    }
  });

  it('without a known ingest key, says how to create one and does not load the SDK', async () => {
    const t = await startTestServer('sqlite', { demoSdk: sdkPath, demoKeys: () => null });
    try {
      const { status, body } = await text(`${t.url}/demo/`);
      expect(status).toBe(200);
      expect(body).toContain('svc-server keys create --scope ingest');
      expect(body).not.toContain('src="/demo/svc.min.js"');
    } finally {
      await t.close();
    }
  });
});

describe('demo page off, or misconfigured', () => {
  it('is not served without demoSdk', async () => {
    const t = await startTestServer('sqlite');
    try {
      for (const path of ['/demo/', '/demo/svc.min.js', '/demo/api/echo']) {
        const res = await fetch(`${t.url}${path}`);
        expect(res.status, path).toBe(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
      }
      const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
      expect(Object.keys(doc.paths).filter((p) => p.startsWith('/demo'))).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('answers 404 for a source map that is not there', async () => {
    const bare = join(dir, 'bare');
    mkdirSync(bare);
    writeFileSync(join(bare, 'svc.min.js'), SDK_TEXT);
    const t = await startTestServer('sqlite', { demoSdk: join(bare, 'svc.min.js') });
    try {
      const res = await fetch(`${t.url}/demo/svc.min.js.map`);
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { message: string } }).error.message).toContain('npm run build:sdk');
    } finally {
      await t.close();
    }
  });

  it('refuses to start with a missing SDK file, naming it and how to build it', async () => {
    await expect(
      startServer({ port: 0, databaseUrl: ':memory:', log: () => undefined, demoSdk: missing }),
    ).rejects.toThrow(`no file at ${missing}; build it with \`npm run build:sdk\``);
    expect(() => loadConfig(['--demo-sdk', missing], {})).toThrow(`--demo-sdk: no file at ${missing}`);
    expect(() => loadConfig([], { SVC_DEMO_SDK: dir })).toThrow(`SVC_DEMO_SDK: ${dir} is not a file`);
    expect(loadConfig([], { SVC_DEMO_SDK: sdkPath }).demoSdk).toBe(sdkPath);
  });

  it('is not behind the ingest CORS and origin guard', async () => {
    const t = await startTestServer('sqlite', { demoSdk: sdkPath, corsOrigins: ['https://allowed.example'] });
    try {
      const headers = { origin: 'https://other.example' };
      const ingest = await fetch(`${t.url}/otlp/v1/traces`, { method: 'POST', headers });
      expect(ingest.status).toBe(403);
      const echo = await fetch(`${t.url}/demo/api/echo`, { method: 'POST', headers, body: '{}' });
      expect(echo.status).toBe(200);
      expect(echo.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await t.close();
    }
  });
});

describe('demo routes in the OpenAPI document', () => {
  it('describes exactly the routes the app registers with the demo on', () => {
    const routes = appRoutes({ demo: { sdkPath, keys: () => null } });
    const paths = appDocument({ demo: { sdkPath, keys: () => null } }).paths;
    const documented = new Set(Object.entries(paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`)));
    expect(documented).toEqual(routes);
    expect([...routes].filter((r) => r.includes('/demo'))).toHaveLength(8);
  });
});

describe('svc-server start --demo-sdk', () => {
  // The shipped bin (built by the global setup), as `npm start` runs it.
  const CLI = resolve(__dirname, '../../server/dist/cli.js');
  const databaseUrl = join(dir, 'cli', 'svc.db');

  it('prints the demo URL, whose page carries the ingest key of the banner', async () => {
    const child = spawn(process.execPath, [CLI, 'start', '--port', '0', '--demo-sdk', sdkPath], {
      env: { ...process.env, SVC_DATABASE_URL: databaseUrl },
    });
    try {
      const banner = await new Promise<string>((ok, fail) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('control key:')) ok(out);
        });
        child.once('exit', (code) => fail(new Error(`exited ${code}: ${out}`)));
      });
      const demoUrl = /demo:\s+(\S+)/.exec(banner)?.[1];
      const ingestKey = /ingest key:\s+(\S+)/.exec(banner)?.[1];
      expect(demoUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/demo\/$/);
      const page = await text(demoUrl!);
      expect(page.body).toContain(`data-api-key="${ingestKey}"`);
    } finally {
      await new Promise<void>((ok) =>
        child.exitCode !== null ? ok() : (child.once('exit', () => ok()), child.kill('SIGTERM')),
      );
    }
  });

  it('exits with code 2 and the reason when the SDK file is missing', () => {
    const res = spawnSync(process.execPath, [CLI, 'start', '--port', '0'], {
      encoding: 'utf8',
      env: { ...process.env, SVC_DATABASE_URL: databaseUrl, SVC_DEMO_SDK: missing },
    });
    expect(res.status).toBe(2);
    expect(res.stderr).toContain(`SVC_DEMO_SDK: no file at ${missing}; build it with \`npm run build:sdk\``);
  });
});
