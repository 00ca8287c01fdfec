import type { InferResponseType } from 'hono/client';
import { useId, type FormEvent } from 'react';
import { membersClient, type issuesClient } from '../api/typed';
import { can, type Me } from '../api/types';
import { useApi } from '../api/use-api';
import { useMe } from '../auth/me-context';
import { formatTime } from './format';
import { ActionError, useAction } from './use-action';
import './assignee.css';

/** The member an issue or incident is assigned to, as both answers carry it (docs/teams.md, "Ownership"). */
export type Assignee = NonNullable<InferResponseType<(typeof issuesClient)[':id']['$get'], 200>['assignee']>;

/** An issue's or incident's assignment and its history fields. */
export interface Assignment {
  assignee: Assignee | null;
  assigned_at: string | null;
  assigned_by: string | null;
}

/** The "Assigned to me" filter's URL parameter, a checkbox of the issues and incidents lists. */
export const MINE = 'mine';

/** The listing's `assignee` filter the URL asks for: `me` when "Assigned to me" is ticked by a person. */
export const assignedToMe = (me: Me, params: URLSearchParams) =>
  me.person && params.get(MINE) === 'true' ? ('me' as const) : undefined;

/** A list cell: the assignee's name (their e-mail on hover), or a dash. */
export function AssigneeName({ assignee }: { assignee: Assignee | null }) {
  return assignee ? <span title={assignee.email}>{assignee.name}</span> : <span className="hint">—</span>;
}

/** "Assigned to ada@example.com by owner@example.com", when it was, for a history line; null while never assigned. */
export function assignmentText(a: Assignment): string | null {
  if (a.assigned_at === null) return null;
  const what = a.assignee ? `Assigned to ${a.assignee.email}` : 'Unassigned';
  return `${what} ${formatTime(a.assigned_at)}${a.assigned_by ? ` by ${a.assigned_by}` : ''}`;
}

/** The members of the organisation who may act on the console's project, by name. */
function useProjectMembers() {
  const me = useMe();
  const members = useApi((o) => membersClient.index.$get(undefined, o));
  return (members.data?.data ?? [])
    .filter((m) => m.projects === null || m.projects.includes(me.project.id))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * Who owns an issue or incident: a select of the project's members (and "Unassigned") applied with "Assign", and
 * "Assign to me" for a person. Nothing changes until a button is pressed, so moving through the select by keyboard
 * mails no one. Without `issues.triage` it only says who the assignee is.
 */
export function AssigneeControl({
  assignment,
  onAssign,
}: {
  assignment: Assignment;
  /** Sends `PUT …/assignee` with a user id, `me` or null; the page reloads what it shows. */
  onAssign: (assignee: string | null) => Promise<unknown>;
}) {
  const me = useMe();
  const id = useId();
  const members = useProjectMembers();
  const { run, busy, error } = useAction(onAssign);
  const { assignee } = assignment;
  if (!can(me, 'issues.triage'))
    return (
      <p className="assignee-control">Assignee: {assignee ? `${assignee.name} (${assignee.email})` : 'unassigned'}</p>
    );
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const chosen = String(new FormData(event.currentTarget).get('assignee') ?? '');
    void run(chosen === '' ? null : chosen);
  };
  const listed = assignee && !members.some((m) => m.user_id === assignee.id) ? [assignee] : [];
  return (
    <form className="assignee-control" aria-label="Assignee" onSubmit={submit} key={assignee?.id ?? ''}>
      <label htmlFor={id}>Assignee</label>
      <select id={id} name="assignee" defaultValue={assignee?.id ?? ''} disabled={busy}>
        <option value="">Unassigned</option>
        {[...listed.map((a) => ({ user_id: a.id, name: a.name, email: a.email })), ...members].map((m) => (
          <option key={m.user_id} value={m.user_id}>
            {m.name} ({m.email})
          </option>
        ))}
      </select>
      <button type="submit" disabled={busy}>
        Assign
      </button>
      {me.person && assignee?.id !== me.person.id && (
        <button type="button" disabled={busy} onClick={() => void run('me')}>
          Assign to me
        </button>
      )}
      <ActionError error={error} as="span" />
    </form>
  );
}
