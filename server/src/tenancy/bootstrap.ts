import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { createProject, createTenant, registerApp } from './apps';
import { createKey, type CreatedKey } from './keys';

/** The app created on first start: the SDK's default `SVC_SERVICE_NAME`, so a zero-config page is accepted. */
export const DEFAULT_APP_NAME = 'web-app';

export interface Bootstrap {
  tenantId: string;
  projectId: string;
  appName: string;
  ingestKey: CreatedKey;
  controlKey: CreatedKey;
}

/**
 * On an empty database, creates a default tenant, project and app and one key of each scope; otherwise null. On
 * PostgreSQL, replicas starting together take turns on an advisory lock, so only the first one bootstraps.
 */
export async function bootstrapIfEmpty(db: Kysely<Database>, clock: Clock, dialect: DialectName = 'sqlite'): Promise<Bootstrap | null> {
  return db.transaction().execute(async (tx) => {
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext('svc.bootstrap'))`.execute(tx);
    const any = await tx.selectFrom('tenants').select('id').limit(1).executeTakeFirst();
    if (any) return null;
    const tenantId = await createTenant(tx, clock, 'default');
    const projectId = await createProject(tx, clock, tenantId, 'default');
    await registerApp(tx, clock, projectId, DEFAULT_APP_NAME);
    const ingestKey = await createKey(tx, clock, { projectId, scope: 'ingest', name: 'default ingest key' });
    const controlKey = await createKey(tx, clock, { projectId, scope: 'control', name: 'default control key' });
    return { tenantId, projectId, appName: DEFAULT_APP_NAME, ingestKey, controlKey };
  });
}
