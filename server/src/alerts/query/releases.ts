import { listReleases, type ReleaseSeen } from '../../releases/store';
import type { AlertFilter } from '../rule';
import type { SignalContext } from './context';

/**
 * The release a `previous_release` rule watches (the first its filter names, else the newest) and the one first seen
 * before it (releases/store.ts, as the release comparison places them), among the releases of the rule's app when it
 * names one app (else of the project) and of its environment when it names one; null when there is no such pair.
 */
export async function releasePair(
  ctx: SignalContext,
  filter: AlertFilter | undefined,
): Promise<{ current: ReleaseSeen; previous: ReleaseSeen } | null> {
  const releases = await listReleases(ctx.db, {
    projectId: ctx.projectId,
    appId: ctx.appIds?.length === 1 ? ctx.appIds[0] : undefined,
    env: filter?.env?.length === 1 ? filter.env[0] : undefined,
  });
  const named = filter?.release?.[0];
  const at = named === undefined ? 0 : releases.findIndex((r) => r.release === named);
  const current = at >= 0 ? releases[at] : undefined;
  const previous = at >= 0 ? releases[at + 1] : undefined;
  return current && previous ? { current, previous } : null;
}
