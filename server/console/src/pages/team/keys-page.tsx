import { useState } from 'react';
import { parseResponse } from 'hono/client';
import { keysClient } from '../../api/typed';
import { can } from '../../api/types';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { ConfirmAction } from '../../ui/confirm-action';
import { formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { Badge, LoadState } from '../../ui/status';
import { ActionError, useAction } from '../../ui/use-action';
import { KeyForm } from './key-form';
import type { Key } from './types';
import './team.css';

/** Whether a key still works, as a badge. */
function KeyState({ k }: { k: Key }) {
  if (k.revoked_at) return <Badge tone="neutral">revoked {formatTime(k.revoked_at)}</Badge>;
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return <Badge tone="warn">expired</Badge>;
  return <Badge tone="good">{k.expires_at ? `until ${formatTime(k.expires_at)}` : 'active'}</Badge>;
}

/** The keys as a table: scope, prefix, who made it, last use, state, and Revoke (asked first). */
function KeysTable({ rows, onChanged }: { rows: readonly Key[]; onChanged: (notice: string) => void }) {
  const [asking, setAsking] = useState<string | null>(null);
  const revoke = useAction(async (k: Key) => {
    setAsking(null);
    await parseResponse(keysClient[':id'].$delete({ param: { id: encodeURIComponent(k.id) } }));
    onChanged(`Key ${k.name} revoked.`);
  });
  return (
    <>
      <ActionError error={revoke.error} className="state state-error" />
      <div className="table-wrap">
        <table className="data-table">
          <caption className="visually-hidden">Keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Scope</th>
              <th scope="col">Starts with</th>
              <th scope="col">Created by</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>{k.scope}</td>
                <td className="mono">{k.display_prefix}…</td>
                <td>{k.created_by?.email ?? 'svc-server (command line)'}</td>
                <td>{formatTime(k.created_at)}</td>
                <td>{k.last_used_at ? formatTime(k.last_used_at) : 'never'}</td>
                <td>
                  <KeyState k={k} />
                </td>
                <td>
                  {!k.revoked_at && (
                    <ConfirmAction
                      verb="Revoke"
                      gerund="revoking"
                      what={`key ${k.name}`}
                      asking={asking === k.id}
                      setAsking={(a) => setAsking(a ? k.id : null)}
                      onConfirm={() => void revoke.run(k)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

/** `/keys`: the machine keys of the project, who made each and when it was last used; create (shown once), revoke. */
export default function KeysPage() {
  const me = useMe();
  const manage = can(me, 'keys.manage');
  const keys = useApi(manage ? (o) => keysClient.index.$get(undefined, o) : null);
  const [notice, setNotice] = useState<string>();
  const changed = (text: string) => {
    setNotice(text);
    keys.reload();
  };
  const rows = keys.data?.data ?? [];
  return (
    <>
      <PageHeader title="Keys" />
      {!manage && (
        <p className="panel read-note" role="note">
          Keys are managed by admins and owners.
        </p>
      )}
      <p role="status" className="notice">
        {notice}
      </p>
      {manage && <KeyForm onCreated={changed} />}
      <LoadState
        loading={keys.loading && !keys.data}
        error={keys.error}
        empty={keys.data !== undefined && rows.length === 0}
      >
        No keys yet.
      </LoadState>
      {rows.length > 0 && <KeysTable rows={rows} onChanged={changed} />}
    </>
  );
}
