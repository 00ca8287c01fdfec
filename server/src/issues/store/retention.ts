import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';

const HOUR_MS = 3_600_000;

/**
 * An issue outlives its events (its status, counts and first and last seen stay, as in Sentry), but the sessions it
 * hit and its hourly counts go with the telemetry they were read from: a session past retention has no replay to link.
 * These tables keep the reporter's clock; the cutoff is applied to it as it is.
 */
export async function pruneIssueFacts(db: Kysely<Database>, cutoffMs: number): Promise<Record<string, number>> {
  const sessions = await db.deleteFrom('issue_sessions').where('last_ms', '<', cutoffMs).executeTakeFirst();
  const hours = await db
    .deleteFrom('issue_hours')
    .where('hour_ms', '<', cutoffMs - HOUR_MS)
    .executeTakeFirst();
  // The sessions, runs and tests of test traffic (incidents/detect/test-sightings.ts); the issue's test counts stay.
  const testSessions = await db.deleteFrom('issue_test_sessions').where('seen_ms', '<', cutoffMs).executeTakeFirst();
  const testRuns = await db.deleteFrom('issue_test_runs').where('last_ms', '<', cutoffMs).executeTakeFirst();
  const tests = await db.deleteFrom('issue_tests').where('last_ms', '<', cutoffMs).executeTakeFirst();
  // Users, routes and browsers not seen since: a user id is personal data, kept no longer than the errors it came with.
  const facets = await db.deleteFrom('issue_facets').where('last_ms', '<', cutoffMs).executeTakeFirst();
  return {
    issue_sessions: Number(sessions.numDeletedRows),
    issue_hours: Number(hours.numDeletedRows),
    issue_test_sessions: Number(testSessions.numDeletedRows),
    issue_test_runs: Number(testRuns.numDeletedRows),
    issue_tests: Number(tests.numDeletedRows),
    issue_facets: Number(facets.numDeletedRows),
  };
}
