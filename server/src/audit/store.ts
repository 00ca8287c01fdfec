import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';

/** Who made a change, as the audit log names them. */
export interface AuditActor {
  kind: 'person' | 'key' | 'system';
  /** The person's user id, the key's id, or the job's name. */
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
