/** The assignment columns of issues (`detection_groups`) and incidents (migration 0024, docs/teams.md "Ownership"). */
export interface AssignmentColumns {
  /** The person it is assigned to (`users.id`); null while unassigned. */
  assignee_id: string | null;
  /** When the assignment last changed; null while it never did. */
  assigned_ms: number | null;
  /** Who changed it: the person's e-mail or `key:<name>` (actorLabel), `detector` for an incident given its issue's. */
  assigned_by: string | null;
}

/** A change of assignee: to whom (null: no one), by whom (actorLabel) and when. */
export interface AssignmentChange {
  assigneeId: string | null;
  by: string;
  atMs: number;
}

/** The columns a change writes: the assignee, and the history's when and who. */
export const assignmentColumns = (change: AssignmentChange): AssignmentColumns => ({
  assignee_id: change.assigneeId,
  assigned_ms: change.atMs,
  assigned_by: change.by,
});
