import type { RepositoryTarget } from './repository-files';

/** A file the fix commit writes (text) or deletes (null). */
export interface CommitFile {
  path: string;
  content: string | null;
}

/**
 * One commit on top of `parent` that writes `files` (git data API: blobs, a tree on the parent's, the commit). Nothing
 * points at it yet: without a ref, GitHub collects it, so a failure here leaves nothing behind.
 */
export async function createFixCommit(
  target: RepositoryTarget,
  parent: string,
  files: CommitFile[],
  message: string,
): Promise<string> {
  const { octokit, owner, repo } = target;
  const base = await octokit.rest.git.getCommit({ owner, repo, commit_sha: parent });
  const tree = [];
  for (const file of files) {
    if (file.content === null) {
      tree.push({ path: file.path, mode: '100644' as const, type: 'blob' as const, sha: null });
      continue;
    }
    const blob = await octokit.rest.git.createBlob({
      owner,
      repo,
      content: Buffer.from(file.content, 'utf8').toString('base64'),
      encoding: 'base64',
    });
    tree.push({ path: file.path, mode: '100644' as const, type: 'blob' as const, sha: blob.data.sha });
  }
  const created = await octokit.rest.git.createTree({ owner, repo, base_tree: base.data.tree.sha, tree });
  const commit = await octokit.rest.git.createCommit({
    owner,
    repo,
    message,
    tree: created.data.sha,
    parents: [parent],
  });
  return commit.data.sha;
}
