import { useState } from 'react';
import { parseResponse } from 'hono/client';
import { channelsClient, deliveriesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { formatDuration, formatTime } from '../../ui/format';
import { LoadState } from '../../ui/status';
import { CHANNEL_LABELS, configSummary } from './channel-kinds';
import { ChannelForm } from './channel-form';
import { ActionError, failureOf, useAction, type ActionFailure } from '../../ui/use-action';
import { ConfirmDelete, SectionHead } from './form-parts';
import { DeliveryState } from './delivery-state';
import type { Channel, Delivery } from './types';

type Editing = { mode: 'new' } | { mode: 'edit'; channel: Channel } | null;

/** Channels: the list (type, name, config, which secrets are set), create, edit, delete, and "Send test". */
export function ChannelsSection({ writable }: { writable: boolean }) {
  const channels = useApi((o) => channelsClient.index.$get(undefined, o));
  const [editing, setEditing] = useState<Editing>(null);
  const [notice, setNotice] = useState<string | undefined>();
  const [secretOnce, setSecretOnce] = useState<{ name: string; secret: string } | undefined>();
  const [tests, setTests] = useState<Record<string, Delivery | ActionFailure | 'sending'>>({});
  const [asking, setAsking] = useState<string | null>(null);

  const saved = (channel: Channel) => {
    setNotice(`Channel ${channel.name} ${editing?.mode === 'edit' ? 'saved' : 'created'}.`);
    setSecretOnce(channel.signing_secret ? { name: channel.name, secret: channel.signing_secret } : undefined);
    setEditing(null);
    channels.reload();
  };
  const remove = useAction(async (channel: Channel) => {
    setAsking(null);
    await parseResponse(channelsClient[':id'].$delete({ param: { id: encodeURIComponent(channel.id) } }));
    setNotice(`Channel ${channel.name} deleted.`);
    channels.reload();
  });
  const sendTest = async (channel: Channel) => {
    setTests((t) => ({ ...t, [channel.id]: 'sending' }));
    try {
      const delivery = await parseResponse(
        deliveriesClient[':channelId'].test.$post({ param: { channelId: encodeURIComponent(channel.id) } }),
      );
      setTests((t) => ({ ...t, [channel.id]: delivery }));
    } catch (e) {
      setTests((t) => ({ ...t, [channel.id]: failureOf(e) }));
    }
  };

  const rows = channels.data?.data ?? [];
  return (
    <section aria-labelledby="channels-heading">
      <SectionHead
        id="channels-heading"
        title="Channels"
        newLabel="New channel"
        onNew={writable && editing === null ? () => setEditing({ mode: 'new' }) : undefined}
      />
      <p role="status" className="notice">
        {notice}
      </p>
      {secretOnce && (
        <div className="panel secret-once" role="region" aria-label="Signing secret">
          <p>
            The signing secret of <strong>{secretOnce.name}</strong>, shown this once (the receiver checks signatures
            with it):
          </p>
          <code className="mono">{secretOnce.secret}</code>
        </div>
      )}
      <ActionError error={remove.error} className="state state-error" />
      {editing && (
        <ChannelForm
          key={editing.mode === 'edit' ? editing.channel.id : 'new'}
          channel={editing.mode === 'edit' ? editing.channel : undefined}
          onSaved={saved}
          onCancel={() => setEditing(null)}
        />
      )}
      <LoadState
        loading={channels.loading && !channels.data}
        error={channels.error}
        empty={channels.data !== undefined && rows.length === 0}
      >
        No channels yet.{writable ? ' Create one to be notified of incidents.' : ''}
      </LoadState>
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="data-table">
            <caption className="visually-hidden">Notification channels</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Config</th>
                <th scope="col">Secrets set</th>
                <th scope="col">Created</th>
                {writable && <th scope="col">Actions</th>}
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => {
                const test = tests[c.id];
                return (
                  <tr key={c.id}>
                    <td>{c.name}</td>
                    <td>{CHANNEL_LABELS[c.type] ?? c.type}</td>
                    <td className="config-cell">{configSummary(c.type, c.config) || '—'}</td>
                    <td>{c.secrets_set.length > 0 ? c.secrets_set.join(', ') : 'none'}</td>
                    <td>{formatTime(c.created_at)}</td>
                    {writable && (
                      <td>
                        <div className="row-actions">
                          <button
                            type="button"
                            onClick={() => void sendTest(c)}
                            disabled={test === 'sending'}
                            aria-label={`Send test to ${c.name}`}
                          >
                            Send test
                          </button>
                          <button
                            type="button"
                            onClick={() => setEditing({ mode: 'edit', channel: c })}
                            aria-label={`Edit ${c.name}`}
                          >
                            Edit
                          </button>
                          <ConfirmDelete
                            what={c.name}
                            asking={asking === c.id}
                            setAsking={(a) => setAsking(a ? c.id : null)}
                            onConfirm={() => void remove.run(c)}
                          />
                        </div>
                        {test && <TestResult result={test} name={c.name} />}
                      </td>
                    )}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** What "Send test" got back: the delivery after its first attempt (state, response status, latency) or the refusal. */
function TestResult({ result, name }: { result: Delivery | ActionFailure | 'sending'; name: string }) {
  if (result === 'sending')
    return (
      <p role="status" className="test-result">
        Sending a test to {name}…
      </p>
    );
  if (!('state' in result))
    return (
      <p role="alert" className="test-result state-error">
        Test not sent: {result.message}
      </p>
    );
  return (
    <p role="status" className="test-result" aria-label={`Test result for ${name}`}>
      Test: <DeliveryState state={result.state} />
      {result.response?.status != null && ` HTTP ${result.response.status}`}
      {result.latency_ms != null && ` in ${formatDuration(result.latency_ms)}`}
      {result.error_message && ` — ${result.error_message}`}
    </p>
  );
}
