import { sql, type SqlBool } from 'kysely';
import { traceKey } from '../../db/trace-key';
import type { IncidentEvidence } from '../types';
import { resourceFacts } from './error-records';
import type { DetectionDb, GroupRow } from './groups';
import type { BurstEvidence } from './root-cause';
import type { FrameSource, LastEvent } from './tables';

/** Sessions and failing requests listed in an incident's evidence. */
const SAMPLE_SIZE = 10;
/** Recent sessions looked at to pick the sample, so that sessions with a replay can come first. */
const SESSION_CANDIDATES = 50;
/** Failing spans looked at per incident: enough to count them, bounded for a flood. */
const FAILING_SCAN = 1000;

export interface EvidenceSources {
  db: DetectionDb;
  publicUrl: string;
  windowMs: number;
}

export interface GatheredEvidence {
  evidence: BurstEvidence;
  /** Failing requests found, of which the evidence lists up to ten. */
  failingTotal: number;
}

type FailingRequest = IncidentEvidence['failing_requests'][number];

const iso = (ms: number) => new Date(ms).toISOString();

/** The console page that plays a session's replay. */
export function replayUrl(publicUrl: string, sessionId: string): string {
  return `${publicUrl}/session/${encodeURIComponent(sessionId)}`;
}

/**
 * The HTTP outcome of a failing request span: `{ status }` for an answer ≥ 500, `{ status: null }` for a request that
 * got no answer (span status error without an HTTP status, or the status 0 browser instrumentations record for a
 * network error); undefined for any other span.
 */
export function failingOutcome(
  attributes: Record<string, unknown>,
  statusCode: number,
): { status: number | null } | undefined {
  const raw = attributes['http.response.status_code'] ?? attributes['http.status_code'];
  const status = raw === undefined || raw === null || raw === '' ? undefined : Number(raw);
  if (status !== undefined && status >= 500) return { status };
  if (status === 0 || (status === undefined && statusCode === 2)) return { status: null };
  return undefined;
}

/** What the evidence counts: the errors of the burst, its first error's time (the reporter's), and since when (the server's) its sessions count. */
export interface Burst {
  errorCount: number;
  startedMs: number;
  sessionsSinceMs: number;
}

/**
 * Evidence of a group's incident: the group's error, its count and when the burst began, the sessions it hit since
 * `sessionsSinceMs` (time of receipt) with replay links, and the requests that failed before the group's errors in
 * their sessions or trace (failingRequests).
 */
export async function gatherEvidence(
  sources: EvidenceSources,
  group: GroupRow,
  { errorCount, startedMs, sessionsSinceMs }: Burst,
): Promise<GatheredEvidence> {
  const { db } = sources;
  const sessionsOfGroup = db
    .selectFrom('detection_sessions')
    .where('project_id', '=', group.project_id)
    .where('fingerprint', '=', group.fingerprint)
    .where('last_ms', '>=', sessionsSinceMs);
  const { n } = await sessionsOfGroup.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  const candidates = (
    await sessionsOfGroup.select('session_id').orderBy('last_ms', 'desc').limit(SESSION_CANDIDATES).execute()
  ).map((r) => r.session_id);
  const failing = await failingRequests(sources, group);
  const withReplay = await sessionsWithReplay(db, group.project_id, [
    ...candidates,
    ...failing.flatMap((f) => (f.sessionId ? [f.sessionId] : [])),
  ]);
  const link = (sessionId: string | null) =>
    sessionId !== null && withReplay.has(sessionId) ? replayUrl(sources.publicUrl, sessionId) : null;
  const sample = [
    ...candidates.filter((s) => withReplay.has(s)),
    ...candidates.filter((s) => !withReplay.has(s)),
  ].slice(0, SAMPLE_SIZE);

  return {
    failingTotal: failing.length,
    evidence: {
      fingerprint: group.fingerprint,
      error_type: group.error_type,
      message: group.message,
      top_frame: group.top_frame,
      ...(group.top_source === null ? {} : { top_frame_source: JSON.parse(group.top_source) as FrameSource }),
      error_count: errorCount,
      first_seen_release: group.first_release,
      first_seen_at: iso(group.first_seen_ms),
      last_seen_at: iso(group.last_seen_ms),
      burst_started_at: iso(startedMs),
      affected_sessions: Number(n),
      sessions: sample.map((session_id) => ({ session_id, replay_url: link(session_id) })),
      failing_requests: failing
        .slice(0, SAMPLE_SIZE)
        .map(({ sessionId, ...request }) => ({ ...request, replay_url: link(sessionId) })),
    },
  };
}

