import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** What the CI service says about the build: every field is optional, as no provider sets them all. */
export interface CiInfo {
  /** `github`, `gitlab`, `circleci`, `buildkite`, `jenkins`; absent outside CI (or on another service). */
  provider?: string;
  commit?: string;
  branch?: string;
  /** A link to the job (or build) in the CI service's own UI. */
  jobUrl?: string;
  /** The build's own id, the base of the derived run id (see runIdFromCi). */
  buildId?: string;
}

type Env = Record<string, string | undefined>;

/** A variable's value, or undefined when unset or blank (CI services export some variables empty). */
function read(env: Env, ...names: string[]): string | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/**
 * The pull request's head commit on a `pull_request` event, from the event's payload (GITHUB_EVENT_PATH): there
 * GITHUB_SHA is the temporary merge commit, which no branch holds and no issue's release names.
 */
function pullRequestHead(env: Env): string | undefined {
  const path = read(env, 'GITHUB_EVENT_PATH');
  if (!path || !read(env, 'GITHUB_EVENT_NAME')?.startsWith('pull_request')) return undefined;
  try {
    const sha = (JSON.parse(readFileSync(path, 'utf8')) as { pull_request?: { head?: { sha?: unknown } } }).pull_request
      ?.head?.sha;
    return typeof sha === 'string' && sha !== '' ? sha : undefined;
  } catch {
    return undefined;
  }
}

function github(env: Env): CiInfo {
  const server = read(env, 'GITHUB_SERVER_URL') ?? 'https://github.com';
  const repository = read(env, 'GITHUB_REPOSITORY');
  const runId = read(env, 'GITHUB_RUN_ID');
  const attempt = read(env, 'GITHUB_RUN_ATTEMPT') ?? '1';
  return {
    provider: 'github',
    commit: pullRequestHead(env) ?? read(env, 'GITHUB_SHA'),
    // GITHUB_HEAD_REF is the pull request's branch; GITHUB_REF_NAME there would be `<number>/merge`.
    branch: read(env, 'GITHUB_HEAD_REF', 'GITHUB_REF_NAME'),
    jobUrl: repository && runId ? `${server}/${repository}/actions/runs/${runId}` : undefined,
    buildId: runId && `${runId}-${attempt}`,
  };
}

const gitlab = (env: Env): CiInfo => ({
  provider: 'gitlab',
  commit: read(env, 'CI_COMMIT_SHA'),
  branch: read(env, 'CI_COMMIT_REF_NAME'),
  jobUrl: read(env, 'CI_JOB_URL'),
  buildId: read(env, 'CI_PIPELINE_ID'),
});

const circleci = (env: Env): CiInfo => ({
  provider: 'circleci',
  commit: read(env, 'CIRCLE_SHA1'),
  branch: read(env, 'CIRCLE_BRANCH'),
  jobUrl: read(env, 'CIRCLE_BUILD_URL'),
  buildId: read(env, 'CIRCLE_WORKFLOW_ID'),
});

const buildkite = (env: Env): CiInfo => ({
  provider: 'buildkite',
  commit: read(env, 'BUILDKITE_COMMIT'),
  branch: read(env, 'BUILDKITE_BRANCH'),
  jobUrl: read(env, 'BUILDKITE_BUILD_URL'),
  buildId: read(env, 'BUILDKITE_BUILD_ID'),
});

const jenkins = (env: Env): CiInfo => ({
  provider: 'jenkins',
  commit: read(env, 'GIT_COMMIT'),
  branch: read(env, 'BRANCH_NAME', 'GIT_BRANCH'),
  jobUrl: read(env, 'BUILD_URL'),
  buildId: read(env, 'BUILD_TAG'),
});

/** Each provider by the variable that only it sets. */
const PROVIDERS: ReadonlyArray<[marker: string, read: (env: Env) => CiInfo]> = [
  ['GITHUB_ACTIONS', github],
  ['GITLAB_CI', gitlab],
  ['CIRCLECI', circleci],
  ['BUILDKITE', buildkite],
  ['JENKINS_URL', jenkins],
];

/** The CI service's facts from its variables; `{}` when none of the five is recognised. */
export function ciFromEnv(env: Env): CiInfo {
  const found = PROVIDERS.find(([marker]) => read(env, marker) !== undefined);
  if (!found) return {};
  const info = found[1](env);
  return Object.fromEntries(Object.entries(info).filter(([, v]) => v !== undefined)) as CiInfo;
}

/** `git rev-parse` in the current directory; undefined outside a checkout or without git. */
function git(...args: string[]): string | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    }).trim();
    return out && out !== 'HEAD' ? out : undefined;
  } catch {
    return undefined;
  }
}

let cached: CiInfo | undefined;

/**
 * This process's CI facts: the provider's variables, with commit and branch from git when the provider gave none.
 * Computed once per process (git is run at most twice), since every test of a worker asks.
 */
export function ciInfo(): CiInfo {
  if (cached) return cached;
  const info = ciFromEnv(process.env);
  cached = { ...info };
  const commit = info.commit ?? git('HEAD');
  const branch = info.branch ?? git('--abbrev-ref', 'HEAD');
  if (commit) cached.commit = commit;
  if (branch) cached.branch = branch;
  return cached;
}
