import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { addToBuckets, type Buckets } from './buckets';
import type { ErrorOccurrence } from './error-records';
import { errorSignature, fingerprint, type ErrorSignature } from './fingerprint';
import type { DetectionTables } from './tables';

/** The database as the detector sees it: the server's tables and its own. */
export type DetectionDb = Kysely<Database>;
export type DetectionTrx = Transaction<Database & DetectionTables>;
export type GroupRow = Selectable<DetectionTables['detection_groups']>;

/** A group by its key. */
export interface GroupRef {
  projectId: string;
  fingerprint: string;
}

interface Tally {
  ref: GroupRef;
  first: ErrorOccurrence;
  signature: ErrorSignature;
  occurrences: ErrorOccurrence[];
}

function tally(occurrences: ErrorOccurrence[]): Tally[] {
  const groups = new Map<string, Tally>();
  for (const occurrence of occurrences) {
    const signature = errorSignature(occurrence.raw);
    const key = fingerprint(occurrence.appId, occurrence.env, signature);
    const mapKey = `${occurrence.projectId}\n${key}`;
    const group = groups.get(mapKey);
    if (group) group.occurrences.push(occurrence);
    else groups.set(mapKey, { ref: { projectId: occurrence.projectId, fingerprint: key }, first: occurrence, signature, occurrences: [occurrence] });
  }
  return [...groups.values()];
}

const minOf = (values: number[]) => values.reduce((a, b) => Math.min(a, b));
const maxOf = (values: number[]) => values.reduce((a, b) => Math.max(a, b));

/**
 * Counts errors into their groups and the groups' sessions. Runs in the transaction that holds the read cursors, so
 * no two processes count the same rows or update a group's counts at once; it never writes the incident columns,
 * which the detector sets outside that transaction.
 */
export async function recordErrors(trx: DetectionTrx, occurrences: ErrorOccurrence[], windowMs: number, now: number): Promise<GroupRef[]> {
  const tallies = tally(occurrences);
  for (const { ref, first, signature, occurrences: list } of tallies) {
    const existing = await trx
      .selectFrom('detection_groups')
      .selectAll()
      .where('project_id', '=', ref.projectId)
      .where('fingerprint', '=', ref.fingerprint)
      .executeTakeFirst();
    const received = list.map((o) => o.receivedMs);
    const seen = list.map((o) => o.timeMs);
    const previous: Buckets = existing ? (JSON.parse(existing.buckets) as Buckets) : [];
    const counts = {
      last_seen_ms: Math.max(existing?.last_seen_ms ?? -Infinity, maxOf(seen)),
      last_received_ms: Math.max(existing?.last_received_ms ?? -Infinity, maxOf(received)),
      total_count: (existing?.total_count ?? 0) + list.length,
      buckets: JSON.stringify(addToBuckets(previous, received, windowMs, now)),
    };
    if (existing) {
      await trx
        .updateTable('detection_groups')
        .set({ ...counts, first_seen_ms: Math.min(existing.first_seen_ms, minOf(seen)) })
        .where('project_id', '=', ref.projectId)
        .where('fingerprint', '=', ref.fingerprint)
        .execute();
    } else {
      await trx
        .insertInto('detection_groups')
        .values({
          project_id: ref.projectId,
          fingerprint: ref.fingerprint,
          app_id: first.appId,
          env: first.env,
          error_type: signature.type,
          message: signature.message,
          sample_message: signature.sampleMessage,
          top_frame: signature.frame?.label ?? null,
          top_file: signature.frame?.file ?? null,
          first_seen_ms: minOf(seen),
          first_release: first.release,
          incident_id: null,
          incident_base_total: 0,
          incident_open_count: 0,
          reset_total: 0,
          ...counts,
        })
        .execute();
    }
    await recordSessions(trx, ref, list);
  }
  return tallies.map((t) => t.ref);
}

async function recordSessions(trx: DetectionTrx, ref: GroupRef, occurrences: ErrorOccurrence[]): Promise<void> {
  const lastBySession = new Map<string, number>();
  for (const o of occurrences) {
    if (o.sessionId !== null) lastBySession.set(o.sessionId, Math.max(lastBySession.get(o.sessionId) ?? 0, o.receivedMs));
  }
  for (const [sessionId, lastMs] of lastBySession) {
    await trx
      .insertInto('detection_sessions')
      .values({ project_id: ref.projectId, fingerprint: ref.fingerprint, session_id: sessionId, last_ms: lastMs })
      .onConflict((oc) => oc.columns(['project_id', 'fingerprint', 'session_id']).doUpdateSet({ last_ms: (eb) => eb.ref('excluded.last_ms') }))
      .execute();
  }
}

/** Forgets the sessions of a group last seen before `beforeMs`: they no longer count as affected. */
export async function forgetSessions(db: DetectionDb, ref: GroupRef, beforeMs: number): Promise<void> {
  await db
    .deleteFrom('detection_sessions')
    .where('project_id', '=', ref.projectId)
    .where('fingerprint', '=', ref.fingerprint)
    .where('last_ms', '<', beforeMs)
    .execute();
}
