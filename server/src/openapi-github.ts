import { body, control, created, errorRefs, idParam, json, noContent, num, obj, ok, param, str, time, type Schema } from './openapi-parts';

/** OpenAPI paths of repositories and fix pull requests (docs/ai-fixes.md, "Repository and pull requests"). */
const Connection = obj(
  {
    app: str,
    owner: str,
    repo: str,
    api_url: { ...str, description: 'GitHub\'s REST API root' },
    directory: { ...str, description: 'The app\'s folder in the repository, "" for its root' },
    auth: { type: 'string', enum: ['token', 'app'] },
  },
  ['app', 'owner', 'repo', 'api_url', 'directory', 'auth'],
);
const ConnectionInput = obj(
  {
    owner: str,
    repo: str,
    api_url: { ...str, default: 'https://api.github.com', description: 'GitHub Enterprise: `https://<host>/api/v3`' },
    directory: { ...str, default: '', description: 'Where the app\'s sources (as its source maps name them) sit in the repository' },
    token: { ...str, description: 'A token with contents and pull requests write access; sealed, never returned. Or a GitHub App installation: app_id, installation_id and private_key' },
    app_id: { type: 'integer', minimum: 1, description: 'The GitHub App\'s id' },
    installation_id: { type: 'integer', minimum: 1, description: 'The App\'s installation on the repository\'s owner' },
    private_key: { ...str, description: 'The App\'s PEM RSA private key (PKCS#1 or PKCS#8, unencrypted); sealed, never returned' },
  },
  ['owner', 'repo'],
);
const PullRequestFields: Record<string, Schema> = {
  repository: { ...str, description: '`owner/repo`' },
  number: num,
  url: { ...str, description: 'The pull request\'s page' },
  branch: { ...str, description: '`svc/fix-<issue id>`' },
  commit_sha: str,
};
const PullRequest = obj({ ...PullRequestFields, created: { type: 'boolean', description: 'false: the pull request was open already' } }, [...Object.keys(PullRequestFields), 'created']);
const RecordedPullRequest = obj({ ...PullRequestFields, recorded_at: time }, [...Object.keys(PullRequestFields), 'recorded_at']);
const github = (status: number, description: string): Record<string, unknown> => ({ [String(status)]: { description, content: json({ $ref: '#/components/schemas/Error' }) } });
const appParam: Schema = { parameters: [param('app', 'path', 'App name or alias')] };

export const GITHUB_PATHS: Record<string, unknown> = {
  '/control-plane/apps/{app}/repository': {
    put: control('Connect the app\'s GitHub repository with a token or a GitHub App installation (secrets sealed)', { ...ok('Connected; no secret in the answer', Connection), ...errorRefs(404, 415) }, { ...appParam, ...body(ConnectionInput) }),
    get: control('The app\'s repository (never its secrets)', { ...ok('Connected', Connection), ...errorRefs(404) }, appParam),
    delete: control('Disconnect the app\'s repository', noContent, appParam),
  },
  '/control-plane/issues/{id}/pull-request': {
    post: control(
      'Open a pull request with the latest analysis\'s patch and the reproduction test, or return the open one',
      {
        ...ok('The pull request was open already; nothing was created', PullRequest),
        ...created(PullRequest),
        ...github(409, '`repository_not_connected`, `no_analysis`, `analysis_not_done`, `no_applicable_fix`, `patch_not_applicable` (the diff does not apply at the release\'s commit) or `branch_exists`; nothing created'),
        ...github(502, 'GitHub refused (`github_refused`, `github_unauthorized`; `github_app_auth_failed`: no installation token for the App\'s installation) or could not be reached; a branch made before the refusal is deleted'),
        ...github(503, 'GitHub\'s rate limit (`github_rate_limited`), with `Retry-After`'),
        ...github(504, 'GitHub did not answer in time (`github_timeout`)'),
        ...errorRefs(404),
      },
      {
        ...idParam('Issue id'),
        description:
          'Branch `svc/fix-<id>` with one commit: the patched files and the reproduction test. It starts at the default branch\'s head when the ' +
          'files the patch touches are the same there as at the release\'s commit (the issue\'s release, when it is a commit SHA), else at that ' +
          'commit. Never writes to the default branch.',
      },
    ),
    get: control('The pull request last opened (or found open) for the issue, as recorded; its state is GitHub\'s', { ...ok('Recorded', RecordedPullRequest), ...errorRefs(404) }, idParam('Issue id')),
  },
};
