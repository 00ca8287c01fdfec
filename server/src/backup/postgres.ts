import { spawn } from 'node:child_process';
import { existsSync, renameSync, rmSync } from 'node:fs';
import { conflict, DomainError, invalid } from '../shared/domain-errors';
import { checkMigrationLevel } from './level';

/** What a PostgreSQL client tool needs: the URL without its password, which goes in PGPASSWORD (never in the arguments). */
function connection(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = '';
  return { dbname: u.toString(), env: { ...process.env, ...(password && { PGPASSWORD: password }) } };
}

/** The steps to run by hand when the PostgreSQL client is missing (docs/governance.md, "Backup and restore"). */
const BY_HAND = {
  pg_dump: (dest: string, shown: string) => `pg_dump --format=custom --no-owner --file=${dest} --dbname=${shown}`,
  pg_restore: (src: string, shown: string) =>
    `pg_restore --single-transaction --exit-on-error --no-owner --no-privileges --dbname=${shown} ${src}`,
};

/** Runs a PostgreSQL client tool; resolves with its stdout, rejects with its stderr (or how to run it by hand). */
function run(tool: keyof typeof BY_HAND, args: string[], env: NodeJS.ProcessEnv, byHand: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(tool, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'ENOENT'
          ? invalid(
              `${tool} is not on PATH: install the PostgreSQL client (the server's major version or newer), or run:\n  ${byHand}`,
              'tool_missing',
            )
          : error,
      ),
    );
    child.once('close', (code) =>
      code === 0 ? done(stdout) : fail(invalid(`${tool} failed (exit ${code}): ${stderr.trim()}`, 'tool_failed')),
    );
  });
}

/**
 * `pg_dump` of the database into a new custom-format archive `dest`: one snapshot, so every transaction committed
 * before it began is in it, while the replicas keep writing. Written beside `dest` and renamed into place once whole.
 */
export async function backupPostgres(url: string, shownUrl: string, dest: string): Promise<void> {
  if (existsSync(dest)) throw conflict('backup_exists', `${dest} exists already: name a new file for the backup`);
  const { dbname, env } = connection(url);
  const partial = `${dest}.partial`;
  try {
    await run(
      'pg_dump',
      ['--format=custom', '--no-owner', `--file=${partial}`, `--dbname=${dbname}`],
      env,
      BY_HAND.pg_dump(dest, shownUrl),
    );
    renameSync(partial, dest);
  } finally {
    rmSync(partial, { force: true });
  }
}

/** The migrations listed in an archive's `kysely_migration` data (its COPY block, as pg_restore prints it). */
function copiedNames(sql: string): string[] {
  const lines = sql.split('\n');
  const start = lines.findIndex((l) => /^COPY (public\.)?kysely_migration /.test(l));
  if (start < 0) return [];
  const end = lines.indexOf('\\.', start);
  return lines.slice(start + 1, end < 0 ? undefined : end).map((l) => l.split('\t')[0]!);
}

/**
 * Restores the archive `src` into the database `url` with pg_restore in one transaction (a failure leaves it as it
 * was). `empty` says whether the database holds no table; otherwise only `force` replaces what the archive holds.
 */
export async function restorePostgres(
  src: string,
  url: string,
  shownUrl: string,
  options: { empty: boolean; force: boolean },
): Promise<void> {
  if (!existsSync(src)) throw invalid(`no backup at ${src}`, 'not_a_backup');
  const { dbname, env } = connection(url);
  const byHand = BY_HAND.pg_restore(src, shownUrl);
  const migrations = await run('pg_restore', ['--data-only', '--table=kysely_migration', '--file=-', src], env, byHand)
    .then(copiedNames)
    .catch((error: unknown) => {
      if (error instanceof DomainError && error.code === 'tool_missing') throw error;
      throw invalid(`${src} is not an svc backup: pg_restore cannot read it as a pg_dump archive`, 'not_a_backup');
    });
  checkMigrationLevel(src, migrations, 'postgres');
  if (!options.empty && !options.force)
    throw conflict('database_not_empty', `${shownUrl} holds tables already: pass --force to replace them`);
  const replace = options.force ? ['--clean', '--if-exists'] : [];
  await run(
    'pg_restore',
    ['--single-transaction', '--exit-on-error', '--no-owner', '--no-privileges', ...replace, `--dbname=${dbname}`, src],
    env,
    byHand,
  );
}
