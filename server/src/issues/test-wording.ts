/**
 * How an issue's test facts read, for the console's issue page and the signed issue page alike (docs/issues.md, "Test
 * traffic"). Plain functions of the detail's fields, free of server imports, so the console bundles them too.
 */

interface SeenInCounts {
  production: { events: number };
  tests: { events: number; run_count: number };
}

interface Reproduction {
  branch: string | null;
  commit: string | null;
  status: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `production / tests (3 runs)`: where the issue was seen; `nowhere yet` for a group without errors of either kind. */
export function seenInText(seen: SeenInCounts): string {
  const places = [
    ...(seen.production.events > 0 ? ['production'] : []),
    ...(seen.tests.events > 0 ? [`tests (${plural(seen.tests.run_count, 'run')})`] : []),
  ];
  return places.length > 0 ? places.join(' / ') : 'nowhere yet';
}

/** A commit as people quote it: its first 7 characters. */
export const shortCommit = (commit: string | null) => (commit === null ? 'an unknown commit' : commit.slice(0, 7));

/**
 * `reproduction test failed on 1a2b3c4` / `reproduction test passed on branch svc/fix-… at 5d6e7f8`: a failure is
 * where the bug still is; a pass names the branch that fixes it.
 */
export function reproductionText(r: Reproduction): string {
  const outcome = r.status === 'timedOut' ? 'timed out' : r.status;
  const where =
    r.status === 'passed' && r.branch !== null
      ? `branch ${r.branch} at ${shortCommit(r.commit)}`
      : shortCommit(r.commit);
  return `reproduction test ${outcome} on ${where}`;
}