/** The sessions among `sessionIds` that have a replay. */
export async function sessionsWithReplay(
  db: DetectionDb,
  projectId: string,
  sessionIds: string[],
): Promise<Set<string>> {
  if (sessionIds.length === 0) return new Set();
  const rows = await db
    .selectFrom('replay_chunks')
    .select('session_id')
    .distinct()
    .where('project_id', '=', projectId)
    .where('session_id', 'in', [...new Set(sessionIds)])
    .execute();
  return new Set(rows.map((r) => r.session_id));
}

/**
 * Failing request spans that may have caused the group's errors, newest first: in the window before its latest error,
 * of its environment, and either in a session it hit, before that session's last error of it, or in the trace of its
 * newest error, before that error. A request that failed elsewhere in the project at the same time is another user's
 * problem, not this error's cause.
 */
async function failingRequests(
  sources: EvidenceSources,
  group: GroupRow,
): Promise<Array<Omit<FailingRequest, 'replay_url'> & { sessionId: string | null }>> {
  const last = group.last_event === null ? null : (JSON.parse(group.last_event) as LastEvent);
  const traceId = last?.trace_id ?? null;
  const beforeItsError = sql<SqlBool>`exists (select 1 from issue_sessions i where i.project_id = s.project_id and i.fingerprint = ${group.fingerprint} and i.session_id = s.session_id and s.time_ms <= i.last_ms)`;
  const rows = await sources.db
    .selectFrom('spans as s')
    .select([
      's.trace_id',
      's.span_id',
      's.name',
      's.time_ms',
      's.status_code',
      's.attributes',
      's.resource',
      's.session_id',
    ])
    .where('s.project_id', '=', group.project_id)
    .where('s.time_ms', '>=', group.last_seen_ms - sources.windowMs)
    .where('s.time_ms', '<=', group.last_seen_ms)
    .where((eb) =>
      traceId === null || last === null
        ? beforeItsError
        : eb.or([
            beforeItsError,
            eb.and([
              eb('s.trace_key', '=', traceKey(traceId)),
              eb('s.trace_id', '=', traceId),
              eb('s.time_ms', '<=', last.time_ms),
            ]),
          ]),
    )
    // A coarse filter on the JSON text; failingOutcome decides.
    .where((eb) =>
      eb.or([
        eb('s.status_code', '=', 2),
        eb('s.attributes', 'like', '%status_code":5%'),
        eb('s.attributes', 'like', '%status_code":"5%'),
        eb('s.attributes', 'like', '%status_code":0%'),
      ]),
    )
    .orderBy('s.time_ms', 'desc')
    .limit(FAILING_SCAN)
    .execute();
  return rows.flatMap((row) => {
    const attributes = JSON.parse(row.attributes) as Record<string, unknown>;
    const outcome = failingOutcome(attributes, row.status_code);
    if (!outcome || resourceFacts(row.resource).env !== group.env) return [];
    const url = attributes['url.full'] ?? attributes['http.url'];
    return [
      {
        trace_id: row.trace_id,
        span_id: row.span_id,
        name: row.name,
        url: typeof url === 'string' ? url : null,
        status: outcome.status,
        at: iso(row.time_ms),
        sessionId: row.session_id,
      },
    ];
  });
}
