import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { DatabaseHandle } from '../db/connect';
import type { Database } from '../db/schema';
import { checkKey } from '../projects/keys-store';

interface Remembered {
  ingestKey: string;
  controlKey: string;
  appName: string;
}

/**
 * For the embedded SQLite database only, the keys made on first start are kept beside the database file (mode 0600, as
 * readable as the database itself) so that `npm start` can print them again after a restart. PostgreSQL deployments
 * never write keys to disk: they are shown once.
 */
function fileFor(handle: DatabaseHandle): string | null {
  if (handle.dialect !== 'sqlite' || handle.displayUrl === ':memory:') return null;
  return join(dirname(resolve(handle.displayUrl)), 'bootstrap-keys.json');
}

export function rememberKeys(handle: DatabaseHandle, keys: Remembered): void {
  const file = fileFor(handle);
  if (!file) return;
  writeFileSync(file, JSON.stringify(keys, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
}

/** The remembered keys that are still valid (not revoked or expired), or null. */
export async function recallKeys(
  handle: DatabaseHandle,
  db: Kysely<Database>,
  clock: Clock,
): Promise<Remembered | null> {
  const file = fileFor(handle);
  if (!file || !existsSync(file)) return null;
  try {
    const keys = JSON.parse(readFileSync(file, 'utf8')) as Remembered;
    const ingest = await checkKey(db, clock, keys.ingestKey, ['ingest']);
    const control = await checkKey(db, clock, keys.controlKey, ['control']);
    return ingest.ok && control.ok ? keys : null;
  } catch {
    return null;
  }
}
