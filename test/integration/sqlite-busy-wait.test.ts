import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, expect, it } from 'vitest';
import { openDatabase } from '../../server/src/db/connect';
import { LONGEST_TURN_MS } from '../../server/src/db/event-loop-turn';
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

it('lets the event loop turn during a long chain of statements outside a transaction, and not inside one', async () => {
  const handle = openDatabase(join(dir, 'chain.db'));
  await migrateToLatest(handle);
  // Each statement is synchronous and its promise already settled: a chain of them is one turn of the loop unless
  // the connection gives it back (db/event-loop-turn.ts). Statements of about a millisecond, for over 100 ms.
  const statement = sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000) select count(*) from n`;
  const turnsDuring = async (chain: () => Promise<void>) => {
    let turns = 0;
    let chained = true;
    const count = () => {
      turns += 1;
      if (chained) setImmediate(count);
    };
    setImmediate(count);
    await chain();
    chained = false;
    return turns;
  };
  const startedMs = performance.now();
  const outside = await turnsDuring(async () => {
    while (performance.now() - startedMs < 10 * LONGEST_TURN_MS) await statement.execute(handle.db);
  });
  expect(outside).toBeGreaterThan(1);
  const inside = await turnsDuring(() =>
    handle.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 50; i++) await statement.execute(trx);
    }),
  );
  // The transaction holds the write lock the ingest writer waits for: it runs through.
  expect(inside).toBeLessThanOrEqual(1);
  await handle.close();
});
