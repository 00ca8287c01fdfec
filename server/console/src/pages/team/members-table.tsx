import { useState } from 'react';
import { parseResponse } from 'hono/client';
import { membersClient } from '../../api/typed';
import { useMe } from '../../auth/me-context';
import { ConfirmAction } from '../../ui/confirm-action';
import { formatTime } from '../../ui/format';
import { ActionError, useAction } from '../../ui/use-action';
import { ProjectLimits } from './project-limits';
import { grantableRoles, mayEdit, type Member, type Role } from './types';

const memberParam = (m: Member) => ({ param: { user_id: encodeURIComponent(m.user_id) } });

/** A member's role: a menu of the roles `me` may grant when they may change this member, else the role as text. */
function RoleCell({ member, editable, onChange }: { member: Member; editable: boolean; onChange: (r: Role) => void }) {
  const me = useMe();
  if (!editable) return <span>{member.role}</span>;
  return (
    <select
      aria-label={`Role of ${member.email}`}
      value={member.role}
      onChange={(e) => onChange(e.currentTarget.value as Role)}
    >
      {grantableRoles(me).map((role) => (
        <option key={role} value={role}>
          {role}
        </option>
      ))}
    </select>
  );
}

/**
 * The organisation's members: role and project limits (editable where `me` may), last seen, and for each the actions
 * "Sign out everywhere" (revokes their sessions) and Remove. An owner's row is an owner's to change.
 */
export function MembersTable({
  rows,
  writable,
  onChanged,
}: {
  rows: readonly Member[];
  /** `me` may manage members at all (members.manage). */
  writable: boolean;
  onChanged: (notice: string) => void;
}) {
  const me = useMe();
  const [asking, setAsking] = useState<string | null>(null);
  const change = useAction(async (m: Member, json: { role?: Role; projects?: string[] | null }) => {
    await parseResponse(membersClient[':user_id'].$patch({ ...memberParam(m), json }));
    onChanged(`${m.email} updated.`);
  });
  const revoke = useAction(async (m: Member) => {
    await parseResponse(membersClient[':user_id'].sessions.$delete(memberParam(m)));
    onChanged(`${m.email} is signed out everywhere.`);
  });
  const remove = useAction(async (m: Member) => {
    setAsking(null);
    await parseResponse(membersClient[':user_id'].$delete(memberParam(m)));
    onChanged(`${m.email} removed.`);
  });
  return (
    <>
      <ActionError error={change.error ?? revoke.error ?? remove.error} className="state state-error" />
      <div className="table-wrap">
        <table className="data-table">
          <caption className="visually-hidden">Members</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Projects</th>
              <th scope="col">Last seen</th>
              {writable && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((m) => {
              const editable = writable && mayEdit(me, m.role) && m.user_id !== me.person?.id;
              return (
                <tr key={m.user_id}>
                  <td>{m.name}</td>
                  <td>{m.email}</td>
                  <td>
                    <RoleCell member={m} editable={editable} onChange={(role) => void change.run(m, { role })} />
                  </td>
                  <td>
                    <ProjectLimits
                      who={m.email}
                      projects={m.projects}
                      onSave={editable ? (projects) => void change.run(m, { projects }) : undefined}
                    />
                  </td>
                  <td>{m.last_seen_at ? formatTime(m.last_seen_at) : 'never'}</td>
                  {writable && (
                    <td>
                      {editable ? (
                        <div className="row-actions">
                          <button
                            type="button"
                            onClick={() => void revoke.run(m)}
                            aria-label={`Sign out ${m.email} everywhere`}
                          >
                            Sign out everywhere
                          </button>
                          <ConfirmAction
                            verb="Remove"
                            gerund="removing"
                            what={m.email}
                            asking={asking === m.user_id}
                            setAsking={(a) => setAsking(a ? m.user_id : null)}
                            onConfirm={() => void remove.run(m)}
                          />
                        </div>
                      ) : (
                        <span className="hint">
                          {m.user_id === me.person?.id ? 'you' : 'only an owner changes an owner'}
                        </span>
                      )}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
