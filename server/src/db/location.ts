import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DEFAULT_DATABASE_URL } from './connect';

/** Where a database comes from: named by a flag or variable, found above the working directory, or the default. */
export interface DatabaseLocation {
  url: string;
  /** `--database-url`, `SVC_DATABASE_URL`, `found` (an existing `.svc-data/svc.db`) or `default` (none found). */
  source: '--database-url' | 'SVC_DATABASE_URL' | 'found' | 'default';
}

/**
 * The embedded database nearest to `cwd`: `.svc-data/svc.db` in `cwd` or the first folder above it that has one (as git
 * finds its repository), so `svc-server` run anywhere in a checkout, `server/` included, uses the database `npm start`
 * made at its root. With none, `./.svc-data/svc.db`: where `svc-server start` makes one.
 */
export function nearestDatabase(cwd: string): DatabaseLocation {
  const start = resolve(cwd);
  for (let dir = start; ; dir = dirname(dir)) {
    const file = join(dir, DEFAULT_DATABASE_URL);
    // In the working directory itself it keeps the short relative form the banner and the README show.
    if (existsSync(file)) return { url: dir === start ? DEFAULT_DATABASE_URL : file, source: 'found' };
    if (dirname(dir) === dir) return { url: DEFAULT_DATABASE_URL, source: 'default' };
  }
}

/** The database `svc-server` uses, start and administration commands alike: the flag, else the variable, else {@link nearestDatabase}. */
export function locateDatabase(flag: string | undefined, env: NodeJS.ProcessEnv, cwd: string): DatabaseLocation {
  if (flag !== undefined) return { url: flag, source: '--database-url' };
  if (env.SVC_DATABASE_URL) return { url: env.SVC_DATABASE_URL, source: 'SVC_DATABASE_URL' };
  return nearestDatabase(cwd);
}
