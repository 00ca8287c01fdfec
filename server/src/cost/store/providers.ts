import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema';
import { conflict, notFound } from '../../shared/domain-errors';

/** A cost connection as stored: its config as JSON, its secrets sealed. */
export type ProviderRow = Selectable<Database['cost_providers']>;
/** A connection's sync job: due time, lease and the last run. */
export type SyncRow = Selectable<Database['cost_syncs']>;

/** Cost connections (cost_providers) and each one's sync job row (cost_syncs), within one project. */
export function providerStore(db: Kysely<Database>) {
  return {
    /** The project's connection with this id, or a 404 for any other (another project's is as absent). */
    async find(projectId: string, id: string): Promise<ProviderRow> {
      const row = await db
        .selectFrom('cost_providers')
        .selectAll()
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) throw notFound(`no cost provider ${id} in this project`);
      return row;
    },

    /** The project's connections, oldest first. */
    list(projectId: string): Promise<ProviderRow[]> {
      return db
        .selectFrom('cost_providers')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('created_ms')
        .orderBy('id')
        .execute();
    },

    /** The sync job of a connection (every connection has one, made with it). */
    sync(providerId: string): Promise<SyncRow> {
      return db.selectFrom('cost_syncs').selectAll().where('provider_id', '=', providerId).executeTakeFirstOrThrow();
    },

    /** Stores a new connection with its sync job, due at once: the first sync is what checks the connection. */
    async create(row: ProviderRow): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.insertInto('cost_providers').values(row).execute();
        await trx
          .insertInto('cost_syncs')
          .values({
            provider_id: row.id,
            project_id: row.project_id,
            next_run_ms: row.created_ms,
            lease_owner: null,
            lease_until_ms: null,
            failures: 0,
            last_started_ms: null,
            last_finished_ms: null,
            last_status: null,
            last_rows: null,
            last_periods: null,
            last_error: null,
            last_success_ms: null,
          })
          .execute();
      });
    },

    /** Deletes a connection and the cost data read through it: reports must not show what can no longer be synced. */
    async delete(providerId: string): Promise<void> {
      await db.transaction().execute(async (trx) => {
        for (const table of ['cost_daily', 'cost_resources', 'cost_syncs'] as const)
          await trx.deleteFrom(table).where('provider_id', '=', providerId).execute();
        await trx.deleteFrom('cost_providers').where('id', '=', providerId).execute();
      });
    },

    /** Makes the connection's sync due at `nowMs`; a 409 while a process holds its lease (it is running). */
    async requestSync(providerId: string, nowMs: number): Promise<void> {
      const updated = await db
        .updateTable('cost_syncs')
        .set({ next_run_ms: nowMs })
        .where('provider_id', '=', providerId)
        .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', nowMs)]))
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0)
        throw conflict(
          'sync_running',
          `a sync of cost provider ${providerId} is running; see GET .../sync for its result`,
        );
    },
  };
}

export type ProviderStore = ReturnType<typeof providerStore>;
