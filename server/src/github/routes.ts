import { createRoute, z } from '@hono/zod-openapi';
import type { Kysely } from 'kysely';
import { latestAnalysis } from '../ai/store';
import { reproductionTest, type ReproductionTest } from '../ai/reproduction';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { replayUrl } from '../incidents/detect/evidence';
import { incidentLinks, issuePageUrl } from '../incidents/links';
import { ApiError } from '../http/errors';
import { createRouter, errors, jsonAnswer, jsonBody, readControlJson, needs } from '../http/openapi';
import { idParams, Time } from '../http/schemas';
import { requireIssueRow, type IssueRow } from '../issues/store';
import { iso } from '../shared/time';
import type { SecretBox } from '../secrets/secret-box';
import { resolveServiceNames } from '../projects/apps-store';
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

const pullRequestJson = (pr: PullRequestRecord) => ({
  repository: `${pr.owner}/${pr.repo}`,
  number: pr.number,
  url: pr.url,
  branch: pr.branch,
  commit_sha: pr.commitSha,
});

async function appNamed(db: Kysely<Database>, projectId: string, name: string) {
  const app = (await resolveServiceNames(db, projectId, [name])).get(name);
  if (!app) throw new ApiError(404, 'not_found', `no app named "${name}" in this project`);
  return app;
}

/** The issue's analysis with a diff that applied to the server's sources; 409 saying what to do otherwise. */
async function fixOf(db: Kysely<Database>, row: IssueRow) {
  const analysis = await latestAnalysis(db, row.project_id, row.fingerprint);
  const ask = `POST /control-plane/issues/${row.fingerprint}/analysis`;
  if (!analysis)
    throw new ApiError(409, 'no_analysis', `the issue has not been analysed; ask for an analysis first (${ask})`);
  if (analysis.state !== 'done' || !analysis.result)
    throw new ApiError(
      409,
      'analysis_not_done',
      `the issue's latest analysis is ${analysis.state}; wait for it to be done, or ask again (${ask})`,
    );
  const { result } = analysis;
  if (!result.diff || !result.diff_applies)
    throw new ApiError(
      409,
      'no_applicable_fix',
      'the latest analysis proposes no diff that applies to the sources; there is nothing to open a pull request with',
    );
  return { analysis, result, diff: result.diff };
}

const Connection = z
  .object({
    app: z.string(),
    owner: z.string(),
    repo: z.string(),
    api_url: z.string().openapi({ description: "GitHub's REST API root" }),
    directory: z.string().openapi({ description: 'The app\'s folder in the repository, "" for its root' }),
    auth: z.enum(['token', 'app']),
  })
  .openapi('RepositoryConnection');

/** The shape of a connection; parseConnection (connection.ts) checks names, URL, folder and the one kind of credential. */
const ConnectionInput = z.strictObject({
  owner: z.string().openapi({ example: 'acme' }),
  repo: z.string().openapi({ example: 'shop' }),
  api_url: z
    .string()
    .optional()
    .openapi({ default: 'https://api.github.com', description: 'GitHub Enterprise: `https://<host>/api/v3`' }),
  directory: z.string().optional().openapi({
    default: '',
    description: "Where the app's sources (as its source maps name them) sit in the repository",
  }),
  token: z.string().optional().openapi({
    description:
      'A token with contents and pull requests write access; sealed, never returned. Or a GitHub App installation: app_id, installation_id and private_key',
    example: 'github_pat_example',
  }),
  app_id: z.number().int().positive().optional().openapi({ description: "The GitHub App's id" }),
  installation_id: z
    .number()
    .int()
    .positive()
    .optional()
    .openapi({ description: "The App's installation on the repository's owner" }),
  private_key: z
    .string()
    .optional()
    .openapi({ description: "The App's PEM RSA private key (PKCS#1 or PKCS#8, unencrypted); sealed, never returned" }),
});

