import { execFileSync } from 'node:child_process';

/** A full commit SHA: SHA-1 (40 hex digits) or SHA-256 (64) repositories. */
const COMMIT_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

const nonBlank = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/**
 * The commit checked out where `dir` is (`git rev-parse HEAD`, no shell); undefined outside a git checkout, in one
 * without commits, or without git.
 */
export function commitAt(dir: string): string | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    });
    const sha = out.trim();
    return COMMIT_SHA.test(sha) ? sha : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The release a build records, with its maps and in the SDK: `given` (the `release` option, `--release`), else
 * `SVC_RELEASE`, else the commit of the build's directory `dir`, so the server reads the sources at the revision the
 * error happened in (docs/ai-fixes.md). Undefined when none of them is there.
 */
export function resolveRelease(given: string | undefined, env: NodeJS.ProcessEnv, dir: string): string | undefined {
  return nonBlank(given) ?? nonBlank(env.SVC_RELEASE) ?? commitAt(dir);
}
