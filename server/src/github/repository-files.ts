import type { Octokit } from '@octokit/rest';

/** Where the server works in a repository: the client and the repository's coordinates. */
export interface RepositoryTarget {
  octokit: Octokit;
  owner: string;
  repo: string;
}

/** A file at one revision: its text and its blob SHA; null when the revision has no such file. */
export interface FileAtRevision {
  text: string;
  sha: string;
}

const isNotFound = (err: unknown): boolean => err instanceof Error && (err as { status?: unknown }).status === 404;

/** Reads `path` at commit `ref` through the contents API. */
export async function readFile(target: RepositoryTarget, path: string, ref: string): Promise<FileAtRevision | null> {
  try {
    const { data } = await target.octokit.rest.repos.getContent({ owner: target.owner, repo: target.repo, path, ref });
    if (Array.isArray(data) || data.type !== 'file') return null;
    return { text: Buffer.from(data.content, 'base64').toString('utf8'), sha: data.sha };
  } catch (err) {
    if (isNotFound(err)) return null;
    throw err;
  }
}

/** The full SHA of the commit `ref` names, or null when the repository has no such commit. */
export async function resolveCommit(target: RepositoryTarget, ref: string): Promise<string | null> {
  try {
    const { data } = await target.octokit.rest.repos.getCommit({ owner: target.owner, repo: target.repo, ref });
    return data.sha;
  } catch (err) {
    if (isNotFound(err) || (err as { status?: unknown }).status === 422) return null;
    throw err;
  }
}
