import type { RepositoryConnection } from './connection';
import { createFixCommit, type CommitFile } from './fix-commit';
import { applyDiff } from '../ai/patch';
import { conflict } from '../shared/domain-errors';
import { pullRequestBody, pullRequestTitle, type BranchBase, type PullRequestFacts } from './pr-text';
import { readFile, resolveCommit, type FileAtRevision, type RepositoryTarget } from './repository-files';
import type { PullRequestRecord } from './store';

/** What the server needs to open a fix: the facts for the text, the diff, the test and the release to read at. */
export interface FixRequest extends Omit<PullRequestFacts, 'base' | 'files' | 'test'> {
  diff: string;
  release: string | null;
  test: { path: string; content: string; sessionId: string } | null;
}

export interface OpenedPullRequest extends PullRequestRecord {
  created: boolean;
}

/** The fix branch of an issue: one per issue, so a second request finds the first's pull request. */
export const fixBranch = (issueId: string) => `svc/fix-${issueId}`;

/** A release that names a commit: the build plugin's `--release $(git rev-parse HEAD)`, or a short SHA. */
const COMMIT_SHA = /^[0-9a-f]{7,40}$/i;

const inDirectory = (directory: string, path: string) => (directory === '' ? path : `${directory}/${path}`);

/** The open pull request from the issue's branch, if one exists: whoever opened it, it is the answer. */
async function openPullFrom(target: RepositoryTarget, branch: string): Promise<PullRequestRecord | undefined> {
  const { data } = await target.octokit.rest.pulls.list({
    owner: target.owner,
    repo: target.repo,
    head: `${target.owner}:${branch}`,
    state: 'open',
    per_page: 1,
  });
  const pr = data[0];
  return (
    pr && {
      owner: target.owner,
      repo: target.repo,
      number: pr.number,
      url: pr.html_url,
      branch,
      commitSha: pr.head.sha,
    }
  );
}

/**
 * Where the branch starts. From the default branch's head when every file the patch touches is the same there as at
 * the release (the fix is then already "rebased"); else from the release's commit, which the body says.
 */
async function chooseBase(
  target: RepositoryTarget,
  defaultBranch: string,
  head: string,
  release: { sha: string | null; name: string | null },
  atRelease: Map<string, FileAtRevision | null>,
): Promise<BranchBase> {
  if (release.sha === null)
    return { from: 'default-no-release', branch: defaultBranch, sha: head, release: release.name };
  const changed: string[] = [];
  if (release.sha !== head) {
    for (const [path, before] of atRelease)
      if (before?.sha !== (await readFile(target, path, head))?.sha) changed.push(path);
  }
  return changed.length === 0
    ? { from: 'default', branch: defaultBranch, sha: head, releaseSha: release.sha }
    : { from: 'release', branch: defaultBranch, sha: release.sha, changed };
}

/** Points the new branch at the commit; 409 when the branch exists already (a closed fix, or a request racing this one). */
async function createBranch(target: RepositoryTarget, branch: string, sha: string): Promise<void> {
  try {
    await target.octokit.rest.git.createRef({
      owner: target.owner,
      repo: target.repo,
      ref: `refs/heads/${branch}`,
      sha,
    });
  } catch (err) {
    if ((err as { status?: unknown }).status !== 422) throw err;
    throw conflict(
      'branch_exists',
      `the branch ${branch} already exists in ${target.owner}/${target.repo} without an open pull request (a closed fix, or another request opening it now); delete the branch, or retry to get the pull request`,
      { branch },
    );
  }
}

async function deleteBranch(target: RepositoryTarget, branch: string, log: (line: string) => void): Promise<void> {
  try {
    await target.octokit.rest.git.deleteRef({ owner: target.owner, repo: target.repo, ref: `heads/${branch}` });
  } catch (err) {
    log(
      `could not delete the branch ${branch} of ${target.owner}/${target.repo} after its pull request failed: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/**
 * Opens the pull request of an issue's fix, or returns the one open already. The order keeps GitHub whole: everything
 * is read and the patch applied first; then the commit (unreachable until a ref names it), the branch, and the pull
 * request last. When the pull request fails, the branch is deleted. Never writes to the default branch.
 */
export async function openFixPullRequest(
  target: RepositoryTarget,
  connection: RepositoryConnection,
  fix: FixRequest,
  log: (line: string) => void,
): Promise<OpenedPullRequest> {
  const branch = fixBranch(fix.issue.id);
  const open = await openPullFrom(target, branch);
  if (open) return { ...open, created: false };

  const { octokit, owner, repo } = target;
  const defaultBranch = (await octokit.rest.repos.get({ owner, repo })).data.default_branch;
  const head = (await octokit.rest.git.getRef({ owner, repo, ref: `heads/${defaultBranch}` })).data.object.sha;
  const releaseSha =
    fix.release !== null && COMMIT_SHA.test(fix.release) ? await resolveCommit(target, fix.release) : null;
  const at = releaseSha ?? head;

  // The files at the release, kept to compare with the default branch's.
  const atRelease = new Map<string, FileAtRevision | null>();
  const patched = await applyDiff(fix.diff, async (path) => {
    const file = await readFile(target, inDirectory(connection.directory, path), at);
    atRelease.set(inDirectory(connection.directory, path), file);
    return file?.text ?? null;
  });
  const base = await chooseBase(target, defaultBranch, head, { sha: releaseSha, name: fix.release }, atRelease);
  const files: CommitFile[] = patched.map((f) => ({
    path: inDirectory(connection.directory, f.path),
    content: f.content,
  }));
  const test = fix.test && { ...fix.test, path: inDirectory(connection.directory, fix.test.path) };
  if (test) files.push({ path: test.path, content: test.content });

  const title = pullRequestTitle(fix.issue);
  const commitSha = await createFixCommit(
    target,
    base.sha,
    files,
    `${title}\n\nSuggested by svc for issue ${fix.issue.id}.`,
  );
  await createBranch(target, branch, commitSha);
  try {
    const body = pullRequestBody({ ...fix, test, base, files: files.map((f) => f.path) });
    const { data } = await octokit.rest.pulls.create({ owner, repo, title, head: branch, base: defaultBranch, body });
    return { owner, repo, number: data.number, url: data.html_url, branch, commitSha, created: true };
  } catch (err) {
    await deleteBranch(target, branch, log);
    throw err;
  }
}
