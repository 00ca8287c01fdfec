import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock';
import { deleteOlderThan, type BatchOptions } from '../db/batched-delete';
import type { Database } from '../db/schema';

/** Who made a change, as the audit log names them. */
export interface AuditActor {
  kind: 'person' | 'key' | 'system' | 'link' | 'chat';
  /**
   * The person's user id, the key's id, the job's name; `link` or `voice` for a signed link's holder; `chat:<user>`
   * for a chat app's user.
   */
  id: string;
  /** The person's e-mail or `key:<name>`, as they were at the time. */
  label: string;
}

/** One change, as it is appended to the audit log (docs/teams.md, "Audit log"). */
export interface AuditEntry {
  tenantId: string;
  projectId: string | null;
  actor: AuditActor;
  /** The operation as the API names it: `PATCH /control-plane/issues/{id}`. */
  operation: string;
  target?: { type: string; id: string } | null;
  /** The changed fields before and after; never a secret (callers redact). */
  changes?: { before?: unknown; after?: unknown };
  address: string | null;
  status: number;
}

/** Appends one entry; pass the transaction of the change when there is one, so both commit or neither does. */
export async function recordAudit(db: Kysely<Database>, clock: Clock, entry: AuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      tenant_id: entry.tenantId,
      project_id: entry.projectId,
      at_ms: clock.now(),
      actor_kind: entry.actor.kind,
      actor_id: entry.actor.id,
      actor_label: entry.actor.label,
      operation: entry.operation,
      target_type: entry.target?.type ?? null,
      target_id: entry.target?.id ?? null,
      changes: JSON.stringify(entry.changes ?? {}),
      address: entry.address,
      status: entry.status,
    })
    .execute();
}

/** What a listing of the audit log keeps: every filter optional, times as epoch ms (from inclusive, to exclusive). */
export interface AuditFilter {
  /** A person's user id or e-mail, or a key's id or `key:<name>`. */
  actor?: string;
  operation?: string;
  targetType?: string;
  targetId?: string;
  fromMs?: number;
  toMs?: number;
}

export type AuditRow = Selectable<Database['audit_log']>;

/**
 * A page of the tenant's audit log, newest first (then by id), after `cursor` (the `at_ms` and id of the previous
 * page's last entry): `limit + 1` rows, so the caller can tell whether more follow.
 */
export async function listAudit(
  db: Kysely<Database>,
  tenantId: string,
  filter: AuditFilter,
  page: { limit: number; cursor?: { t: number; k: number } },
): Promise<AuditRow[]> {
  let q = db.selectFrom('audit_log').selectAll().where('tenant_id', '=', tenantId);
  const { actor } = filter;
  if (actor !== undefined) q = q.where((eb) => eb.or([eb('actor_id', '=', actor), eb('actor_label', '=', actor)]));
  if (filter.operation !== undefined) q = q.where('operation', '=', filter.operation);
  if (filter.targetType !== undefined) q = q.where('target_type', '=', filter.targetType);
  if (filter.targetId !== undefined) q = q.where('target_id', '=', filter.targetId);
  if (filter.fromMs !== undefined) q = q.where('at_ms', '>=', filter.fromMs);
  if (filter.toMs !== undefined) q = q.where('at_ms', '<', filter.toMs);
  const { cursor } = page;
  if (cursor) {
    q = q.where((eb) =>
      eb.or([eb('at_ms', '<', cursor.t), eb.and([eb('at_ms', '=', cursor.t), eb('id', '<', cursor.k)])]),
    );
  }
  return q
    .orderBy('at_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit + 1)
    .execute();
}

/**
 * Deletes the entries older than `cutoffMs`, one organisation at a time (along the `audit_log_time` index) and in
 * batches (db/batched-delete.ts): a long-kept log is thinned without one huge delete. Returns how many.
 */
export async function pruneAudit(db: Kysely<Database>, cutoffMs: number, options: BatchOptions = {}): Promise<number> {
  let deleted = 0;
  for (const { id } of await db.selectFrom('tenants').select('id').execute()) {
    const entries = { table: 'audit_log', key: ['id'], time: 'at_ms', owner: { column: 'tenant_id', id } } as const;
    deleted += await deleteOlderThan(db, entries, cutoffMs, options);
  }
  return deleted;
}
