import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import type { SecretBox } from '../secrets/secret-box';
import type { Integration, IntegrationKind, Integrations } from '../notify/kinds/types';

/** Project integrations (a telephony account, the chat app): public config as JSON, secrets sealed. */
export function integrationStore(db: Kysely<Database>, box: SecretBox, clock: Clock) {
  return {
    /** The project's integrations, as kinds see them. */
    of(projectId: string): Integrations {
      return {
        async get(kind: IntegrationKind): Promise<Integration | undefined> {
          const row = await db
            .selectFrom('integrations')
            .selectAll()
            .where('project_id', '=', projectId)
            .where('kind', '=', kind)
            .executeTakeFirst();
          return (
            row && {
              config: JSON.parse(row.config) as Record<string, unknown>,
              secrets: box.open<Record<string, unknown>>(row.secrets),
            }
          );
        },
      };
    },
    async put(projectId: string, kind: IntegrationKind, integration: Integration): Promise<void> {
      const values = {
        config: JSON.stringify(integration.config),
        secrets: box.seal(integration.secrets),
        updated_ms: clock.now(),
      };
      await db
        .insertInto('integrations')
        .values({ project_id: projectId, kind, ...values })
        .onConflict((oc) => oc.columns(['project_id', 'kind']).doUpdateSet(values))
        .execute();
    },
    async remove(projectId: string, kind: IntegrationKind): Promise<boolean> {
      const result = await db
        .deleteFrom('integrations')
        .where('project_id', '=', projectId)
        .where('kind', '=', kind)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

export type IntegrationStore = ReturnType<typeof integrationStore>;
