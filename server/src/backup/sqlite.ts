import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import SQLite from 'better-sqlite3';
import { conflict, invalid } from '../shared/domain-errors';
import { checkMigrationLevel } from './level';

/** "svc1" in the file header's application id (SQLite's field for naming a file format): marks an svc backup. */
export const BACKUP_APPLICATION_ID = 0x73766331;

/**
 * Pages asked for in one backup step: all of them. The online backup copies from one read transaction per step, so one
 * step is one consistent snapshot; in WAL mode the server's writers go on meanwhile. Smaller steps would restart from
 * the first page whenever ingest commits between two of them, which under sustained ingest may be never done.
 */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the database `source` is connected to into a new file `dest` with SQLite's online backup, while the server
 * keeps writing: every transaction committed before the copy began is in it. The copy is written beside `dest` and
 * renamed into place once whole, as a single file (rollback journal) marked as an svc backup.
 */
export async function backupSqlite(source: SQLite.Database, dest: string): Promise<{ pages: number }> {
  if (existsSync(dest)) throw conflict('backup_exists', `${dest} exists already: name a new file for the backup`);
  if (!existsSync(dirname(resolve(dest)))) throw invalid(`the folder of ${dest} does not exist`, 'invalid_request');
  const partial = `${dest}.partial`;
  rmSync(partial, { force: true });
  try {
    const { totalPages } = await source.backup(partial, { progress: () => ALL_PAGES });
    const copy = new SQLite(partial);
    try {
      copy.pragma('journal_mode = delete');
      copy.pragma(`application_id = ${BACKUP_APPLICATION_ID}`);
    } finally {
      copy.close();
    }
    renameSync(partial, dest);
    return { pages: totalPages };
  } finally {
    rmSync(partial, { force: true });
  }
}

/** Checks that `src` is an svc backup this version can restore, reading it only. */
function checkBackup(src: string): void {
  if (!existsSync(src)) throw invalid(`no backup at ${src}`, 'not_a_backup');
  let file: SQLite.Database;
  try {
    file = new SQLite(src, { readonly: true, fileMustExist: true });
  } catch {
    throw invalid(`${src} is not an svc backup: not a SQLite database`, 'not_a_backup');
  }
  try {
    const id = file.pragma('application_id', { simple: true }) as number;
    if (id !== BACKUP_APPLICATION_ID)
      throw invalid(`${src} is not an svc backup (made by \`svc-server backup\`)`, 'not_a_backup');
    const names = file.prepare('select name from kysely_migration').pluck().all() as string[];
    checkMigrationLevel(src, names, 'sqlite');
  } catch (error) {
    if (error instanceof SQLite.SqliteError)
      throw invalid(`${src} is not an svc backup: ${error.message}`, 'not_a_backup');
    throw error;
  } finally {
    file.close();
  }
}

/** True when the SQLite file at `path` holds any table (any data a restore would replace). */
function holdsTables(path: string): boolean {
  if (!existsSync(path)) return false;
  const file = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    return file.prepare("select 1 from sqlite_master where type = 'table' limit 1").get() !== undefined;
  } finally {
    file.close();
  }
}

/**
 * Restores the backup `src` into the SQLite file `dest` (made with its folder when missing). A file that holds tables
 * is replaced only when `force` is set; the server must not be running on it then. The copy goes through SQLite's
 * backup too, so a `dest` in WAL mode is replaced as a whole, its WAL included.
 */
export async function restoreSqlite(src: string, dest: string, force: boolean): Promise<void> {
  checkBackup(src);
  if (!force && holdsTables(dest))
    throw conflict('database_not_empty', `${dest} holds a database already: pass --force to replace it`);
  mkdirSync(dirname(resolve(dest)), { recursive: true });
  const backup = new SQLite(src, { readonly: true, fileMustExist: true });
  try {
    await backup.backup(dest, { progress: () => ALL_PAGES });
  } finally {
    backup.close();
  }
}
