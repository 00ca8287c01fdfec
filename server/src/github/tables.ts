import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';

/** How the server authenticates to GitHub for a repository. */
export type RepositoryAuthKind = 'token' | 'app';

/** Tables of migration 0014-repositories (a type, not an interface: `withTables` wants an index signature). */
export type RepositoryTables = {
  repositories: {
    app_id: string;
    project_id: string;
    owner: string;
    repo: string;
    /** GitHub's REST API root: https://api.github.com, or a GitHub Enterprise server's `/api/v3`. */
    api_url: string;
    /** Where the app's sources sit in the repository ('' for its root): source-map paths are relative to it. */
    directory: string;
    auth_kind: RepositoryAuthKind;
    /** SecretBox-sealed JSON: `{token}` or `{app_id, installation_id, private_key}`. */
    secrets: string;
    updated_ms: number;
  };
  pull_requests: {
    project_id: string;
    /** The id. */
    fingerprint: string;
    owner: string;
    repo: string;
    number: number;
    url: string;
    branch: string;
    commit_sha: string;
    created_ms: number;
  };
};

/** The database with this module's tables, which the rest of the server never reads. */
export const repositoryDb = (db: Kysely<Database>): Kysely<Database & RepositoryTables> =>
  db.withTables<RepositoryTables>();
