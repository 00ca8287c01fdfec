import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema';
import { invalid, notFound } from '../../shared/domain-errors';
import { UNASSIGNED } from './match';

/** Notification rules: which incidents and issue events go to which channels, in `position` order. */
export type RuleRow = Selectable<Database['notification_rules']>;
export type RuleChanges = Partial<Pick<RuleRow, 'name' | 'conditions' | 'channels' | 'delay_seconds'>>;

const ruleNotFound = (id: string) => notFound(`no notification rule ${id} in this project`);

/** The project's rules in evaluation order (in a transaction too: the scheduler reads them with the event). */
export function rulesInOrder(db: Kysely<Database>, projectId: string): Promise<RuleRow[]> {
  return db
    .selectFrom('notification_rules')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('position')
    .orderBy('created_ms')
    .orderBy('id')
    .execute();
}

/** The position after every existing rule: rules are evaluated in the order they were created. */
export async function nextPosition(db: Kysely<Database>, projectId: string): Promise<number> {
  const row = await db
    .selectFrom('notification_rules')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.last ?? 0) + 1;
}

/** The channels of a rule as stored (each once), or an `invalid` refusal naming the first not of the project. */
export async function checkedChannels(db: Kysely<Database>, projectId: string, channels: string[]): Promise<string> {
  const rows = await db
    .selectFrom('notification_channels')
    .select('id')
    .where('project_id', '=', projectId)
    .where('id', 'in', channels)
    .execute();
  const known = new Set(rows.map((r) => r.id));
  channels.forEach((id, i) => {
    if (!known.has(id)) {
      const field = `channels[${i}]`;
      throw invalid(`${field}: no notification channel ${id} in this project`, 'invalid_request', { field });
    }
  });
  return JSON.stringify([...new Set(channels)]);
}

/** A rule's `assignees` condition: each entry `unassigned` or the user id of a member, else `invalid` naming it. */
export async function checkAssignees(db: Kysely<Database>, tenantId: string, assignees: string[]): Promise<void> {
  const ids = assignees.filter((a) => a !== UNASSIGNED);
  const members =
    ids.length === 0
      ? []
      : await db
          .selectFrom('memberships')
          .select('user_id')
          .where('tenant_id', '=', tenantId)
          .where('user_id', 'in', ids)
          .execute();
  const known = new Set(members.map((m) => m.user_id));
  assignees.forEach((id, i) => {
    if (id !== UNASSIGNED && !known.has(id)) {
      const field = `conditions.assignees[${i}]`;
      throw invalid(`${field}: no member ${id} in this organisation (or "${UNASSIGNED}")`, 'invalid_request', {
        field,
      });
    }
  });
}

export async function insertRule(db: Kysely<Database>, row: RuleRow): Promise<void> {
  await db.insertInto('notification_rules').values(row).execute();
}

/** Puts the project's rules in the order of `ids`, which must name each of them once; the rules in their new order. */
export function reorderRules(db: Kysely<Database>, projectId: string, ids: string[]): Promise<RuleRow[]> {
  return db.transaction().execute(async (trx) => {
    const existing = new Set((await rulesInOrder(trx, projectId)).map((r) => r.id));
    const given = new Set(ids);
    if (given.size !== ids.length || given.size !== existing.size || ids.some((id) => !existing.has(id))) {
      throw invalid(
        `ids must list each of this project's ${existing.size} rules exactly once (GET /control-plane/notifications/rules)`,
        'invalid_request',
        { field: 'ids' },
      );
    }
    for (const [i, id] of ids.entries())
      await trx
        .updateTable('notification_rules')
        .set({ position: i + 1 })
        .where('project_id', '=', projectId)
        .where('id', '=', id)
        .execute();
    return rulesInOrder(trx, projectId);
  });
}

/** A rule of the project, or the `not_found` refusal. */
export async function loadRule(db: Kysely<Database>, projectId: string, id: string): Promise<RuleRow> {
  const row = await db
    .selectFrom('notification_rules')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw ruleNotFound(id);
  return row;
}

export async function updateRule(db: Kysely<Database>, projectId: string, id: string, changes: RuleChanges) {
  await db
    .updateTable('notification_rules')
    .set(changes)
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();
}

/** Deletes a rule of the project, or refuses with `not_found`. */
export async function deleteRule(db: Kysely<Database>, projectId: string, id: string): Promise<void> {
  const result = await db
    .deleteFrom('notification_rules')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw ruleNotFound(id);
}
