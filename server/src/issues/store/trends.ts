import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { iso } from '../../shared/time';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The two trends an issue shows, as Sentry's lists do: the last 24 hours by hour, the last 14 days by day. */
export const TREND_PERIODS = {
  '24h': { bucketMs: HOUR_MS, buckets: 24 },
  '14d': { bucketMs: DAY_MS, buckets: 14 },
} as const;
export type TrendPeriod = keyof typeof TREND_PERIODS;

export interface IssueTrend {
  period: TrendPeriod;
  /** Start of the first bucket; each bucket is `bucket_ms` long and the last one holds the current hour. */
  start: string;
  bucket_ms: number;
  counts: number[];
}

/**
 * The first bucket's start: buckets end with the current hour (the reporter's hours, as `issue_hours` keeps them), so
 * the 14-day trend's last "day" is the same 24 hours as the hourly trend, whatever the reader's time zone.
 */
function startOf(period: TrendPeriod, nowMs: number): number {
  const { bucketMs, buckets } = TREND_PERIODS[period];
  const nextHour = Math.floor(nowMs / HOUR_MS) * HOUR_MS + HOUR_MS;
  return nextHour - buckets * bucketMs;
}

/**
 * The errors per bucket of some issues of one project since `startMs`: the primary key of `issue_hours` (project,
 * fingerprint, hour) reads each issue's hours of the period and nothing else (test/integration/issues-api.test.ts
 * checks the plan on both databases).
 */
export function trendQuery(
  db: Kysely<Database>,
  projectId: string,
  fingerprints: readonly string[],
  startMs: number,
  bucketMs: number,
) {
  // Literals, not parameters: PostgreSQL groups by the select's expression only when the two are the same text.
  const bucket = sql<number>`(hour_ms - ${sql.lit(Math.trunc(startMs))}) / ${sql.lit(Math.trunc(bucketMs))}`;
  return db
    .selectFrom('issue_hours')
    .select(['fingerprint', bucket.as('bucket'), sql<number>`sum(count)`.as('count')])
    .where('project_id', '=', projectId)
    .where('fingerprint', 'in', fingerprints)
    .where('hour_ms', '>=', startMs)
    .groupBy(['fingerprint', bucket]);
}

/** Each issue's trend over `period` ending now, with zeros for the buckets without errors. */
export async function trendsOf(
  db: Kysely<Database>,
  projectId: string,
  fingerprints: readonly string[],
  period: TrendPeriod,
  nowMs: number,
): Promise<Map<string, IssueTrend>> {
  const { bucketMs, buckets } = TREND_PERIODS[period];
  const startMs = startOf(period, nowMs);
  const out = new Map<string, IssueTrend>();
  for (const fingerprint of fingerprints)
    out.set(fingerprint, {
      period,
      start: iso(startMs),
      bucket_ms: bucketMs,
      counts: new Array<number>(buckets).fill(0),
    });
  if (fingerprints.length === 0) return out;
  for (const row of await trendQuery(db, projectId, fingerprints, startMs, bucketMs).execute()) {
    const bucket = Number(row.bucket);
    // Hours stamped after now (a reporter's clock running ahead) fall outside the trend.
    if (bucket < buckets) out.get(row.fingerprint)!.counts[bucket] = Number(row.count);
  }
  return out;
}
