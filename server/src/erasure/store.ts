import { randomBytes } from 'node:crypto';
import type { ExpressionBuilder, Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { notFound } from '../shared/domain-errors';
import { erasureDb, type ErasureTables } from './tables';
import { digestOf, type ErasureTarget, type MaskedTarget, type TargetKind } from './target';

export type ErasureRow = Selectable<ErasureTables['erasures']>;
export type ErasureStatus = 'queued' | 'running' | 'done' | 'failed';
export const ERASURE_STATUSES = ['queued', 'running', 'done', 'failed'] as const satisfies readonly ErasureStatus[];

/** A job as answers show it: never the value it erases. */
export interface ErasureJob {
  id: string;
  status: ErasureStatus;
  target: MaskedTarget;
  /** Rows deleted or scrubbed per table, as far as the job got. */
  counts: Record<string, number>;
  error: string | null;
  requested_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
}

/** `spans 3, logs 12` for logs and the command line; empty when nothing was deleted. */
export const countsText = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ');

const iso = (ms: number | null) => (ms === null ? null : new Date(Number(ms)).toISOString());

export function jobOf(row: ErasureRow): ErasureJob {
  return {
    id: row.id,
    status: row.status as ErasureStatus,
    target: {
      kind: row.target_kind as TargetKind,
      ...(row.target_key === null ? {} : { key: row.target_key }),
      digest: row.target_digest,
    },
    counts: JSON.parse(row.counts) as Record<string, number>,
    error: row.error,
    requested_by: row.requested_by,
    created_at: iso(row.created_ms)!,
    started_at: iso(row.started_ms),
    finished_at: iso(row.finished_ms),
  };
}

/** Queues a job erasing `target` from a project; the caller wakes the worker once this is committed. */
export async function queueErasure(
  db: Kysely<Database>,
  clock: Clock,
  scope: { tenantId: string; projectId: string },
  target: ErasureTarget,
  by: string,
): Promise<ErasureRow> {
  const id = `era_${randomBytes(9).toString('base64url')}`;
  const row: ErasureRow = {
    id,
    tenant_id: scope.tenantId,
    project_id: scope.projectId,
    target_kind: target.kind,
    target_key: target.kind === 'attribute' ? target.key : null,
    target_digest: digestOf(id, target.value),
    target_value: target.value,
    subjects: null,
    status: 'queued',
    counts: '{}',
    error: null,
    requested_by: by,
    lease_owner: null,
    lease_until_ms: null,
    created_ms: clock.now(),
    started_ms: null,
    finished_ms: null,
  };
  await erasureDb(db).insertInto('erasures').values(row).execute();
  return row;
}

/** A project's jobs, newest first (a project asks for few: no paging beyond `limit`). */
export function listErasures(db: Kysely<Database>, projectId: string, limit: number): Promise<ErasureRow[]> {
  return erasureDb(db)
    .selectFrom('erasures')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('created_ms', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/** One job of a project; not found for another project's. */
export async function findErasure(db: Kysely<Database>, projectId: string, id: string): Promise<ErasureRow> {
  const row = await erasureDb(db)
    .selectFrom('erasures')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw notFound(`no erasure ${id} in this project`);
  return row;
}

/** A claim: by `owner`, as of `nowMs`, for `leaseMs`. */
export interface ErasureLease {
  owner: string;
  nowMs: number;
  leaseMs: number;
}

/**
 * Claims the oldest job that is queued, or running under a lease that ran out (its process died), in one conditional
 * UPDATE (`FOR UPDATE SKIP LOCKED` on PostgreSQL, as the outbox claims deliveries): replicas never run a job twice.
 */
export function claimErasure(db: Kysely<Database>, dialect: DialectName, lease: ErasureLease): Promise<ErasureRow[]> {
  const edb = erasureDb(db);
  const now = lease.nowMs;
  const free = (eb: ExpressionBuilder<Database & ErasureTables, 'erasures'>) =>
    eb.or([eb('status', '=', 'queued'), eb.and([eb('status', '=', 'running'), eb('lease_until_ms', '<', now)])]);
  const due = edb.selectFrom('erasures').select('id').where(free).orderBy('created_ms').limit(1);
  return edb
    .with(
      (cte) => cte('due').materialized(),
      () => (dialect === 'postgres' ? due.forUpdate().skipLocked() : due),
    )
    .updateTable('erasures')
    .set((eb) => ({
      status: 'running',
      lease_owner: lease.owner,
      lease_until_ms: now + lease.leaseMs,
      started_ms: eb.fn.coalesce('started_ms', eb.val(now)),
    }))
    .where('id', 'in', (eb) => eb.selectFrom('due').select('due.id'))
    .where(free)
    .returningAll()
    .execute();
}

/** Extends the lease of a job this process works; false when it is no longer this process's (taken over). */
export async function renewLease(db: Kysely<Database>, id: string, lease: ErasureLease): Promise<boolean> {
  const result = await erasureDb(db)
    .updateTable('erasures')
    .set({ lease_until_ms: lease.nowMs + lease.leaseMs })
    .where('id', '=', id)
    .where('lease_owner', '=', lease.owner)
    .where('status', '=', 'running')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Changes a job this process holds: what it found, how far it got, how it ended. */
export async function updateErasure(
  db: Kysely<Database>,
  id: string,
  owner: string,
  change: Partial<Pick<ErasureRow, 'subjects' | 'target_value' | 'counts' | 'status' | 'error' | 'finished_ms'>>,
): Promise<void> {
  await erasureDb(db)
    .updateTable('erasures')
    .set({
      ...change,
      ...(change.status === 'done' || change.status === 'failed' ? { lease_owner: null, lease_until_ms: null } : {}),
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .execute();
}
