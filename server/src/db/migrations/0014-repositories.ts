import type { Kysely, Migration } from 'kysely';

/**
 * Repositories and pull requests (docs/ai-fixes.md, "Repository and pull requests"): the GitHub repository each app's
 * code lives in, with its credentials sealed by the server's secret key, and the pull request opened for each issue, so a
 * second request returns it rather than open another. Deleting a project or an app deletes its rows.
 */
export function repositoriesMigration(): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('repositories')
        .addColumn('app_id', 'text', (c) => c.primaryKey().references('apps.id').onDelete('cascade'))
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('repo', 'text', (c) => c.notNull())
        .addColumn('api_url', 'text', (c) => c.notNull())
        .addColumn('directory', 'text', (c) => c.notNull())
        .addColumn('auth_kind', 'text', (c) => c.notNull())
        .addColumn('secrets', 'text', (c) => c.notNull())
        .addColumn('updated_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('pull_requests')
        .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id').onDelete('cascade'))
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('repo', 'text', (c) => c.notNull())
        .addColumn('number', 'integer', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('branch', 'text', (c) => c.notNull())
        .addColumn('commit_sha', 'text', (c) => c.notNull())
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('pull_requests_pk', ['project_id', 'fingerprint'])
        .execute();
    },
  };
}
