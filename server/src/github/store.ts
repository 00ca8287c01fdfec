import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import type { SecretBox } from '../secrets/secret-box';
import type { AppAuth, RepositoryConnection, TokenAuth } from './connection';
import { repositoryDb } from './tables';

/** A pull request the server opened for an issue. */
export interface PullRequestRecord {
  owner: string;
  repo: string;
  number: number;
  url: string;
  branch: string;
  commitSha: string;
}

/** Repository connections per app (secrets sealed) and the pull request opened per issue. */
export function repositoryStore(database: Kysely<Database>, box: SecretBox, clock: Clock) {
  // Typed per call, not once: the route listing builds the app over a stand-in database.
  const db = () => repositoryDb(database);
  return {
    async connection(appId: string): Promise<RepositoryConnection | undefined> {
      const row = await db().selectFrom('repositories').selectAll().where('app_id', '=', appId).executeTakeFirst();
      if (!row) return undefined;
      const auth =
        row.auth_kind === 'app'
          ? { kind: 'app' as const, secrets: box.open<AppAuth>(row.secrets) }
          : { kind: 'token' as const, secrets: box.open<TokenAuth>(row.secrets) };
      return { owner: row.owner, repo: row.repo, apiUrl: row.api_url, directory: row.directory, auth };
    },
    async connect(projectId: string, appId: string, c: RepositoryConnection): Promise<void> {
      const values = {
        owner: c.owner,
        repo: c.repo,
        api_url: c.apiUrl,
        directory: c.directory,
        auth_kind: c.auth.kind,
        secrets: box.seal(c.auth.secrets),
        updated_ms: clock.now(),
      };
      await db()
        .insertInto('repositories')
        .values({ app_id: appId, project_id: projectId, ...values })
        .onConflict((oc) => oc.column('app_id').doUpdateSet(values))
        .execute();
    },
    async disconnect(appId: string): Promise<boolean> {
      const result = await db().deleteFrom('repositories').where('app_id', '=', appId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    /** The pull request last opened (or found open) for the issue, with when. */
    async pullRequest(projectId: string, issueId: string): Promise<(PullRequestRecord & { atMs: number }) | undefined> {
      const row = await db()
        .selectFrom('pull_requests')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('fingerprint', '=', issueId)
        .executeTakeFirst();
      return (
        row && {
          owner: row.owner,
          repo: row.repo,
          number: Number(row.number),
          url: row.url,
          branch: row.branch,
          commitSha: row.commit_sha,
          atMs: Number(row.created_ms),
        }
      );
    },
    async recordPullRequest(projectId: string, issueId: string, pr: PullRequestRecord): Promise<void> {
      const values = {
        owner: pr.owner,
        repo: pr.repo,
        number: pr.number,
        url: pr.url,
        branch: pr.branch,
        commit_sha: pr.commitSha,
        created_ms: clock.now(),
      };
      await db()
        .insertInto('pull_requests')
        .values({ project_id: projectId, fingerprint: issueId, ...values })
        .onConflict((oc) => oc.columns(['project_id', 'fingerprint']).doUpdateSet(values))
        .execute();
    },
  };
}

export type RepositoryStore = ReturnType<typeof repositoryStore>;
