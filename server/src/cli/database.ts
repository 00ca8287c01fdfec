import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { openDatabase, sqlitePathOf, type DatabaseHandle } from '../db/connect';
import { locateDatabase, type DatabaseLocation } from '../db/location';
import { migrateToLatest } from '../db/migrate';
import { attachReplayStorage } from '../replay/attach';
import { replayStorageFromEnv } from '../replay/storage-settings';
import { UsageError } from './resolve';

const POINT_AT_IT =
  'or, if the server runs on another database, name that with --database-url or SVC_DATABASE_URL (the path `svc-server start` prints after "database:").';

/** How the database was chosen, for the line naming it and for errors. */
function chosenBy(location: DatabaseLocation, cwd: string): string {
  if (location.source === 'found') return `the nearest .svc-data to ${cwd}`;
  if (location.source === 'default') return `there is no .svc-data/svc.db in ${cwd} or a folder above it`;
  return location.source;
}

/**
 * The server's database, for an administration command: these read or change what a server made, so they never make a
 * database. A SQLite file that does not exist, or a database no server has started on (no tenant: `svc-server start`
 * makes the default one on its first start), is a usage error naming it, how it was chosen and how to name the right
 * one. `note` is told which database is used before anything else (the CLI prints it on stderr).
 */
export async function openServerDatabase(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
  cwd: string,
  note: (line: string) => void,
): Promise<DatabaseHandle> {
  const replayStorage = replayStorageSettings(env);
  const location = locateDatabase(flag, env, cwd);
  const how = chosenBy(location, cwd);
  const file = sqlitePathOf(location.url);
  const shown = file === null || file === ':memory:' ? null : resolve(cwd, file);
  const notStarted = (name: string) =>
    new UsageError(
      `${name} holds no svc data: no server has started on it (\`svc-server start\` sets it up on its first start).\nStart the server on it, ${POINT_AT_IT}`,
    );
  if (shown !== null) {
    if (!existsSync(shown)) {
      throw new UsageError(
        `no database at ${shown} (${how}).\nStart the server first (\`npm start\` in the svc checkout, or \`svc-server start\`), ${POINT_AT_IT}`,
      );
    }
    note(`database: ${shown} (sqlite; ${how})`);
    // Asked on a read-only connection: opening it for work sets it up (WAL), which would write to a stranger's file.
    if (!sqliteHasTenant(shown)) throw notStarted(shown);
  }
  const handle = openDatabase(shown ?? location.url, { create: false });
  try {
    if (shown === null) {
      note(`database: ${handle.displayUrl} (${handle.dialect}; ${how})`);
      if (!(await hasTenant(handle))) throw notStarted(handle.displayUrl);
    }
    // This command may be of a newer version than the server that last ran on the database: its tables as start makes them.
    await migrateToLatest(handle);
  } catch (error) {
    await handle.close();
    throw error;
  }
  // With SVC_REPLAY_S3_* set as the server has them, export, erase and retention reach the chunks' objects too.
  return attachReplayStorage(handle, replayStorage);
}

const TENANT_TABLE = "select 1 from sqlite_master where type = 'table' and name = 'tenants'";

/** True when the SQLite file holds a tenant; read-only, so a file that is not the server's is left as it was. */
function sqliteHasTenant(path: string): boolean {
  const sqlite = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    return (
      sqlite.prepare(TENANT_TABLE).get() !== undefined &&
      sqlite.prepare('select 1 from tenants limit 1').get() !== undefined
    );
  } catch {
    // Not a SQLite database at all.
    return false;
  } finally {
    sqlite.close();
  }
}

/** True when the (PostgreSQL) database holds a tenant. */
async function hasTenant(handle: DatabaseHandle): Promise<boolean> {
  const tables = await handle.db.introspection.getTables();
  return (
    tables.some((table) => table.name === 'tenants') &&
    (await handle.db.selectFrom('tenants').select('id').limit(1).executeTakeFirst()) !== undefined
  );
}

function replayStorageSettings(env: NodeJS.ProcessEnv) {
  try {
    return replayStorageFromEnv(env);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}
