import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../connect';

/**
 * Source maps (sourcemaps/store.ts): per project, keyed by debug ID, or by release and URL for a map without one.
 * A map is stored in two parts, gzip-compressed: its mappings without `sourcesContent`, and each original source in a
 * row of its own, so symbolicating a frame reads and parses only the sources its frames land in (docs/source-maps.md).
 * `bytes` is the map's size as uploaded. Deleting a project deletes its maps; retention leaves them alone (they are
 * not telemetry).
 */
export function sourcemapsMigration(dialect: DialectName): Migration {
  const blob = dialect === 'postgres' ? 'bytea' : 'blob';
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('sourcemaps')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('debug_id', 'text')
        .addColumn('release', 'text')
        .addColumn('url', 'text')
        .addColumn('mappings_gzip', blob, (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('sourcemap_sources')
        .addColumn('map_id', 'text', (c) => c.notNull().references('sourcemaps.id').onDelete('cascade'))
        .addColumn('idx', 'integer', (c) => c.notNull())
        .addColumn('content_gzip', blob, (c) => c.notNull())
        .addPrimaryKeyConstraint('sourcemap_sources_pk', ['map_id', 'idx'])
        .execute();
      await db.schema
        .createIndex('sourcemaps_debug_id')
        .on('sourcemaps')
        .columns(['project_id', 'debug_id'])
        .unique()
        .where(sql.ref('debug_id'), 'is not', null)
        .execute();
      // The fallback key of a map without a debug ID; lookups by release and URL also find maps that have one.
      await db.schema
        .createIndex('sourcemaps_release_url_key')
        .on('sourcemaps')
        .columns(['project_id', 'release', 'url'])
        .unique()
        .where(sql.ref('debug_id'), 'is', null)
        .execute();
      await db.schema
        .createIndex('sourcemaps_release_url')
        .on('sourcemaps')
        .columns(['project_id', 'url', 'release'])
        .execute();
      await db.schema
        .createIndex('sourcemaps_listing')
        .on('sourcemaps')
        .columns(['project_id', 'created_ms', 'id'])
        .execute();
    },
  };
}
