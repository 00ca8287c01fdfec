import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { ISSUE_FACETS, type IssueFacet } from '../../incidents/detect/tables';
import type { IssueRow } from './issues';

/** Values listed per facet, largest first. */
export const BREAKDOWN_TOP = 5;
/** Distinct values counted per facet at most: beyond, `distinct` says "at least this many" (a popular issue's users). */
export const BREAKDOWN_DISTINCT_CAP = 10_000;

export interface FacetBreakdown {
  /** The largest values; `value` null for errors that did not say (no user agent, release, page or user). */
  top: Array<{ value: string | null; count: number }>;
  /** Distinct known values (the users affected, for `user`); at most {@link BREAKDOWN_DISTINCT_CAP}: `distinct_capped` says more exist. */
  distinct: number;
  distinct_capped: boolean;
  /** Errors counted under the distinct values read: the share of a value is `count / total` unless capped. */
  total: number;
}

/**
 * One facet of an issue's breakdown: the largest values from the `issue_facets_largest` index (a few entries), and the
 * distinct values and their total from at most BREAKDOWN_DISTINCT_CAP + 2 of them.
 */
async function facetOf(db: Kysely<Database>, row: IssueRow, facet: IssueFacet): Promise<FacetBreakdown> {
  const ofFacet = db
    .selectFrom('issue_facets')
    .where('project_id', '=', row.project_id)
    .where('fingerprint', '=', row.fingerprint)
    .where('facet', '=', facet);
  const top = await ofFacet
    .select(['value', 'count'])
    .orderBy('count', 'desc')
    .orderBy('value', 'desc')
    .limit(BREAKDOWN_TOP)
    .execute();
  // The unknown value ('') is read too, for the total: one entry more than the cap.
  const read = ofFacet
    .select(['value', 'count'])
    .limit(BREAKDOWN_DISTINCT_CAP + 2)
    .as('v');
  const sums = await db
    .selectFrom(read)
    .select((eb) => [
      sql<number>`sum(case when v.value = '' then 0 else 1 end)`.as('distinct'),
      eb.fn.sum<number>('v.count').as('total'),
    ])
    .executeTakeFirstOrThrow();
  return {
    top: top.map((t) => ({ value: t.value === '' ? null : t.value, count: Number(t.count) })),
    distinct: Math.min(Number(sums.distinct ?? 0), BREAKDOWN_DISTINCT_CAP),
    distinct_capped: Number(sums.distinct ?? 0) > BREAKDOWN_DISTINCT_CAP,
    total: Number(sums.total ?? 0),
  };
}

/** An issue's production errors by browser, system, release, route and user (docs/issues.md, "Breakdown"). */
export async function breakdownOf(db: Kysely<Database>, row: IssueRow): Promise<Record<IssueFacet, FacetBreakdown>> {
  const out = {} as Record<IssueFacet, FacetBreakdown>;
  for (const facet of ISSUE_FACETS) out[facet] = await facetOf(db, row, facet);
  return out;
}
