import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { backupPostgres, restorePostgres } from '../backup/postgres';
import { backupSqlite, restoreSqlite } from '../backup/sqlite';
import { openDatabase, sqlitePathOf } from '../db/connect';
import { locateDatabase } from '../db/location';
import { migrateToLatest } from '../db/migrate';
import { DomainError } from '../shared/domain-errors';
import { anyChunkInObjects } from '../replay/chunk-store';
import { openServerDatabase } from './database';
import { UsageError } from './resolve';

export const BACKUP_USAGE = `Backup and restore (docs/governance.md, "Backup and restore"; on the server's database, as the commands above):
  svc-server backup FILE             a consistent copy while the server runs: SQLite's online backup, or pg_dump's
                                     custom format for PostgreSQL (pg_dump on PATH); FILE must not exist
  svc-server restore FILE [--force]  into the database named as above (a new SQLite file is made); one that holds
                                     data is replaced only with --force, with the server stopped`;

type Out = (line: string) => void;

/** Domain refusals (not a backup, a database not empty, a tool missing) are the operator's to fix: exit code 2. */
async function asUsage<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof DomainError) throw new UsageError(error.message);
    throw error;
  }
}

function fileArgument(command: string, positionals: string[]): string {
  const [file, ...extra] = positionals;
  if (!file || extra.length > 0) throw new UsageError(`usage: svc-server ${command} FILE\n${BACKUP_USAGE}`);
  return file;
}

/** `svc-server backup FILE`: the server's database copied into FILE while it runs. Returns the exit code. */
export async function runBackupCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  out: Out,
  note: Out,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { 'database-url': { type: 'string' } },
  });
  const dest = resolve(cwd, fileArgument('backup', positionals));
  const { url } = locateDatabase(values['database-url'], env, cwd);
  const handle = await openServerDatabase(values['database-url'], env, cwd, note);
  try {
    if (handle.sqlite) {
      const { pages } = await asUsage(backupSqlite(handle.sqlite, dest));
      out(`backup written to ${dest} (${pages} pages of ${handle.sqlite.pragma('page_size', { simple: true })} bytes)`);
    } else {
      await asUsage(backupPostgres(url, handle.displayUrl, dest));
      out(`backup written to ${dest} (pg_dump custom format)`);
    }
    // A secret is never copied into a file the operator may store less carefully; they are told where it is instead.
    note(
      "not in the backup: the secret key sealing channel and integration secrets (SVC_SECRET_KEY, else secret.key beside the SQLite database or in .svc-data): keep it apart, with a secret's care, and give it to the restored server",
    );
    if (await anyChunkInObjects(handle.db))
      note(
        'not in the backup: replay chunk payloads kept in object storage (SVC_REPLAY_S3_BUCKET), only their index and keys: back the bucket up with its own means (docs/replays.md, "Backup and export")',
      );
    return 0;
  } finally {
    await handle.close();
  }
}

/** `svc-server restore FILE [--force]`: a backup restored into the database named as for every command. */
export async function runRestoreCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  out: Out,
  note: Out,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: { 'database-url': { type: 'string' }, force: { type: 'boolean', default: false } },
  });
  const src = resolve(cwd, fileArgument('restore', positionals));
  const { url } = locateDatabase(values['database-url'], env, cwd);
  const path = sqlitePathOf(url);
  if (path === ':memory:') throw new UsageError('restore needs a database that lasts: a SQLite file or PostgreSQL');
  const target = path === null ? url : resolve(cwd, path);
  let shown = target;
  if (path === null) {
    const handle = openDatabase(url);
    shown = handle.displayUrl;
    try {
      const empty = (await handle.db.introspection.getTables()).length === 0;
      note(`database: ${shown} (postgres)`);
      await asUsage(restorePostgres(src, url, shown, { empty, force: values.force }));
    } finally {
      await handle.close();
    }
  } else {
    note(`database: ${target} (sqlite)`);
    await asUsage(restoreSqlite(src, target, values.force));
  }
  // Ready to serve: a backup of an older version gets the migrations it lacks now rather than at the next start.
  const restored = openDatabase(target, { create: false });
  try {
    await migrateToLatest(restored);
  } finally {
    await restored.close();
  }
  out(`restored ${src} into ${shown}`);
  return 0;
}
