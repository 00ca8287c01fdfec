import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type * as ServerModule from '../../server/src/index';
import { traceBody } from '../support/otlp';

// The built server (test/support/build-server.ts): only the build carries the writer thread's module.
const { startServer, openDatabase } = (await import('../../server/dist/index.js' as string)) as typeof ServerModule;
const dir = mkdtempSync(join(tmpdir(), 'svc-writer-thread-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite ingest on the writer thread', () => {
  it('acknowledges concurrent requests once committed; all are stored and survive a restart', async () => {
    const databaseUrl = join(dir, 'svc.db');
    const server = await startServer({ port: 0, databaseUrl, log: () => undefined });
    expect(server.ingestWriter).toBe('sqlite, writer thread');
    const key = server.bootstrap!.ingestKey.key;
    const post = (i: number) =>
      fetch(`${server.url}/otlp/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify(
          traceBody(Array.from({ length: 5 }, (_, j) => ({ sessionId: `sess-${i % 4}`, spanId: (i * 10 + j + 1).toString(16).padStart(16, '0') }))),
        ),
      });
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i).then((r) => r.status)));
    expect(statuses).toEqual(Array(40).fill(200));
    // Acknowledged means committed: readable at once through the server's own connection.
    const res = await fetch(`${server.url}/control-plane/sessions`, { headers: { authorization: `Bearer ${server.bootstrap!.controlKey.key}` } });
    const sessions = ((await res.json()) as { data: { counts: { spans: number } }[] }).data;
    expect(sessions.map((s) => s.counts.spans).sort()).toEqual([50, 50, 50, 50]);

    expect((await post(99)).status).toBe(200);
    await server.close();

    const reopened = openDatabase(databaseUrl);
    const { n } = await reopened.db.selectFrom('spans').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(n)).toBe(205);
    await reopened.close();
  });
});
