import type { Kysely } from 'kysely';
import { deleteOlderThan, type BatchOptions } from '../../db/batched-delete';
import type { Database } from '../../db/schema';

const HOUR_MS = 3_600_000;

/** The issue facts that age, each by its time column and primary key. */
const FACTS = [
  { table: 'issue_sessions', time: 'last_ms', key: ['project_id', 'fingerprint', 'session_id'] },
  // An hour goes once all of it is past the cutoff.
  { table: 'issue_hours', time: 'hour_ms', key: ['project_id', 'fingerprint', 'hour_ms'], slackMs: HOUR_MS },
  // The sessions, runs and tests of test traffic (incidents/detect/test-sightings.ts); the issue's test counts stay.
  { table: 'issue_test_sessions', time: 'seen_ms', key: ['project_id', 'fingerprint', 'session_id'] },
  { table: 'issue_test_runs', time: 'last_ms', key: ['project_id', 'fingerprint', 'run_id'] },
  { table: 'issue_tests', time: 'last_ms', key: ['project_id', 'fingerprint', 'test_id'] },
  // Users, routes and browsers not seen since: a user id is personal data, kept no longer than the errors it came with.
  { table: 'issue_facets', time: 'last_ms', key: ['project_id', 'fingerprint', 'facet', 'value'] },
] as const;

/**
 * An issue outlives its events (its status, counts and first and last seen stay, as in Sentry), but the sessions it
 * hit and its hourly counts go with the telemetry they were read from: a session past retention has no replay to link.
 * These tables keep the reporter's clock; the cutoff is applied to it as it is. Deletes one project's, in batches.
 */
export async function pruneIssueFacts(
  db: Kysely<Database>,
  projectId: string,
  cutoffMs: number,
  options: BatchOptions = {},
): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const fact of FACTS) {
    const cutoff = cutoffMs - ('slackMs' in fact ? fact.slackMs : 0);
    deleted[fact.table] = await deleteOlderThan(
      db,
      { ...fact, owner: { column: 'project_id', id: projectId } },
      cutoff,
      options,
    );
  }
  return deleted;
}
