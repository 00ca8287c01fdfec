import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import type { SecretBox } from '../../secrets/secret-box';
import { addToBuckets, type Buckets } from './buckets';
import { groupingEnv, type ErrorOccurrence } from './error-records';
import { errorSignature, fingerprint, type ErrorSignature } from './fingerprint';
import { recordIssueBreakdown } from './issue-breakdown-facts';
import { recordIssueFacts } from './issue-facts';
import { regressIfResolved } from './regression';
import { recordTestSightings } from './test-sightings';
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
    const key = fingerprint(occurrence.appId, groupingEnv(occurrence), signature);
    const mapKey = `${occurrence.projectId}\n${key}`;
    const group = groups.get(mapKey);
    if (group) group.occurrences.push(occurrence);
    else
      groups.set(mapKey, {
        ref: { projectId: occurrence.projectId, fingerprint: key },
        first: occurrence,
        signature,
        occurrences: [occurrence],
      });
  }
  return [...groups.values()];
}

const minOf = (values: number[]) => values.reduce((a, b) => Math.min(a, b));
const maxOf = (values: number[]) => values.reduce((a, b) => Math.max(a, b));
const newestOf = (list: ErrorOccurrence[]) => list.reduce((a, b) => (b.timeMs >= a.timeMs ? b : a));

/** The raw facts of an error, kept so that reading the issue symbolicates it with the maps known then. */
function lastEventOf(o: ErrorOccurrence): LastEvent {
  return {
    stacktrace: o.raw.stacktrace ?? null,
    debug_ids: Object.fromEntries(o.debugIds),
    release: o.release,
    time_ms: o.timeMs,
    session_id: o.sessionId,
    trace_id: o.traceId,
  };
}

/**
 * Counts errors into their groups (the issues) and the groups' sessions, hours and releases, and regresses resolved
 * issues that occur again. Runs in the transaction that holds the read cursors, so no two processes count the same
 * rows or update a group's counts at once; it never writes the incident columns, which the detector sets outside that
 * transaction, nor a status other than `resolved` → `regressed`.
 *
 * Test traffic is counted apart (test-sightings.ts): it joins its group, but never its production counts, windows,
 * sessions or regressions, so it never opens an incident nor notifies. Only groups with production errors are
 * answered as touched: the detector has nothing to evaluate in the others.
 */
export async function recordErrors(
  trx: DetectionTrx,
  occurrences: ErrorOccurrence[],
  context: RecordContext,
): Promise<GroupRef[]> {
  const touched: GroupRef[] = [];
  for (const t of tally(occurrences, context.frames)) {
    const production = t.occurrences.filter((o) => o.test === null);
    const tests = t.occurrences.filter((o) => o.test !== null);
    const existing = await upsertGroup(trx, t, production, context);
    if (tests.length > 0) await recordTestSightings(trx, t.ref, tests);
    if (production.length === 0) continue;
    await recordSessions(trx, t.ref, production);
    await recordIssueFacts(trx, t.ref, production);
    await recordIssueBreakdown(trx, t.ref, production);
    if (existing) await regressIfResolved(trx, existing, production, context);
    touched.push(t.ref);
  }
  return touched;
}

/**
 * Adds a tally's production errors to its group, creating the group on its first error (of either kind); answers the
 * group as it was before. A group seen only in tests so far has no production figures yet: its first production errors
 * set them instead of merging with the tests' times, and a group created by a test error says `caught_in_tests`.
 */
