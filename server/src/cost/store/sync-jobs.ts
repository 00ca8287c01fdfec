import type { Kysely } from 'kysely';
import type { DialectName } from '../../db/connect';
import type { Database } from '../../db/schema';
import type { ProviderRow, SyncRow } from './providers';

/** What a finished run writes to its job row besides releasing the lease. */
export type RunRecord = Partial<Omit<SyncRow, 'provider_id' | 'project_id' | 'lease_owner' | 'lease_until_ms'>>;

/**
 * The sync job rows as one worker process (`owner`) sees them: it claims a due job with a lease, renews the lease while
 * it reads, and records the run, each a single conditional statement, so across replicas a job runs in one process at
 * a time and a crashed process's job is taken over once its lease has run out.
 */
export function syncJobStore(db: Kysely<Database>, dialect: DialectName, owner: string, leaseMs: number) {
  return {
    owner,
    /** Takes the job due first that no live lease holds, or undefined when none is due. */
    claimDue(nowMs: number): Promise<SyncRow | undefined> {
      const due = db
        .selectFrom('cost_syncs')
        .select('provider_id')
        .where('next_run_ms', '<=', nowMs)
        .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', nowMs)]))
        .orderBy('next_run_ms')
        .limit(1);
      return db
        .with(
          (cte) => cte('due').materialized(),
          () => (dialect === 'postgres' ? due.forUpdate().skipLocked() : due),
        )
        .updateTable('cost_syncs')
        .set({ lease_owner: owner, lease_until_ms: nowMs + leaseMs, last_started_ms: nowMs })
        .where('provider_id', 'in', (eb) => eb.selectFrom('due').select('due.provider_id'))
        .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', nowMs)]))
        .returningAll()
        .executeTakeFirst();
    },

    /** Extends this process's lease on a job it runs (a no-op once another process has taken it). */
    async renewLease(providerId: string, nowMs: number): Promise<void> {
      await db
        .updateTable('cost_syncs')
        .set({ lease_until_ms: nowMs + leaseMs })
        .where('provider_id', '=', providerId)
        .where('lease_owner', '=', owner)
        .execute();
    },

    /** Records a run and releases the lease, if this process still holds it. */
    async finish(providerId: string, record: RunRecord, nowMs: number): Promise<void> {
      await db
        .updateTable('cost_syncs')
        .set({ ...record, lease_owner: null, lease_until_ms: null, last_finished_ms: nowMs })
        .where('provider_id', '=', providerId)
        .where('lease_owner', '=', owner)
        .execute();
    },

    /** The connection a job syncs. */
    connection(providerId: string): Promise<ProviderRow> {
      return db.selectFrom('cost_providers').selectAll().where('id', '=', providerId).executeTakeFirstOrThrow();
    },
  };
}

export type SyncJobStore = ReturnType<typeof syncJobStore>;
