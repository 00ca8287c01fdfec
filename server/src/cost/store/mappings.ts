import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { attribute } from '../mapping/attribute';
import type { MappingRule } from '../mapping/rules';

/** The project's attribution rules, in evaluation order, and when they were posted (none and null before). */
export async function loadMapping(
  db: Kysely<Database>,
  projectId: string,
): Promise<{ rules: MappingRule[]; updatedMs: number | null }> {
  const row = await db
    .selectFrom('cost_mappings')
    .select(['rules', 'updated_ms'])
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return row
    ? { rules: JSON.parse(row.rules) as MappingRule[], updatedMs: row.updated_ms }
    : { rules: [], updatedMs: null };
}

/** The project's attribution rules, in evaluation order (none until a mapping is posted). */
export async function loadRules(db: Kysely<Database>, projectId: string): Promise<MappingRule[]> {
  return (await loadMapping(db, projectId)).rules;
}

/**
 * Replaces the project's rules and re-attributes every resource already stored, in one transaction: reports switch
 * from the old attribution to the new one at once. Returns how many resources were looked at.
 */
export async function saveRules(
  db: Kysely<Database>,
  projectId: string,
  rules: readonly MappingRule[],
  nowMs: number,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await trx
      .insertInto('cost_mappings')
      .values({ project_id: projectId, rules: JSON.stringify(rules), updated_ms: nowMs })
      .onConflict((oc) => oc.column('project_id').doUpdateSet({ rules: JSON.stringify(rules), updated_ms: nowMs }))
      .execute();
    const resources = await trx
      .selectFrom('cost_resources')
      .select(['provider_id', 'resource_key', 'resource_id', 'resource_name', 'tags', 'service', 'env'])
      .where('project_id', '=', projectId)
      .execute();
    for (const r of resources) {
      const next = attribute(
        { id: r.resource_id, name: r.resource_name, tags: JSON.parse(r.tags) as Record<string, string> },
        rules,
      );
      if (next.service === r.service && next.env === r.env) continue;
      await trx
        .updateTable('cost_resources')
        .set({ service: next.service, env: next.env })
        .where('provider_id', '=', r.provider_id)
        .where('resource_key', '=', r.resource_key)
        .execute();
    }
    return resources.length;
  });
}
