import { useState } from 'react';
import { parseResponse } from 'hono/client';
import { mySessionsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { Badge, LoadState } from '../../ui/status';
import { ActionError, useAction } from '../../ui/use-action';
import type { MySession } from './types';
import './team.css';

/** `/account`: the person's console sessions (this one marked), each revocable; revoking this one signs out. */
export default function AccountPage() {
  const me = useMe();
  const sessions = useApi(me.person ? (o) => mySessionsClient.index.$get(undefined, o) : null);
  const [notice, setNotice] = useState<string>();
  const revoke = useAction(async (s: MySession) => {
    await parseResponse(mySessionsClient[':id'].$delete({ param: { id: encodeURIComponent(s.id) } }));
    setNotice('Session revoked.');
    sessions.reload();
  });
  const rows = sessions.data?.data ?? [];
  return (
    <>
      <PageHeader title="My sessions" />
      {me.person && (
        <p>
          Signed in as <strong>{me.person.name}</strong> ({me.person.email}), {me.person.role} of {me.tenant.name}.
        </p>
      )}
      <p role="status" className="notice">
        {notice}
      </p>
      <ActionError error={revoke.error} className="state state-error" />
      <LoadState loading={sessions.loading && !sessions.data} error={sessions.error} empty={!me.person}>
        A key has no sessions: sign in as a person to see yours.
      </LoadState>
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="data-table">
            <caption className="visually-hidden">My sessions</caption>
            <thead>
              <tr>
                <th scope="col">Signed in</th>
                <th scope="col">How</th>
                <th scope="col">Last seen</th>
                <th scope="col">Expires</th>
                <th scope="col">From</th>
                <th scope="col">Browser</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((s) => (
                <tr key={s.id}>
                  <td>
                    {formatTime(s.created_at)} {s.current && <Badge tone="info">this session</Badge>}
                  </td>
                  <td>{s.method}</td>
                  <td>{formatTime(s.last_seen_at)}</td>
                  <td>{formatTime(s.expires_at)}</td>
                  <td>{s.address ?? '—'}</td>
                  <td className="user-agent">{s.user_agent ?? '—'}</td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      onClick={() => void revoke.run(s)}
                      aria-label={
                        s.current
                          ? 'Revoke this session (signs you out)'
                          : `Revoke the session from ${formatTime(s.created_at)}`
                      }
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