const pullRequestFields = {
  repository: z.string().openapi({ description: '`owner/repo`' }),
  number: z.number(),
  url: z.string().openapi({ description: "The pull request's page" }),
  branch: z.string().openapi({ description: '`svc/fix-<issue id>`' }),
  commit_sha: z.string(),
};
const PullRequest = z.object({
  ...pullRequestFields,
  created: z.boolean().openapi({ description: 'false: the pull request was open already' }),
});

const repository = {
  tags: ['github'],
  path: '/apps/{app}/repository' as const,
  request: { params: z.object({ app: z.string().min(1).openapi({ description: 'App name or alias' }) }) },
};

const connectRoute = createRoute({
  ...needs('project.configure'),
  ...repository,
  method: 'put',
  summary: "Connect the app's GitHub repository with a token or a GitHub App installation (secrets sealed)",
  middleware: [readControlJson],
  request: {
    ...repository.request,
    body: jsonBody(ConnectionInput, {
      owner: 'acme',
      repo: 'shop',
      directory: 'apps/web',
      token: 'github_pat_example',
    }),
  },
  responses: {
    200: jsonAnswer('Connected; no secret in the answer', Connection),
    ...errors(400, 401, 403, 404, 413, 415),
  },
});
const repositoryRoute = createRoute({
  ...needs('project.view'),
  ...repository,
  method: 'get',
  summary: "The app's repository (never its secrets)",
  responses: { 200: jsonAnswer('Connected', Connection), ...errors(400, 401, 403, 404) },
});
const disconnectRoute = createRoute({
  ...needs('project.configure'),
  ...repository,
  method: 'delete',
  summary: "Disconnect the app's repository",
  responses: { 204: { description: 'Disconnected' }, ...errors(400, 401, 403, 404) },
});
const pullRequest = {
  tags: ['issues'],
  path: '/issues/{id}/pull-request' as const,
  request: { params: idParams('Issue id') },
};
const openRoute = createRoute({
  ...needs('issues.triage'),
  ...pullRequest,
  method: 'post',
  summary: "Open a pull request with the latest analysis's patch and the reproduction test, or return the open one",
  description:
    "Branch `svc/fix-<id>` with one commit: the patched files and the reproduction test. It starts at the default branch's head when the " +
    "files the patch touches are the same there as at the release's commit (the issue's release, when it is a commit SHA), else at that " +
    'commit. Never writes to the default branch. 409: `repository_not_connected`, `no_analysis`, `analysis_not_done`, `no_applicable_fix`, ' +
    '`patch_not_applicable` or `branch_exists`, nothing created. 502: GitHub refused or could not be reached. 503: its rate limit, with `Retry-After`.',
  responses: {
    200: jsonAnswer('The pull request was open already; nothing was created', PullRequest),
    201: jsonAnswer('Created', PullRequest),
    ...errors(400, 401, 403, 404, 409, 502, 503, 504),
  },
});
const recordedRoute = createRoute({
  ...needs('project.view'),
  ...pullRequest,
  method: 'get',
  summary:
    "The pull request last opened (or found open) for the issue, as recorded (its state is GitHub's); null when none was opened",
  responses: {
    200: jsonAnswer(
      'Recorded, or null when none was opened for the issue',
      z.object({ ...pullRequestFields, recorded_at: Time }).nullable(),
    ),
    ...errors(400, 401, 403, 404),
  },
});

/** What the pull request says and links to: the issue, its fix, the reproduction test, the pages to look at. */
function fixRequestOf(
  services: GithubServices,
  { projectId, id, row, test }: { projectId: string; id: string; row: IssueRow; test: ReproductionTest | null },
  { analysis, result, diff }: Awaited<ReturnType<typeof fixOf>>,
): FixRequest {
  const now = services.clock.now();
  const publicUrl = services.publicUrl();
  return {
    issue: { id, type: row.error_type, message: row.sample_message, app: row.app },
    result,
    mode: analysis.mode,
    diff,
    release: row.last_release,
    test,
    links: {
      issue: issuePageUrl(services.box, publicUrl, now, projectId, id),
      incident:
        row.incident_id === null
          ? null
          : incidentLinks(services.box, publicUrl, now).dashboardUrl(projectId, row.incident_id),
      replay: test ? replayUrl(publicUrl, test.sessionId) : null,
      evidence: `${publicUrl}/control-plane/issues/${id}/analysis`,
    },
  };
}

