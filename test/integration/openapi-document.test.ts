import { validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer('sqlite');
});
afterAll(() => t.close());

describe('the generated OpenAPI document', () => {
  it("is valid OpenAPI 3.1 (checked against the specification's schema)", async () => {
    const res = await fetch(`${t.url}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; servers: { url: string }[] };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers[0]!.url).toBe(t.url);
    const result = await validate(structuredClone(doc) as never);
    const errors = result.valid ? [] : result.errors;
    expect(errors, JSON.stringify(errors.slice(0, 5), null, 1)).toEqual([]);
  });

  it('is checked by a validator that does refuse a broken document', async () => {
    const broken = {
      openapi: '3.1.0',
      info: { title: 'no version' },
      paths: { '/x': { get: { responses: { 200: { content: 'none' } } } } },
    };
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it('describes every 400 with the one error shape and an example', async () => {
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { responses: Record<string, { content?: Record<string, { schema: unknown; example?: unknown }> }> }
        >
      >;
    };
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const bad = op.responses['400']?.content?.['application/json'];
        if (!bad) continue;
        expect(bad.schema, `${method} ${path}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  });
});

describe('examples', () => {
  it('come with every request body (binary uploads aside) and every JSON error answer', async () => {
    type Content = Record<string, { schema: { format?: string }; example?: unknown }>;
    type Operation = { requestBody?: { content: Content }; responses: Record<string, { content?: Content }> };
    const doc = (await (await fetch(`${t.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
          if (media.schema.format !== 'binary' && media.example === undefined)
            missing.push(`${method} ${path} body ${type}`);
        }
        for (const [status, answer] of Object.entries(op.responses)) {
          // JSON errors carry the one error shape with an example; the keyless pages answer with an HTML page.
          const json = answer.content?.['application/json'];
          if (Number(status) >= 400 && (answer.content === undefined || (json && json.example === undefined)))
            missing.push(`${method} ${path} ${status}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the API reference at /docs/api', () => {
  it('is served from this origin only, under a CSP that forbids other origins', async () => {
    const res = await fetch(`${t.url}/docs/api`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    // data: URLs (the empty icon) load nothing.
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)]
      .map((m) => m[1]!)
      .filter((url) => !url.startsWith('data:'));
    expect(urls.length).toBeGreaterThan(1);
    for (const url of urls) {
      expect(url.startsWith('/docs/api/'), url).toBe(true);
      const asset = await fetch(`${t.url}${url}`);
      expect(asset.status, url).toBe(200);
      await asset.arrayBuffer();
    }
    const start = await (await fetch(`${t.url}/docs/api/start.js`)).text();
    expect(start).toContain("url: '/openapi.json'");
    expect(start).toContain('persistAuthorization: false');
  });
});
