import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { REPLAY_MODES, type ReplayMode } from '../otlp/session-facts';

export interface SamplingScope {
  appId?: string;
  /** Sessions whose activity overlaps [from, to), as in the session listing. */
  from?: number;
  to?: number;
}

export interface SamplingSummary {
  sessions_received: number;
  /** Sessions before sampling: each received session stands for 1 / its sample rate (1 when none was sent). */
  sessions_estimated: number;
  /** received / estimated, rounded to 4 places; null without sessions. */
  sampled_share: number | null;
  /** Received sessions by `svc.replay.mode`; `unknown` for sessions that did not say (other OTLP senders). */
  replay_modes: Record<ReplayMode | 'unknown', number>;
  /** Sessions sampled for replay on error that did send a replay (an error happened). */
  replays_kept_on_error: number;
}

/**
 * How much of a project's traffic was sampled (GET /control-plane/sessions/sampling), from the session records: each
 * session is one row however often its batches were retried, so nothing is counted twice.
 */
export async function samplingSummary(
  db: Kysely<Database>,
  projectId: string,
  scope: SamplingScope,
): Promise<SamplingSummary> {
  let q = db
    .selectFrom('sessions')
    .select([
      'replay_mode',
      sql<string | number>`count(*)`.as('received'),
      sql<string | number>`sum(1.0 / coalesce(sample_rate, 1))`.as('estimated'),
      sql<string | number>`sum(case when replay_chunk_count > 0 then 1 else 0 end)`.as('with_replay'),
    ])
    .where('project_id', '=', projectId);
  if (scope.appId !== undefined) q = q.where('app_id', '=', scope.appId);
  if (scope.from !== undefined) q = q.where('last_ms', '>=', scope.from);
  if (scope.to !== undefined) q = q.where('first_ms', '<', scope.to);
  const groups = await q.groupBy('replay_mode').execute();

  const modes = Object.fromEntries([...REPLAY_MODES, 'unknown'].map((m) => [m, 0])) as SamplingSummary['replay_modes'];
  let received = 0;
  let estimated = 0;
  let keptOnError = 0;
  // PostgreSQL answers count and sum of integers as text (bigint, numeric).
  for (const g of groups) {
    const mode = (REPLAY_MODES as readonly (string | null)[]).includes(g.replay_mode)
      ? (g.replay_mode as ReplayMode)
      : 'unknown';
    modes[mode] += Number(g.received);
    received += Number(g.received);
    estimated += Number(g.estimated);
    if (mode === 'on_error') keptOnError = Number(g.with_replay);
  }
  return {
    sessions_received: received,
    sessions_estimated: Math.round(estimated),
    sampled_share: received === 0 ? null : Math.round((received / estimated) * 10_000) / 10_000,
    replay_modes: modes,
    replays_kept_on_error: keptOnError,
  };
}