/** Opens (or finds open) the fix's pull request; GitHub's failures become domain errors saying what was being done. */
async function openOnGithub(services: GithubServices, connection: RepositoryConnection, fix: FixRequest) {
  const target = {
    octokit: await githubClient(connection, services.log, services.githubTimeoutMs),
    owner: connection.owner,
    repo: connection.repo,
  };
  return openFixPullRequest(target, connection, fix, services.log).catch((err: unknown) => {
    throw githubFailure(
      err,
      `opening the pull request in ${connection.owner}/${connection.repo}`,
      Date.now(),
      services.githubTimeoutMs,
    );
  });
}

/**
 * `PUT|GET|DELETE /control-plane/apps/{app}/repository` (the GitHub repository of an app; secrets sealed, never
 * returned), `POST /control-plane/issues/{id}/pull-request` and `GET` of the one opened (docs/ai-fixes.md, "Repository and
 * pull requests").
 */
export function githubRoutes(services: GithubServices) {
  const { db } = services;
  const store = repositoryStore(db, services.box, services.clock);

  const connected = async (appId: string, appName: string): Promise<RepositoryConnection> => {
    const connection = await store.connection(appId);
    if (!connection)
      throw new ApiError(
        409,
        'repository_not_connected',
        `the app "${appName}" has no repository; connect one with PUT /control-plane/apps/${appName}/repository`,
      );
    return connection;
  };

  // Chained, so the router's type carries every route for the console's typed client (server/src/api-types.ts).
  return createRouter()
    .openapi(connectRoute, async (c) => {
      const { projectId } = c.get('caller');
      const target = await appNamed(db, projectId, c.req.valid('param').app);
      const connection = parseConnection(c.req.valid('json'));
      await store.connect(projectId, target.id, connection);
      return c.json(connectionJson(target.name, connection), 200);
    })
    .openapi(repositoryRoute, async (c) => {
      const target = await appNamed(db, c.get('caller').projectId, c.req.valid('param').app);
      const connection = await store.connection(target.id);
      if (!connection) throw new ApiError(404, 'not_found', `the app "${target.name}" has no repository connected`);
      return c.json(connectionJson(target.name, connection), 200);
    })
    .openapi(disconnectRoute, async (c) => {
      const target = await appNamed(db, c.get('caller').projectId, c.req.valid('param').app);
      if (!(await store.disconnect(target.id)))
        throw new ApiError(404, 'not_found', `the app "${target.name}" has no repository connected`);
      return c.body(null, 204);
    })
    .openapi(openRoute, async (c) => {
      const { projectId } = c.get('caller');
      const { id } = c.req.valid('param');
      const row = await requireIssueRow(db, projectId, id);
      const connection = await connected(row.app_id, row.app);
      const fix = await fixOf(db, row);
      const test = await reproductionTest(db, { projectId, issueId: id });
      const pr = await openOnGithub(services, connection, fixRequestOf(services, { projectId, id, row, test }, fix));
      await store.recordPullRequest(projectId, id, pr);
      return c.json({ ...pullRequestJson(pr), created: pr.created }, pr.created ? 201 : 200);
    })
    .openapi(recordedRoute, async (c) => {
      const { id } = c.req.valid('param');
      const { projectId } = c.get('caller');
      const pr = await store.pullRequest(projectId, id);
      // None opened yet is an answer, not an error: null, once the issue is known to exist.
      if (!pr) {
        await requireIssueRow(db, projectId, id);
        return c.json(null, 200);
      }
      return c.json({ ...pullRequestJson(pr), recorded_at: iso(pr.atMs) }, 200);
    });
}
