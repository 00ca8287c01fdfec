import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { generateSecretKey } from './secret-box';

/**
 * The secret key when none is configured: kept in a file beside the SQLite database (`secret.key`, mode 0600), made on
 * first start, so the embedded setup of `npm start` needs no configuration and survives restarts. A PostgreSQL
 * deployment keeps it in `.svc-data/secret.key` of the working directory; several processes sharing a database must
 * be given the same `--secret-key` (docs/notifications.md). An in-memory database gets a key for the process only.
 */
export function secretKeyFor(databasePath: string | undefined): string {
  if (databasePath === ':memory:') return generateSecretKey();
  const file =
    databasePath === undefined
      ? resolve('.svc-data', 'secret.key')
      : join(dirname(resolve(databasePath)), 'secret.key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const key = generateSecretKey();
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
    return key;
  } catch (error) {
    // Another process sharing the database made it first: theirs is the key.
    if ((error as { code?: string }).code === 'EEXIST') return readFileSync(file, 'utf8').trim();
    throw error;
  }
}
