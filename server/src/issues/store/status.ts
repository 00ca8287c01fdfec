import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import type { GroupRow } from '../../incidents/detect/groups';
import { DomainError } from '../../shared/domain-errors';
import { findIssueRows, requireIssueRow, type IssueRow } from './issues';

/** The statuses a person sets; `regressed` is the detector's. */
export const SETTABLE_STATUSES = ['unresolved', 'resolved', 'ignored'] as const;
export type SettableStatus = (typeof SETTABLE_STATUSES)[number];

export interface StatusChange {
  status: SettableStatus;
  /** Only with `resolved`: errors of the release current now do not regress it, only a later release's. */
  inNextRelease: boolean;
  /** `key:<name>` of the control key. */
  by: string;
  atMs: number;
}

/**
 * The app's release current now in the issue's environment: the one its errors were last seen in. Errors are what
 * issues store; an app that runs a new release without errors yet still reads as its previous one.
 */
async function currentRelease(db: Kysely<Database>, group: GroupRow): Promise<string | null> {
  const row = await db
    .selectFrom('issue_releases as r')
    .innerJoin('detection_groups as g', (j) =>
      j.onRef('g.project_id', '=', 'r.project_id').onRef('g.fingerprint', '=', 'r.fingerprint'),
    )
    .select('r.release')
    .where('g.project_id', '=', group.project_id)
    .where('g.app_id', '=', group.app_id)
    .where('g.env', '=', group.env)
    .orderBy('r.last_seen_ms', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.release ?? group.last_release;
}

/**
 * Sets an issue's status in one UPDATE of the status columns only, so it never undoes the detector's counting; the
 * detector's own move (`resolved` → `regressed`) is conditional on the stored status, so whichever commits second sees
 * the other's result.
 */
async function changeStatus(db: Kysely<Database>, group: GroupRow, change: StatusChange): Promise<void> {
  const resolving = change.status === 'resolved';
  await db
    .updateTable('detection_groups')
    .set({
      status: change.status,
      status_changed_ms: change.atMs,
      status_by: change.by,
      in_next_release: resolving && change.inNextRelease ? 1 : 0,
      resolved_release: resolving ? await currentRelease(db, group) : null,
    })
    .where('project_id', '=', group.project_id)
    .where('fingerprint', '=', group.fingerprint)
    .execute();
}

/** Sets one issue's status and returns it as it is now; not_found when the project has no issue `id`. */
export async function setStatus(
  db: Kysely<Database>,
  projectId: string,
  id: string,
  change: StatusChange,
): Promise<{ before: IssueRow; after: IssueRow }> {
  const before = await requireIssueRow(db, projectId, id);
  await changeStatus(db, before, change);
  return { before, after: await requireIssueRow(db, projectId, before.fingerprint) };
}

/**
 * Sets the status of several issues in one transaction and returns them as they are now, in the order of `ids`. When
 * an id is not an issue of the project, nothing changes: not_found names it (its index in `ids`).
 */
export async function setStatuses(
  db: Kysely<Database>,
  projectId: string,
  ids: readonly string[],
  change: StatusChange,
): Promise<{ before: IssueRow[]; after: IssueRow[] }> {
  const found = new Map((await findIssueRows(db, projectId, ids)).map((r) => [r.fingerprint, r]));
  const missing = ids.findIndex((id) => !found.has(id));
  if (missing !== -1)
    throw new DomainError('not_found', 'not_found', `no issue ${ids[missing]} in this project; nothing changed`, {
      field: `ids[${missing}]`,
    });
  await db.transaction().execute(async (trx) => {
    for (const id of ids) await changeStatus(trx, found.get(id)!, change);
  });
  const changed = new Map((await findIssueRows(db, projectId, ids)).map((r) => [r.fingerprint, r]));
  return { before: ids.map((id) => found.get(id)!), after: ids.map((id) => changed.get(id)!) };
}
