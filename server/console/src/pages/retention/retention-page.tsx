import { useId, useState, type FormEvent } from 'react';
import { parseResponse, type InferResponseType } from 'hono/client';
import { retentionClient } from '../../api/typed';
import { can } from '../../api/types';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { ActionError, useAction } from '../../ui/use-action';
import './retention.css';

type Retention = InferResponseType<(typeof retentionClient)['index']['$get'], 200>;
type SignalRetention = Retention['signals'][number];
type Change = Parameters<(typeof retentionClient)['index']['$put']>[0]['json'];

/** What each signal keeps, as the server documents it (docs/server.md, "Retention"). */
const LABELS: Record<SignalRetention['signal'], { label: string; hint: string }> = {
  spans: { label: 'Spans', hint: 'traces' },
  logs: { label: 'Logs', hint: 'log records' },
  metrics: { label: 'Metrics', hint: 'metric points, Web Vitals' },
  replays: { label: 'Replays', hint: 'session replay chunks' },
  recipes: { label: 'Recipes', hint: 'recorded requests' },
  sessions: { label: 'Sessions', hint: 'session rows with nothing received since' },
  issues: { label: 'Issue facts', hint: "issues' sessions, hourly counts and breakdowns; the issues stay" },
  audit: { label: 'Audit log', hint: "the organisation's, set by the server" },
};

const kept = (days: number) => (days === 0 ? 'for ever' : `${days} days`);

/** The change the form asks for: each settable signal's days, or null (empty field) for the server default. */
function changeOf(form: FormData, signals: readonly SignalRetention[]): Change {
  const change: Record<string, number | null> = {};
  for (const s of signals.filter((x) => x.settable)) {
    const raw = String(form.get(s.signal) ?? '').trim();
    change[s.signal] = raw === '' ? null : Number(raw);
  }
  return change as Change;
}

/** One signal's row: a number field whose placeholder is the server default, or its days for who may not change it. */
function SignalRow({ signal, editable }: { signal: SignalRetention; editable: boolean }) {
  const id = useId();
  const { label, hint } = LABELS[signal.signal];
  const own = signal.source === 'project';
  return (
    <tr>
      <th scope="row">
        <label htmlFor={id}>{label}</label>
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      </th>
      <td>
        {editable && signal.settable ? (
          <input
            id={id}
            name={signal.signal}
            type="number"
            min={0}
            max={36500}
            step={1}
            inputMode="numeric"
            defaultValue={own ? signal.days : ''}
            placeholder={`server default (${kept(signal.server_days)})`}
            aria-describedby={`${id}-hint`}
          />
        ) : (
          <output id={id}>{kept(signal.days)}</output>
        )}
      </td>
      <td>{own ? `project's own (server default ${kept(signal.server_days)})` : 'server default'}</td>
    </tr>
  );
}

/**
 * `/retention`: how long the project keeps each signal, counted from receipt: its own days or the server's default.
 * Who may configure the project sets them (an empty field goes back to the default; 0 keeps for ever); the others read.
 */
export default function RetentionPage() {
  const me = useMe();
  const editable = can(me, 'project.configure');
  const retention = useApi((o) => retentionClient.index.$get(undefined, o));
  const [notice, setNotice] = useState<string>();
  const save = useAction(async (json: Change) => {
    setNotice(undefined);
    await parseResponse(retentionClient.index.$put({ json }));
    setNotice('Retention saved. It applies from the next hourly run.');
    retention.reload();
  });
  const data = retention.data;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (data) void save.run(changeOf(new FormData(event.currentTarget), data.signals));
  };
  return (
    <>
      <PageHeader title="Data retention" />
      <p className="panel read-note" role="note">
        Data older than this, counted from when the server received it, is deleted every hour. 0 keeps it for ever.
        {editable ? ' Leave a field empty to follow the server default.' : ' Admins and owners change it.'}
      </p>
      <p role="status" className="notice">
        {notice}
      </p>
      <LoadState loading={retention.loading && !data} error={retention.error} />
      {data && (
        <form className="panel retention-form" onSubmit={submit} key={JSON.stringify(data.signals)}>
          <table className="retention-table">
            <caption>Days each signal is kept</caption>
            <thead>
              <tr>
                <th scope="col">Signal</th>
                <th scope="col">Kept</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {data.signals.map((s) => (
                <SignalRow key={s.signal} signal={s} editable={editable} />
              ))}
            </tbody>
          </table>
          {editable && (
            <button type="submit" className="primary" disabled={save.busy}>
              Save retention
            </button>
          )}
          <ActionError error={save.error} className="state state-error" />
        </form>
      )}
    </>
  );
}
