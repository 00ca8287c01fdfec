import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type DatabaseHandle } from '../../server/src/db/connect';
import { afterCommit, inOneTransaction } from '../../server/src/db/request-transaction';
import { createTempDatabase, databaseKinds, type TempDatabase } from '../support/databases';

/** A table of our own, outside the schema, so each case reads exactly what it wrote. */
interface Notes {
  notes: { id: number; text: string };
}

const kinds = await databaseKinds();

/**
 * db/request-transaction.ts on both engines: one transaction per change (commit, rollback on `false` or a throw),
 * store transactions nested as savepoints, work after the commit only, and on SQLite no lock before the first write.
 */
describe.each(kinds)('request transactions on %s', (kind) => {
  let handle: DatabaseHandle;
  let temp: TempDatabase | undefined;
  let folder: string | undefined;
  let db: Kysely<Notes>;
  let next = 0;
  const add = (text: string, on: Kysely<Notes> = db) => on.insertInto('notes').values({ id: ++next, text }).execute();
  const texts = async () => (await db.selectFrom('notes').select('text').orderBy('id').execute()).map((r) => r.text);

  beforeAll(async () => {
    if (kind === 'postgres') temp = await createTempDatabase('postgres');
    else folder = mkdtempSync(join(tmpdir(), 'svc-request-tx-'));
    handle = openDatabase(temp?.url ?? join(folder!, 'svc.db'));
    db = handle.db as unknown as Kysely<Notes>;
    await sql`create table notes (id integer primary key, text text not null)`.execute(db);
  });
  afterAll(async () => {
    await handle.close();
    await temp?.drop();
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  it('commits every write of the scope together when the work says so', async () => {
    await inOneTransaction(async () => {
      await add('a');
      await add('b');
      return true;
    });
    expect(await texts()).toEqual(['a', 'b']);
  });

  it('rolls every write back when the work says no, or throws', async () => {
    const before = await texts();
    await inOneTransaction(async () => {
      await add('refused');
      return false;
    });
    await expect(
      inOneTransaction(async () => {
        await add('failed');
        throw new Error('the route failed');
      }),
    ).rejects.toThrow('the route failed');
    expect(await texts()).toEqual(before);
  });

  it("nests a store's own transaction as a savepoint: its rollback undoes only its part", async () => {
    await inOneTransaction(async () => {
      await add('outer');
      await db
        .transaction()
        .execute(async (tx) => {
          await add('inner, undone', tx);
          throw new Error('conflict');
        })
        .catch(() => undefined);
      await db.transaction().execute((tx) => add('inner, kept', tx));
      return true;
    });
    expect(await texts()).toEqual(expect.arrayContaining(['outer', 'inner, kept']));
    expect(await texts()).not.toContain('inner, undone');
  });

  it('starts work queued with afterCommit once committed, and never after a rollback', async () => {
    const seen: string[][] = [];
    let ran!: () => void;
    const done = new Promise<void>((resolve) => (ran = resolve));
    await inOneTransaction(async () => {
      await add('queued');
      afterCommit(() => void texts().then((t) => (seen.push(t), ran())));
      return true;
    });
    await done;
    expect(seen[0]).toContain('queued');
    let rolledBack = false;
    await inOneTransaction(async () => {
      afterCommit(() => (rolledBack = true));
      return false;
    });
    expect(rolledBack).toBe(false);
  });

  it.runIf(kind === 'sqlite')('takes the write lock at the first write, not at the first read', async () => {
    const other = new SQLite(handle.displayUrl);
    other.pragma('busy_timeout = 0');
    try {
      await inOneTransaction(async () => {
        await db.selectFrom('notes').select('id').execute();
        // Another connection (ingest's writer thread) still writes while this change has only read.
        other.prepare('insert into notes (id, text) values (?, ?)').run(++next, 'ingest, meanwhile');
        await add('the change');
        expect(() => other.prepare('insert into notes (id, text) values (?, ?)').run(++next, 'blocked')).toThrow(
          /locked|busy/i,
        );
        return true;
      });
    } finally {
      other.close();
    }
    expect(await texts()).toEqual(expect.arrayContaining(['ingest, meanwhile', 'the change']));
    expect(await texts()).not.toContain('blocked');
  });
});
