import { Hono } from 'hono';
import type { Kysely } from 'kysely';
import { latestAnalysis } from '../ai/analyses';
import { reproductionTest } from '../ai/reproduction';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { replayUrl } from '../incidents/detect/evidence';
import { incidentLinks, issuePageUrl } from '../incidents/links';
import type { AppEnv } from '../http/env';
import { ApiError } from '../http/errors';
import { readJsonObject } from '../http/json-object';
import { findIssueRow } from '../issues/find';
import type { IssueRow } from '../issues/json';
import { iso } from '../query/params';
import type { SecretBox } from '../secrets/secret-box';
import { resolveServiceNames } from '../tenancy/apps';
import { githubClient, githubFailure } from './client';
import { connectionJson, parseConnection, type RepositoryConnection } from './connection';
import { openFixPullRequest, type FixRequest } from './pull-request';
import { repositoryStore, type PullRequestRecord } from './store';

export interface GithubServices {
  db: Kysely<Database>;
  box: SecretBox;
  clock: Clock;
  /** Read per request: the server learns its URL once listening. */
  publicUrl: () => string;
  log: (line: string) => void;
  /** Longest wait for one GitHub request; tests shorten it. */
  githubTimeoutMs?: number;
}

const pullRequestJson = (pr: PullRequestRecord) => ({ repository: `${pr.owner}/${pr.repo}`, number: pr.number, url: pr.url, branch: pr.branch, commit_sha: pr.commitSha });

async function appNamed(db: Kysely<Database>, projectId: string, name: string) {
  const app = (await resolveServiceNames(db, projectId, [name])).get(name);
  if (!app) throw new ApiError(404, 'not_found', `no app named "${name}" in this project`);
  return app;
}

/** The issue's analysis with a diff that applied to the server's sources; 409 saying what to do otherwise. */
async function fixOf(db: Kysely<Database>, row: IssueRow) {
  const analysis = await latestAnalysis(db, row.project_id, row.fingerprint);
  const ask = `POST /control-plane/issues/${row.fingerprint}/analysis`;
  if (!analysis) throw new ApiError(409, 'no_analysis', `the issue has not been analysed; ask for an analysis first (${ask})`);
  if (analysis.state !== 'done' || !analysis.result) throw new ApiError(409, 'analysis_not_done', `the issue's latest analysis is ${analysis.state}; wait for it to be done, or ask again (${ask})`);
  const { result } = analysis;
  if (!result.diff || !result.diff_applies) throw new ApiError(409, 'no_applicable_fix', 'the latest analysis proposes no diff that applies to the sources; there is nothing to open a pull request with');
  return { analysis, result, diff: result.diff };
}

/**
 * `PUT|GET|DELETE /control-plane/apps/{app}/repository` (the GitHub repository of an app; secrets sealed, never
 * returned), `POST /control-plane/issues/{id}/pull-request` and `GET` of the one opened (docs/ai-fixes.md, "Repository and
 * pull requests").
 */
export function githubRoutes(services: GithubServices) {
  const app = new Hono<AppEnv>();
  const { db } = services;
  const store = repositoryStore(db, services.box, services.clock);

  const connected = async (appId: string, appName: string): Promise<RepositoryConnection> => {
    const connection = await store.connection(appId);
    if (!connection) throw new ApiError(409, 'repository_not_connected', `the app "${appName}" has no repository; connect one with PUT /control-plane/apps/${appName}/repository`);
    return connection;
  };

  app.put('/apps/:app/repository', async (c) => {
    const { projectId } = c.get('caller');
    const target = await appNamed(db, projectId, c.req.param('app'));
    const connection = parseConnection(await readJsonObject(c));
    await store.connect(projectId, target.id, connection);
    return c.json(connectionJson(target.name, connection));
  });

  app.get('/apps/:app/repository', async (c) => {
    const target = await appNamed(db, c.get('caller').projectId, c.req.param('app'));
    const connection = await store.connection(target.id);
    if (!connection) throw new ApiError(404, 'not_found', `the app "${target.name}" has no repository connected`);
    return c.json(connectionJson(target.name, connection));
  });

  app.delete('/apps/:app/repository', async (c) => {
    const target = await appNamed(db, c.get('caller').projectId, c.req.param('app'));
    if (!(await store.disconnect(target.id))) throw new ApiError(404, 'not_found', `the app "${target.name}" has no repository connected`);
    return c.body(null, 204);
  });

  app.post('/issues/:id/pull-request', async (c) => {
    const { projectId } = c.get('caller');
    const id = c.req.param('id');
    const row = await findIssueRow(db, projectId, id);
    if (!row) throw new ApiError(404, 'not_found', `no issue ${id} in this project`);
    const connection = await connected(row.app_id, row.app);
    const { analysis, result, diff } = await fixOf(db, row);
    const test = await reproductionTest(db, { projectId, issueId: id });
    const now = services.clock.now();
    const publicUrl = services.publicUrl();
    const fix: FixRequest = {
      issue: { id, type: row.error_type, message: row.sample_message, app: row.app },
      result,
      mode: analysis.mode,
      diff,
      release: row.last_release,
      test,
      links: {
        issue: issuePageUrl(services.box, publicUrl, now, projectId, id),
        incident: row.incident_id === null ? null : incidentLinks(services.box, publicUrl, now).dashboardUrl(projectId, row.incident_id),
        replay: test ? replayUrl(publicUrl, test.sessionId) : null,
        evidence: `${publicUrl}/control-plane/issues/${id}/analysis`,
      },
    };
    const target = { octokit: githubClient(connection, services.log, services.githubTimeoutMs), owner: connection.owner, repo: connection.repo };
    const pr = await openFixPullRequest(target, connection, fix, services.log).catch((err: unknown) => {
      throw githubFailure(err, `opening the pull request in ${connection.owner}/${connection.repo}`, Date.now(), services.githubTimeoutMs);
    });
    await store.recordPullRequest(projectId, id, pr);
    return c.json({ ...pullRequestJson(pr), created: pr.created }, pr.created ? 201 : 200);
  });

  app.get('/issues/:id/pull-request', async (c) => {
    const id = c.req.param('id');
    const pr = await store.pullRequest(c.get('caller').projectId, id);
    if (!pr) throw new ApiError(404, 'not_found', `no pull request was opened for issue ${id}`);
    return c.json({ ...pullRequestJson(pr), recorded_at: iso(pr.atMs) });
  });

  return app;
}
