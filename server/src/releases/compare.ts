import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { iso } from '../shared/time';
import { MAX_VITAL_POINTS } from '../vitals/store';
import { p75, perVital, rate, VITAL_OF_METRIC } from '../vitals/summary';
import { releaseVitalPoints, sessionCounts, spanCounts, type ReleaseScope, type ReleaseSeen } from './store';

/** `part` of `whole` as a share in 0..1; null when there is no whole (no data is not zero). */
const share = (part: number, whole: number) => (whole === 0 ? null : part / whole);

/**
 * Web Vitals p75 (nearest rank, as the Web Vitals page), span error rate and error-free sessions of one release, over
 * its newest sessions (store.ts, MAX_RELEASE_SESSIONS).
 */
export async function releaseFigures(db: Kysely<Database>, scope: ReleaseScope, seen: ReleaseSeen) {
  const [sessions, spans, points] = await Promise.all([
    sessionCounts(db, scope, seen.release),
    spanCounts(db, scope, seen.release),
    releaseVitalPoints(db, scope, seen.release),
  ]);
  const values = perVital<number[]>(() => []);
  for (const point of points.slice(0, MAX_VITAL_POINTS)) values[VITAL_OF_METRIC.get(point.name)!].push(point.value!);
  const percentiles = perVital((n) => p75(values[n]));
  return {
    release: seen.release,
    first_seen: iso(seen.firstSeenMs),
    sessions: seen.sessions,
    sessions_read: sessions.read,
    error_free_sessions: sessions.errorFree,
    error_free_share: share(sessions.errorFree, sessions.read),
    spans: spans.spans,
    span_errors: spans.errors,
    span_error_rate: share(spans.errors, spans.spans),
    vitals: {
      p75: percentiles,
      rating: perVital((n) => (percentiles[n] === null ? null : rate(n, percentiles[n]))),
      samples: perVital((n) => values[n].length),
      truncated: points.length > MAX_VITAL_POINTS,
    },
  };
}

export type ReleaseFigures = Awaited<ReturnType<typeof releaseFigures>>;

/** How far `now` moved from `before`: the difference, and it as a percentage of `before` (null from zero). */
function change(now: number | null, before: number | null) {
  if (now === null || before === null) return { delta: null, percent: null };
  return { delta: now - before, percent: before === 0 ? null : ((now - before) / before) * 100 };
}

/** What changed from `previous` to `current`: each vital's p75, the span error rate, the error-free share. */
export function releaseChanges(current: ReleaseFigures, previous: ReleaseFigures) {
  return {
    vitals_p75: perVital((n) => change(current.vitals.p75[n], previous.vitals.p75[n])),
    span_error_rate: change(current.span_error_rate, previous.span_error_rate),
    error_free_share: change(current.error_free_share, previous.error_free_share),
  };
}
