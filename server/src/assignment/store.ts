import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { assignmentColumns } from './tables';

/**
 * Unassigns every issue and incident a person held in the organisation's projects, their history naming `by` at
 * `atMs`: called when they are removed from it, in the removal's transaction (docs/teams.md, "Ownership").
 */
export async function clearAssignments(
  db: Kysely<Database>,
  held: { tenantId: string; userId: string },
  change: { by: string; atMs: number },
): Promise<void> {
  const unassigned = assignmentColumns({ assigneeId: null, ...change });
  for (const table of ['detection_groups', 'incidents'] as const) {
    await db
      .updateTable(table)
      .set(unassigned)
      .where('assignee_id', '=', held.userId)
      .where('project_id', 'in', (eb) =>
        eb.selectFrom('projects').select('projects.id').where('projects.tenant_id', '=', held.tenantId),
      )
      .execute();
  }
}
