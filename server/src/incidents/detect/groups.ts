import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { SecretBox } from '../../secrets/secret-box';
import { addToBuckets, type Buckets } from './buckets';
import type { ErrorOccurrence } from './error-records';
import { errorSignature, fingerprint, type ErrorSignature } from './fingerprint';
import { recordIssueFacts } from './issue-facts';
import { regressIfResolved } from './regression';
import type { StackFrames } from './stack-frames';
import type { DetectionTables, LastEvent } from './tables';

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

/** What counting needs besides the errors. */
export interface RecordContext {
  windowMs: number;
  now: number;
  /** The errors' symbolicated stacks, loaded before the transaction. */
  frames: StackFrames;
  /** Base URL of the server and the key that signs links, for the issue page link in a regression notice. */
  publicUrl: string;
  box: SecretBox;
}

function tally(occurrences: ErrorOccurrence[], frames: StackFrames): Tally[] {
  const groups = new Map<string, Tally>();
  for (const occurrence of occurrences) {
    const signature = errorSignature(occurrence.raw, frames.of(occurrence) ?? undefined);
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
const newestOf = (list: ErrorOccurrence[]) => list.reduce((a, b) => (b.timeMs >= a.timeMs ? b : a));

/** The raw facts of an error, kept so that reading the issue symbolicates it with the maps known then. */
function lastEventOf(o: ErrorOccurrence): LastEvent {
  return { stacktrace: o.raw.stacktrace ?? null, debug_ids: Object.fromEntries(o.debugIds), release: o.release, time_ms: o.timeMs, session_id: o.sessionId };
}

/**
 * Counts errors into their groups (the issues) and the groups' sessions, hours and releases, and regresses resolved
 * issues that occur again. Runs in the transaction that holds the read cursors, so no two processes count the same
 * rows or update a group's counts at once; it never writes the incident columns, which the detector sets outside that
 * transaction, nor a status other than `resolved` → `regressed`.
 */
export async function recordErrors(trx: DetectionTrx, occurrences: ErrorOccurrence[], context: RecordContext): Promise<GroupRef[]> {
  const tallies = tally(occurrences, context.frames);
  for (const t of tallies) {
    const existing = await upsertGroup(trx, t, context);
    await recordSessions(trx, t.ref, t.occurrences);
    await recordIssueFacts(trx, t.ref, t.occurrences);
    if (existing) await regressIfResolved(trx, existing, t.occurrences, context);
  }
  return tallies.map((t) => t.ref);
}

/** Adds a tally to its group, creating the group on its first error; answers the group as it was before. */
async function upsertGroup(trx: DetectionTrx, { ref, first, signature, occurrences: list }: Tally, { windowMs, now }: RecordContext): Promise<GroupRow | undefined> {
  const existing = await trx
    .selectFrom('detection_groups')
    .selectAll()
    .where('project_id', '=', ref.projectId)
    .where('fingerprint', '=', ref.fingerprint)
    .executeTakeFirst();
  const received = list.map((o) => o.receivedMs);
  const seen = list.map((o) => o.timeMs);
  const previous: Buckets = existing ? (JSON.parse(existing.buckets) as Buckets) : [];
  const newest = newestOf(list);
  const counts = {
    last_seen_ms: Math.max(existing?.last_seen_ms ?? -Infinity, maxOf(seen)),
    last_received_ms: Math.max(existing?.last_received_ms ?? -Infinity, maxOf(received)),
    total_count: (existing?.total_count ?? 0) + list.length,
    buckets: JSON.stringify(addToBuckets(previous, received, windowMs, now)),
    // A late batch of older errors leaves the newest one in place.
    ...(existing && newest.timeMs < existing.last_seen_ms ? {} : { last_release: newest.release, last_event: JSON.stringify(lastEventOf(newest)) }),
  };
  if (existing) {
    await trx
      .updateTable('detection_groups')
      .set({ ...counts, first_seen_ms: Math.min(existing.first_seen_ms, minOf(seen)) })
      .where('project_id', '=', ref.projectId)
      .where('fingerprint', '=', ref.fingerprint)
      .execute();
    return existing;
  }
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
      top_source: signature.frame?.source ? JSON.stringify(signature.frame.source) : null,
      first_seen_ms: minOf(seen),
      first_release: first.release,
      incident_id: null,
      incident_base_total: 0,
      incident_open_count: 0,
      reset_total: 0,
      status: 'unresolved',
      in_next_release: 0,
      session_count: 0,
      ...counts,
    })
    .execute();
  return undefined;
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
