import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../db/schema';
import { notFound } from '../shared/domain-errors';
import type { AlertCondition, AlertQuery, AlertRule, RuleState } from './rule';

/** Alert rules (migration 0035): their definitions, written by the API, and the evaluator's state on the same row. */
export type AlertRuleRow = Selectable<Database['alert_rules']>;
type Definition = Pick<
  AlertRuleRow,
  'name' | 'signal' | 'query' | 'condition' | 'recovery' | 'window_seconds' | 'for_seconds' | 'severity' | 'no_data'
> & { enabled: number };
export type RuleChanges = Partial<Definition>;

const ruleNotFound = (id: string) => notFound(`no alert rule ${id} in this project`);

/** The row as the server uses it: JSON columns read, flags as booleans. */
export function ruleFromRow(row: AlertRuleRow): AlertRule {
  return {
    id: row.id,
    projectId: row.project_id,
    name: row.name,
    signal: row.signal as AlertRule['signal'],
    query: JSON.parse(row.query) as AlertQuery,
    condition: JSON.parse(row.condition) as AlertCondition,
    recovery: row.recovery === null ? null : (JSON.parse(row.recovery) as { value: number }),
    windowSeconds: Number(row.window_seconds),
    forSeconds: Number(row.for_seconds),
    severity: row.severity as AlertRule['severity'],
    noData: row.no_data as AlertRule['noData'],
    enabled: Number(row.enabled) === 1,
    createdMs: Number(row.created_ms),
    updatedMs: Number(row.updated_ms),
    state: row.state as RuleState,
    stateSinceMs: Number(row.state_since_ms),
    pendingSinceMs: row.pending_since_ms === null ? null : Number(row.pending_since_ms),
    lastValue: row.last_value === null ? null : Number(row.last_value),
    lastEvaluatedMs: row.last_evaluated_ms === null ? null : Number(row.last_evaluated_ms),
    incidentId: row.incident_id,
    nextEvalMs: Number(row.next_eval_ms),
  };
}

export async function insertRule(db: Kysely<Database>, row: Insertable<Database['alert_rules']>): Promise<void> {
  await db.insertInto('alert_rules').values(row).execute();
}

/** A rule of the project, or the `not_found` refusal. */
export async function loadRule(db: Kysely<Database>, projectId: string, id: string): Promise<AlertRuleRow> {
  const row = await db
    .selectFrom('alert_rules')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw ruleNotFound(id);
  return row;
}

/** `limit + 1` of the project's rules, newest first, after the cursor (index by project and creation). */
export function listRules(
  db: Kysely<Database>,
  projectId: string,
  options: { limit: number; after?: { t: number; k: string } },
): Promise<AlertRuleRow[]> {
  let q = db.selectFrom('alert_rules').selectAll().where('project_id', '=', projectId);
  const after = options.after;
  if (after)
    q = q.where((eb) =>
      eb.or([eb('created_ms', '<', after.t), eb.and([eb('created_ms', '=', after.t), eb('id', '<', after.k)])]),
    );
  return q
    .orderBy('created_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
    .execute();
}

/**
 * Changes a rule's definition and makes it due now: the evaluator's next tick measures the new definition (its state
 * and incident stay until then; docs/alerts.md, "Evaluation").
 */
export async function updateRule(
  db: Kysely<Database>,
  projectId: string,
  id: string,
  changes: RuleChanges,
  nowMs: number,
): Promise<void> {
  await db
    .updateTable('alert_rules')
    .set({ ...changes, updated_ms: nowMs, next_eval_ms: 0 })
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .execute();
}

/** Deletes a rule of the project, or refuses with `not_found`. */
export async function deleteRule(db: Kysely<Database>, projectId: string, id: string): Promise<void> {
  const result = await db
    .deleteFrom('alert_rules')
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numDeletedRows) === 0) throw ruleNotFound(id);
}

// ---- For the evaluator (alerts/evaluate/): which rules are due, claiming one, and keeping its state ----

/**
 * Rules of every project due at `nowMs` and not held by a live lease, soonest first (index by due time): the enabled
 * ones, and disabled ones not yet back to `ok` (disabling resolves what the rule had opened).
 */
export async function dueRules(db: Kysely<Database>, nowMs: number, limit: number): Promise<AlertRule[]> {
  const rows = await db
    .selectFrom('alert_rules')
    .selectAll()
    .where('next_eval_ms', '<=', nowMs)
    .where((eb) => eb.or([eb('enabled', '=', 1), eb('state', '<>', 'ok')]))
    .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', nowMs)]))
    .orderBy('next_eval_ms')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(ruleFromRow);
}

/**
 * Takes the rule for `owner` until `untilMs` unless another process holds a live lease on it: one conditional UPDATE,
 * so of two processes racing for a rule exactly one wins. Resolves whether `owner` has it.
 */
export async function claimRule(
  db: Kysely<Database>,
  id: string,
  owner: string,
  nowMs: number,
  untilMs: number,
): Promise<boolean> {
  const result = await db
    .updateTable('alert_rules')
    // Due again when the lease runs out (a process that died mid-way); an edit meanwhile sets it to 0 (saveRuleState).
    .set({ lease_owner: owner, lease_until_ms: untilMs, next_eval_ms: untilMs })
    .where('id', '=', id)
    .where('next_eval_ms', '<=', nowMs)
    .where((eb) => eb.or([eb('lease_until_ms', 'is', null), eb('lease_until_ms', '<', nowMs)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The evaluator's state after an evaluation. */
export interface RuleStateChange {
  state: RuleState;
  stateSinceMs: number;
  pendingSinceMs: number | null;
  lastValue: number | null;
  evaluatedMs: number;
  incidentId: string | null;
  nextEvalMs: number;
}

/**
 * Stores the state `owner` computed and gives the lease back, only while `owner` still holds it (a process whose lease
 * lapsed mid-evaluation lost the rule to another and writes nothing). Resolves whether it was stored.
 */
export async function saveRuleState(
  db: Kysely<Database>,
  id: string,
  owner: string,
  change: RuleStateChange,
): Promise<boolean> {
  const result = await db
    .updateTable('alert_rules')
    .set({
      state: change.state,
      state_since_ms: change.stateSinceMs,
      pending_since_ms: change.pendingSinceMs,
      last_value: change.lastValue,
      last_evaluated_ms: change.evaluatedMs,
      incident_id: change.incidentId,
      // An edit while the rule was evaluated made it due again (updateRule): it stays due, for the new definition.
      next_eval_ms: sql<number>`case when next_eval_ms = 0 then 0 else cast(${change.nextEvalMs} as bigint) end`,
      lease_owner: null,
      lease_until_ms: null,
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}
