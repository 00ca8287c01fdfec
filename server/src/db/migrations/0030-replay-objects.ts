import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Replay chunks in object storage (docs/replays.md, "Object storage"): with SVC_REPLAY_S3_BUCKET set, a chunk's bytes
 * live in the bucket under `object_key` and its row keeps only the index, `data` left empty (zero bytes rather than
 * null: making the column nullable would rebuild SQLite's largest table). `stored_bytes` keeps the payload's size, which
 * replay pages are bounded by, now that `length(data)` no longer says it; rows stored before this migration have none
 * and are measured as before. The partial index serves the sweeper's "is this object referenced?" and costs nothing for
 * chunks kept in the database.
 */
export function replayObjectsMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema.alterTable('replay_chunks').addColumn('object_key', 'text').execute();
      await db.schema.alterTable('replay_chunks').addColumn('stored_bytes', 'integer').execute();
      await db.schema
        .createIndex('replay_chunks_object_key')
        .on('replay_chunks')
        .column('object_key')
        .where(sql.ref('object_key'), 'is not', null)
        .execute();
    },
  };
}
