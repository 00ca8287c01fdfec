import { useState } from 'react';
import { parseResponse } from 'hono/client';
import { invitationsClient } from '../../api/typed';
import type { ApiState } from '../../api/use-api';
import { ConfirmAction } from '../../ui/confirm-action';
import { formatTime } from '../../ui/format';
import { LoadState } from '../../ui/status';
import { ActionError, useAction } from '../../ui/use-action';
import type { Invitation } from './types';

/** Invitations not accepted yet, each revocable (its link then stops working). */
export function InvitationsSection({
  invitations,
  onChanged,
}: {
  invitations: ApiState<{ data: Invitation[] }>;
  onChanged: (notice: string) => void;
}) {
  const [asking, setAsking] = useState<string | null>(null);
  const revoke = useAction(async (invitation: Invitation) => {
    setAsking(null);
    await parseResponse(invitationsClient[':id'].$delete({ param: { id: encodeURIComponent(invitation.id) } }));
    onChanged(`Invitation for ${invitation.email} revoked.`);
  });
  const rows = invitations.data?.data ?? [];
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Pending invitations</h2>
      <ActionError error={revoke.error} className="state state-error" />
      <LoadState
        loading={invitations.loading && !invitations.data}
        error={invitations.error}
        empty={invitations.data !== undefined && rows.length === 0}
      >
        No invitation is waiting.
      </LoadState>
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="data-table">
            <caption className="visually-hidden">Pending invitations</caption>
            <thead>
              <tr>
                <th scope="col">E-mail</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td>
                  <td>{i.role}</td>
                  <td>{formatTime(i.expires_at)}</td>
                  <td>
                    <ConfirmAction
                      verb="Revoke"
                      gerund="revoking"
                      what={`the invitation for ${i.email}`}
                      asking={asking === i.id}
                      setAsking={(a) => setAsking(a ? i.id : null)}
                      onConfirm={() => void revoke.run(i)}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
