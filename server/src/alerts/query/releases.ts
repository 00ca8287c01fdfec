import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { listReleases, type ReleaseScope, type ReleaseSeen } from '../../releases/store';
import type { AlertFilter } from '../rule';
import type { SignalContext } from './context';

/**
 * How long a scope's list of releases is reused: placing releases groups every session of the scope by release (about
 * half a second at 270,000 sessions on PostgreSQL, bench:rules), and a release appears a few times a day. Each
 * previous-release rule reads the list twice per evaluation (its value and its baseline), every rule of a scope reads
 * the same one, and a new release is seen within this time.
 */
export const RELEASES_REUSE_MS = 60_000;
/** Scopes remembered per database, at most: past it the oldest go. */
const MAX_SCOPES = 1_000;

const remembered = new WeakMap<Kysely<Database>, Map<string, { atMs: number; releases: Promise<ReleaseSeen[]> }>>();

/** The scope's releases (releases/store.ts), as read at most {@link RELEASES_REUSE_MS} before `nowMs`. */
function releasesOf(db: Kysely<Database>, scope: ReleaseScope, nowMs: number): Promise<ReleaseSeen[]> {
  let byScope = remembered.get(db);
  if (!byScope) remembered.set(db, (byScope = new Map()));
  const key = JSON.stringify([scope.projectId, scope.appId ?? null, scope.env ?? null]);
  const seen = byScope.get(key);
  if (seen && nowMs >= seen.atMs && nowMs - seen.atMs < RELEASES_REUSE_MS) return seen.releases;
  const releases = listReleases(db, scope);
  // A failed read is not reused (unless a newer one took its place meanwhile).
  releases.catch(() => byScope.get(key)?.releases === releases && byScope.delete(key));
  byScope.delete(key);
  byScope.set(key, { atMs: nowMs, releases });
  for (const oldest of byScope.keys()) {
    if (byScope.size <= MAX_SCOPES) break;
    byScope.delete(oldest);
  }
  return releases;
}

/**
 * The release a `previous_release` rule watches (the first its filter names, else the newest) and the one first seen
 * before it (releases/store.ts, as the release comparison places them), among the releases of the rule's app when it
 * names one app (else of the project) and of its environment when it names one; null when there is no such pair.
 * The list is reused for {@link RELEASES_REUSE_MS}.
 */
export async function releasePair(
  ctx: SignalContext,
  filter: AlertFilter | undefined,
): Promise<{ current: ReleaseSeen; previous: ReleaseSeen } | null> {
  const scope = {
    projectId: ctx.projectId,
    appId: ctx.appIds?.length === 1 ? ctx.appIds[0] : undefined,
    env: filter?.env?.length === 1 ? filter.env[0] : undefined,
  };
  const releases = await releasesOf(ctx.db, scope, ctx.nowMs);
  const named = filter?.release?.[0];
  const at = named === undefined ? 0 : releases.findIndex((r) => r.release === named);
  const current = at >= 0 ? releases[at] : undefined;
  const previous = at >= 0 ? releases[at + 1] : undefined;
  return current && previous ? { current, previous } : null;
}
