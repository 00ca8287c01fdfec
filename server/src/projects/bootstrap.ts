import { sql, type Kysely } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { provisionProject, type NewProject } from './provision';
import { anyTenant, createTenant } from './store';

export interface Bootstrap extends NewProject {
  tenantId: string;
  projectId: string;
}

/**
 * On an empty database, creates a default tenant, project and app and one key of each project scope; otherwise null.
 * On PostgreSQL, replicas starting together take turns on an advisory lock, so only the first one bootstraps.
 */
export async function bootstrapIfEmpty(
  db: Kysely<Database>,
  clock: Clock,
  dialect: DialectName = 'sqlite',
): Promise<Bootstrap | null> {
  return db.transaction().execute(async (tx) => {
    if (dialect === 'postgres') await sql`select pg_advisory_xact_lock(hashtext('svc.bootstrap'))`.execute(tx);
    if (await anyTenant(tx)) return null;
    const tenantId = await createTenant(tx, clock, 'default');
    const created = await provisionProject(tx, clock, tenantId, 'default');
    return { tenantId, projectId: created.project.id, ...created };
  });
}
