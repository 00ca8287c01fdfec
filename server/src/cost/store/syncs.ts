import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { dataFreshness, type ConnectionSync, type DataFreshness } from '../reports/freshness';

/** The project's connections with their sync jobs, oldest connection first. */
export function connectionSyncs(db: Kysely<Database>, projectId: string): Promise<ConnectionSync[]> {
  return db
    .selectFrom('cost_providers as p')
    .innerJoin('cost_syncs as s', 's.provider_id', 'p.id')
    .select([
      'p.id',
      'p.provider',
      'p.name',
      's.last_success_ms',
      's.last_status',
      's.last_error',
      's.last_finished_ms',
      's.next_run_ms',
      's.failures',
    ])
    .where('p.project_id', '=', projectId)
    .orderBy('p.created_ms')
    .orderBy('p.id')
    .execute();
}

/** The `data` every report carries (reports/freshness.ts). */
export async function reportFreshness(db: Kysely<Database>, projectId: string, nowMs: number): Promise<DataFreshness> {
  return dataFreshness(await connectionSyncs(db, projectId), nowMs);
}
