import type { Kysely, Migration } from 'kysely';

/**
 * Ownership (issue 31, docs/teams.md "Ownership"): an issue (a detection group) and an incident may be assigned to a
 * person, and remember when the assignment last changed and who changed it. A deleted account leaves nothing assigned
 * to it. The indexes serve the listings' `assignee` filter, which is always within a project.
 */
export function assigneesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      for (const table of ['detection_groups', 'incidents']) {
        // One statement per column: SQLite's ALTER TABLE adds one at a time.
        await db.schema
          .alterTable(table)
          .addColumn('assignee_id', 'text', (c) => c.references('users.id').onDelete('set null'))
          .execute();
        await db.schema.alterTable(table).addColumn('assigned_ms', 'bigint').execute();
        await db.schema.alterTable(table).addColumn('assigned_by', 'text').execute();
        await db.schema.createIndex(`${table}_assignee`).on(table).columns(['project_id', 'assignee_id']).execute();
      }
    },
  };
}
