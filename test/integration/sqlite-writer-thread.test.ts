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
          traceBody(
            Array.from({ length: 5 }, (_, j) => ({
              sessionId: `sess-${i % 4}`,
              spanId: (i * 10 + j + 1).toString(16).padStart(16, '0'),
            })),
          ),
        ),
      });
    const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => post(i).then((r) => r.status)));
    expect(statuses).toEqual(Array(40).fill(200));
    // Acknowledged means committed: readable at once through the server's own connection.
    const res = await fetch(`${server.url}/control-plane/sessions`, {
      headers: { authorization: `Bearer ${server.bootstrap!.controlKey.key}` },
    });
    const sessions = ((await res.json()) as { data: { counts: { spans: number } }[] }).data;
    expect(sessions.map((s) => s.counts.spans).sort()).toEqual([50, 50, 50, 50]);

    expect((await post(99)).status).toBe(200);
    await server.close();

    const reopened = openDatabase(databaseUrl);
    const { n } = await reopened.db
      .selectFrom('spans')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(n)).toBe(205);
    await reopened.close();
  });
});

describe('when the writer thread dies', () => {
  it('fails the writes waiting for it, logs once, and writes later requests on the main thread', async () => {
    const { migrateToLatest } = await import('../../server/src/db/migrate');
    const { bootstrapIfEmpty } = await import('../../server/src/projects/bootstrap');
    const { storeBatch } = await import('../../server/src/ingest/store');
    const { normalizeTraces } = await import('../../server/src/otlp/traces');
    const { sqliteThreadWriter } = await import('../../server/src/ingest/sqlite-thread-writer');
    const { sqliteWriter } = await import('../../server/src/ingest/sqlite-writer');
    const { openDatabase: openSource } = await import('../../server/src/db/connect');

    const handle = openSource(':memory:');
    await migrateToLatest(handle);
    const clock = { now: () => Date.now() };
    const projectId = (await bootstrapIfEmpty(handle.db, clock))!.projectId;
    const logs: string[] = [];
    // From the TypeScript sources the thread's module does not exist beside this one, so the thread fails at start:
    // the same path a thread crash takes.
    const writer = sqliteThreadWriter(
      join(dir, 'unused.db'),
      () => sqliteWriter(handle.db, handle.sqlite!),
      (l) => logs.push(l),
    );
    const ctx = { db: handle.db, writer, clock, log: (l: string) => logs.push(l) };
    const store = (name: string) => storeBatch(ctx, projectId, normalizeTraces(traceBody([{ name, sessionId: 's' }])));

    // Nothing was acknowledged: storage unavailable (the app's onError answers it 503 with Retry-After, which the
    // client sends again), and the cause in the server's log.
    await expect(store('lost-with-the-thread')).rejects.toMatchObject({
      kind: 'unavailable',
      code: 'storage_unavailable',
      retryAfterSeconds: 2,
    });
    expect(logs.filter((l) => l.includes('writer thread stopped'))).toHaveLength(2);
    expect(logs.filter((l) => l.startsWith('ingest writer thread stopped'))).toHaveLength(1);
    expect(writer.kind).toBe('sqlite, main thread');
    expect(await store('after')).toEqual({ stored: 1, duplicates: 0 });
    const names = (await handle.db.selectFrom('spans').select('name').execute()).map((r) => r.name);
    expect(names).toEqual(['after']);
    await writer.close();
    await handle.close();
  });
});