async function upsertGroup(
  trx: DetectionTrx,
  { ref, first, signature, occurrences: all }: Tally,
  production: ErrorOccurrence[],
  { windowMs, now }: RecordContext,
): Promise<GroupRow | undefined> {
  const existing = await trx
    .selectFrom('detection_groups')
    .selectAll()
    .where('project_id', '=', ref.projectId)
    .where('fingerprint', '=', ref.fingerprint)
    .executeTakeFirst();
  if (existing && production.length === 0) return existing;
  const prior = existing && Number(existing.total_count) > 0 ? existing : undefined;
  // A new group seen only in tests takes its times and newest event from them, with no production count.
  const list = production.length > 0 ? production : all;
  const received = list.map((o) => o.receivedMs);
  const seen = list.map((o) => o.timeMs);
  const previous: Buckets = existing ? (JSON.parse(existing.buckets) as Buckets) : [];
  const newest = newestOf(list);
  const counts = {
    last_seen_ms: Math.max(prior?.last_seen_ms ?? -Infinity, maxOf(seen)),
    last_received_ms: Math.max(prior?.last_received_ms ?? -Infinity, maxOf(received)),
    total_count: (existing?.total_count ?? 0) + production.length,
    buckets: JSON.stringify(addToBuckets(previous, production, windowMs, now)),
    // A late batch of older errors leaves the newest one in place.
    ...(prior && newest.timeMs < prior.last_seen_ms
      ? {}
      : { last_release: newest.release, last_event: JSON.stringify(lastEventOf(newest)) }),
  };
  if (existing) {
    await trx
      .updateTable('detection_groups')
      .set({
        ...counts,
        first_seen_ms: Math.min(prior?.first_seen_ms ?? Infinity, minOf(seen)),
        ...(prior ? {} : { first_release: list[0]!.release }),
      })
      .where('project_id', '=', ref.projectId)
      .where('fingerprint', '=', ref.fingerprint)
      .execute();
    return existing;
  }
  const firstTest = minOf(
    all
      .filter((o) => o.test !== null)
      .map((o) => o.timeMs)
      .concat(Infinity),
  );
  await trx
    .insertInto('detection_groups')
    .values({
      project_id: ref.projectId,
      fingerprint: ref.fingerprint,
      app_id: first.appId,
      env: groupingEnv(first),
      error_type: signature.type,
      message: signature.message,
      sample_message: signature.sampleMessage,
      top_frame: signature.frame?.label ?? null,
      top_file: signature.frame?.file ?? null,
      top_source: signature.frame?.source ? JSON.stringify(signature.frame.source) : null,
      first_seen_ms: minOf(seen),
      first_release: list[0]!.release,
      incident_id: null,
      incident_base_total: 0,
      incident_open_count: 0,
      reset_total: 0,
      status: 'unresolved',
      in_next_release: 0,
      session_count: 0,
      test_count: 0,
      test_session_count: 0,
      test_run_count: 0,
      caught_in_tests: firstTest < minOf(production.map((o) => o.timeMs).concat(Infinity)) ? 1 : 0,
      ...counts,
    })
    .execute();
  return undefined;
}

async function recordSessions(trx: DetectionTrx, ref: GroupRef, occurrences: ErrorOccurrence[]): Promise<void> {
  const lastBySession = new Map<string, number>();
  for (const o of occurrences) {
    if (o.sessionId !== null)
      lastBySession.set(o.sessionId, Math.max(lastBySession.get(o.sessionId) ?? 0, o.receivedMs));
  }
  for (const [sessionId, lastMs] of lastBySession) {
    await trx
      .insertInto('detection_sessions')
      .values({ project_id: ref.projectId, fingerprint: ref.fingerprint, session_id: sessionId, last_ms: lastMs })
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'fingerprint', 'session_id'])
          .doUpdateSet({ last_ms: (eb) => eb.ref('excluded.last_ms') }),
      )
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

/** The incident bookkeeping of a group: which incident its errors belong to, and the counts it was opened at. */
export type GroupIncidentChanges = Partial<
  Pick<GroupRow, 'incident_id' | 'incident_base_total' | 'incident_open_count' | 'reset_total'>
>;

export async function setGroupIncident(db: DetectionDb, group: GroupRow, changes: GroupIncidentChanges): Promise<void> {
  await db
    .updateTable('detection_groups')
    .set(changes)
    .where('project_id', '=', group.project_id)
    .where('fingerprint', '=', group.fingerprint)
    .execute();
}

/** A group's key as one string. */
export const groupKey = (ref: GroupRef) => `${ref.projectId}\n${ref.fingerprint}`;

/** Fingerprints per `in (…)` list. */
const CHUNK = 500;

/** Groups that got errors in this run (`touched`), and those with an open incident (which may have gone quiet). */
export async function candidateGroups(db: DetectionDb, touched: Iterable<GroupRef>): Promise<GroupRow[]> {
  const rows = await db.selectFrom('detection_groups').selectAll().where('incident_id', 'is not', null).execute();
  const fingerprints = [...new Set([...touched].map((r) => r.fingerprint))];
  for (let i = 0; i < fingerprints.length; i += CHUNK) {
    const chunk = fingerprints.slice(i, i + CHUNK);
    rows.push(...(await db.selectFrom('detection_groups').selectAll().where('fingerprint', 'in', chunk).execute()));
  }
  const unique = new Map(rows.map((r) => [groupKey({ projectId: r.project_id, fingerprint: r.fingerprint }), r]));
  return [...unique.values()];
}

/** An app's name (for an incident's services), remembered for the detector's life; its id when it has none. */
export function appNames(db: DetectionDb): (appId: string) => Promise<string> {
  const names = new Map<string, string>();
  return async (appId) => {
    let name = names.get(appId);
    if (name === undefined) {
      name = (await db.selectFrom('apps').select('name').where('id', '=', appId).executeTakeFirst())?.name ?? appId;
      names.set(appId, name);
    }
    return name;
  };
}
