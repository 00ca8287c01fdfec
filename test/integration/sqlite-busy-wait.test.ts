import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../server/src/db/connect';
import { migrateToLatest } from '../../server/src/db/migrate';
import { configureSqlite } from '../../server/src/db/sqlite-settings';

/**
 * The server's SQLite connection waits for another connection's write lock (the ingest writer thread's) on timers: the
 * event loop goes on serving while it waits, and the write goes through once the lock is free (db/sqlite-busy.ts).
 * With SQLite's busy handler the wait was a sleep on the event loop: nothing else ran until the lock came free or the
 * busy timeout ran out.
 */

const dir = mkdtempSync(join(tmpdir(), 'svc-busy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('waits for the write lock without stopping the event loop, then writes', async () => {
  const path = join(dir, 'svc.db');
  const handle = openDatabase(path);
  await migrateToLatest(handle);
  // Another connection, as the writer thread is, holding the write lock.
  const other = configureSqlite(new SQLite(path));
  other.prepare('begin immediate').run();

  const write = handle.db
    .insertInto('tenants')
    .values({ id: 't-busy', name: 'busy', created_ms: 1, sso_policy: null })
    .execute();
  let settled = false;
  void write.finally(() => (settled = true));
  // The loop runs on: later turns of it come while the write waits, and the lock's holder commits from one.
  for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
  expect(settled).toBe(false);
  other.prepare('commit').run();
  await write;

  const row = await handle.db.selectFrom('tenants').select('name').where('id', '=', 't-busy').executeTakeFirst();
  expect(row?.name).toBe('busy');
  other.close();
  await handle.close();
});
