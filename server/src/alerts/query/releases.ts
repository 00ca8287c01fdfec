import { sql, type SqlBool } from 'kysely';
import { anyOf, type SignalContext } from './context';

/** Most releases read when placing one among them: a rule compares with the release just before. */
const MAX_RELEASES = 200;

export interface Release {
  release: string;
  /** When its first session began. */
  firstMs: number;
}

/**
 * The project's releases (of the context's apps), newest first by when their first session began: the order "the
 * previous release" is meant in. Walks the sessions' index by project and release.
 */
export async function releasesByFirstSeen(ctx: SignalContext): Promise<Release[]> {
  const where = [sql<SqlBool>`r.project_id = ${ctx.projectId}`, sql<SqlBool>`r.release is not null`];
  if (ctx.appIds !== undefined) where.push(anyOf(sql.ref('r.app_id'), ctx.appIds));
  const { rows } = await sql<{ release: string; first_ms: number | string }>`
    select r.release as release, min(r.first_ms) as first_ms from sessions as r where ${sql.join(where, sql` and `)}
    group by r.release order by first_ms desc limit ${MAX_RELEASES}`.execute(ctx.db);
  return rows.map((r) => ({ release: r.release, firstMs: Number(r.first_ms) }));
}

/**
 * The release a `previous_release` rule watches (the first its filter names, else the newest) and the one before it;
 * null when there is no such pair.
 */
export async function releasePair(
  ctx: SignalContext,
  named: readonly string[] | undefined,
): Promise<{ current: Release; previous: Release } | null> {
  const releases = await releasesByFirstSeen(ctx);
  const at = named === undefined ? 0 : releases.findIndex((r) => r.release === named[0]);
  const current = releases[at];
  const previous = at >= 0 ? releases[at + 1] : undefined;
  return current && previous ? { current, previous } : null;
}
