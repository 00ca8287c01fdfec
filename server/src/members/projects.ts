import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { invalid } from '../shared/domain-errors';

/**
 * The project ids a member is limited to, checked against the organisation's projects: each must be one of them (another
 * organisation's is as unknown as none), and a limit lists at least one. Null (or left out) is every project.
 */
export async function checkProjectLimit(
  db: Kysely<Database>,
  tenantId: string,
  projects: readonly string[] | null | undefined,
): Promise<string[] | null> {
  if (projects === undefined || projects === null) return null;
  const wanted = [...new Set(projects)];
  if (wanted.length === 0)
    throw invalid('projects must list at least one project id, or be null for every project', 'invalid_request', {
      field: 'projects',
    });
  const known = await db
    .selectFrom('projects')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('id', 'in', wanted)
    .execute();
  const unknown = wanted.filter((id) => !known.some((p) => p.id === id));
  if (unknown.length > 0)
    throw invalid(`projects names no project of this organisation: ${unknown.join(', ')}`, 'invalid_request', {
      field: 'projects',
    });
  return wanted;
}
