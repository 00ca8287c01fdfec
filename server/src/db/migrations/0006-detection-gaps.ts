import type { Kysely, Migration } from 'kysely';

/**
 * The detector's read cursors remember every missing id range they passed, with when each was first seen, instead of
 * waiting at the first one (server/src/incidents/detect/gaps.ts). A hole the old cursor waited at is found again by the
 * next read and timed from then.
 */
export function detectionGapsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('detection_cursors')
        .addColumn('pending', 'text', (c) => c.notNull().defaultTo('{"gaps":[],"marks":[]}'))
        .execute();
      // One statement per column: SQLite's ALTER TABLE drops one at a time.
      await db.schema.alterTable('detection_cursors').dropColumn('hole_id').execute();
      await db.schema.alterTable('detection_cursors').dropColumn('hole_since_ms').execute();
    },
  };
}
