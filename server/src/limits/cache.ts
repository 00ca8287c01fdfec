import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import type { LimitDefaults } from './signals';
import { effectiveLimits, projectLimits } from './store';

/** How long a project's limits are kept: another replica's change applies here within this. */
const LIMITS_TTL_MS = 5_000;

export interface LimitsCache {
  /** The limits in force for a project: its own over the server's defaults, read at most every few seconds. */
  of(projectId: string): Promise<LimitDefaults>;
  /** Forgets a project's limits after a change, so this process applies the new ones at once. */
  forget(projectId: string): void;
}

export function createLimitsCache(db: Kysely<Database>, clock: Clock, defaults: LimitDefaults): LimitsCache {
  const cached = new Map<string, { limits: LimitDefaults; readMs: number }>();
  return {
    async of(projectId) {
      const now = clock.now();
      const known = cached.get(projectId);
      if (known && now - known.readMs < LIMITS_TTL_MS) return known.limits;
      const limits = effectiveLimits(defaults, await projectLimits(db, projectId));
      cached.set(projectId, { limits, readMs: now });
      return limits;
    },
    forget: (projectId) => void cached.delete(projectId),
  };
}
