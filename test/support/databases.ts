import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The databases every integration suite runs against. */
export type DatabaseKind = 'sqlite' | 'postgres';

/** Admin connection used to create a throwaway database per server; override with SVC_TEST_POSTGRES_URL. */
export const POSTGRES_ADMIN_URL = process.env.SVC_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

let kinds: Promise<DatabaseKind[]> | undefined;

/**
 * SQLite always; PostgreSQL when reachable. Without it a suite prints a notice and runs on SQLite only, except under
 * CI, where PostgreSQL is part of the machine and its absence is a failure.
 */
export function databaseKinds(): Promise<DatabaseKind[]> {
  kinds ??= postgresReachable().then((ok) => {
    if (ok) return ['sqlite', 'postgres'];
    if (process.env.CI) throw new Error(`PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL}, and CI requires it`);
    console.warn(`NOTICE: PostgreSQL not reachable at ${POSTGRES_ADMIN_URL}: PostgreSQL suites skipped (SQLite only)`);
    return ['sqlite'];
  });
  return kinds;
}

export interface TempDatabase {
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database: SQLite in memory, or a new PostgreSQL database dropped afterwards. */
export async function createTempDatabase(kind: DatabaseKind): Promise<TempDatabase> {
  if (kind === 'sqlite') return { url: ':memory:', drop: async () => undefined };
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await c.connect();
      try {
        await c.query(`drop database if exists ${name} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}
