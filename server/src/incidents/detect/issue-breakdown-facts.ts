import { sql } from 'kysely';
import type { ErrorOccurrence } from './error-records';
import type { DetectionTrx, GroupRef } from './groups';
import { chunks, higher } from './issue-facts';
import type { IssueFacet } from './tables';

/** The value each facet counts an error under; '' when the error did not say. */
const VALUE_OF: Record<IssueFacet, (o: ErrorOccurrence) => string | null> = {
  browser: (o) => o.facets.browser,
  os: (o) => o.facets.os,
  release: (o) => o.release,
  route: (o) => o.facets.route,
  user: (o) => o.facets.userId,
};

/**
 * Counts an issue's new production errors per browser, system, release, route and user (`issue_facets`), in the
 * counting transaction like its hourly counts, so the issue page reads its breakdown from a few index entries.
 */
export async function recordIssueBreakdown(
  trx: DetectionTrx,
  ref: GroupRef,
  occurrences: ErrorOccurrence[],
): Promise<void> {
  const tally = new Map<string, { facet: IssueFacet; value: string; count: number; last_ms: number }>();
  for (const o of occurrences) {
    for (const facet of Object.keys(VALUE_OF) as IssueFacet[]) {
      const value = VALUE_OF[facet](o) ?? '';
      const key = `${facet}\n${value}`;
      const seen = tally.get(key);
      if (seen) {
        seen.count += 1;
        seen.last_ms = Math.max(seen.last_ms, o.timeMs);
      } else tally.set(key, { facet, value, count: 1, last_ms: o.timeMs });
    }
  }
  const key = { project_id: ref.projectId, fingerprint: ref.fingerprint };
  for (const rows of chunks([...tally.values()].map((t) => ({ ...key, ...t })))) {
    await trx
      .insertInto('issue_facets')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['project_id', 'fingerprint', 'facet', 'value']).doUpdateSet({
          count: sql<number>`issue_facets.count + excluded.count`,
          last_ms: higher('issue_facets', 'last_ms'),
        }),
      )
      .execute();
  }
}
