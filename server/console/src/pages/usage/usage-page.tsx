import { useState, type FormEvent } from 'react';
import { parseResponse, type InferResponseType } from 'hono/client';
import { limitsClient } from '../../api/typed';
import { can } from '../../api/types';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { ActionError, useAction } from '../../ui/use-action';
import './usage.css';

type Usage = InferResponseType<(typeof limitsClient)['usage']['$get'], 200>;
type Limits = InferResponseType<(typeof limitsClient)['limits']['$get'], 200>;
type SignalLimits = Limits['signals'][number];
type Change = Parameters<(typeof limitsClient)['limits']['$put']>[0]['json'];

const FIELDS = ['rate', 'burst', 'daily'] as const;
const FIELD_TEXT = { rate: 'Rate a second, per key', burst: 'Burst, per key', daily: 'Daily quota, per project' };
const count = (n: number) => n.toLocaleString('en-US');
const limit = (n: number) => (n === 0 ? 'none' : count(n));
const time = (iso: string) => new Date(iso).toISOString().slice(11, 16);

/** The change the form asks for: each value typed, or null (empty field) for the server default. */
function changeOf(form: FormData, signals: readonly SignalLimits[]): Change {
  const change: Record<string, Record<string, number | null>> = {};
  for (const s of signals) {
    change[s.signal] = Object.fromEntries(
      FIELDS.map((f) => {
        const raw = String(form.get(`${s.signal}.${f}`) ?? '').trim();
        return [f, raw === '' ? null : Number(raw)];
      }),
    );
  }
  return change as Change;
}

/** Today, the month and its projection per signal, against the daily quota. */
function TodayTable({ usage }: { usage: Usage }) {
  return (
    <table className="panel usage-table">
      <caption>Today ({usage.today}, UTC) and this month</caption>
      <thead>
        <tr>
          <th scope="col">Signal</th>
          <th scope="col">Accepted</th>
          <th scope="col">Throttled</th>
          <th scope="col">Refused requests</th>
          <th scope="col">Daily quota</th>
          <th scope="col">Month so far</th>
          <th scope="col">Month projected</th>
          <th scope="col">Spike</th>
        </tr>
      </thead>
      <tbody>
        {usage.signals.map((s) => (
          <tr key={s.signal}>
            <th scope="row">{s.unit}</th>
            <td className="number">{count(s.today.accepted)}</td>
            <td className={s.today.throttled > 0 ? 'number over' : 'number'}>{count(s.today.throttled)}</td>
            <td className="number">{count(s.today.refused)}</td>
            <td className="number">
              {s.daily_quota === 0
                ? 'none'
                : `${count(s.daily_quota)} (${Math.floor((100 * s.today.accepted) / s.daily_quota)} % used)`}
            </td>
            <td className="number">{count(s.month_accepted)}</td>
            <td className="number">{count(s.month_projected)}</td>
            <td>{s.spike ? `throttled until ${time(s.spike.until)} UTC` : 'none'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Accepted, throttled and refused per day and signal, newest first. */
function DaysTable({ usage }: { usage: Usage }) {
  if (usage.days.length === 0) return <p className="panel">Nothing was received in the last days.</p>;
  return (
    <table className="panel usage-table">
      <caption>Per day (UTC)</caption>
      <thead>
        <tr>
          <th scope="col">Day</th>
          <th scope="col">Signal</th>
          <th scope="col">Accepted</th>
          <th scope="col">Throttled</th>
          <th scope="col">Refused requests</th>
        </tr>
      </thead>
      <tbody>
        {usage.days.map((d) => (
          <tr key={`${d.day}:${d.signal}`}>
            <td>{d.day}</td>
            <th scope="row">{d.signal}</th>
            <td className="number">{count(d.accepted)}</td>
            <td className="number">{count(d.throttled)}</td>
            <td className="number">{count(d.refused)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One signal's limits: number fields whose placeholders are the server defaults, or the values for readers. */
function LimitsRow({ signal, editable }: { signal: SignalLimits; editable: boolean }) {
  return (
    <tr>
      <th scope="row">{signal.unit}</th>
      {FIELDS.map((f) => (
        <td key={f}>
          {editable ? (
            <input
              name={`${signal.signal}.${f}`}
              aria-label={`${signal.unit}: ${FIELD_TEXT[f]}`}
              type="number"
              min={0}
              step={1}
              inputMode="numeric"
              defaultValue={signal.own[f] ?? ''}
              placeholder={`default ${limit(signal.server[f])}`}
            />
          ) : (
            <output aria-label={`${signal.unit}: ${FIELD_TEXT[f]}`}>{limit(signal[f])}</output>
          )}
        </td>
      ))}
    </tr>
  );
}

/**
 * `/usage`: what the project sent per signal and day, against its daily quotas, with the month's projection and any
 * spike being throttled; and its limits, which who may configure the project sets (an empty field follows the
 * server default; 0 turns a limit off).
 */
export default function UsagePage() {
  const me = useMe();
  const editable = can(me, 'project.configure');
  const usage = useApi((o) => limitsClient.usage.$get({ query: {} }, o));
  const limits = useApi((o) => limitsClient.limits.$get(undefined, o));
  const [notice, setNotice] = useState<string>();
  const save = useAction(async (json: Change) => {
    setNotice(undefined);
    await parseResponse(limitsClient.limits.$put({ json }));
    setNotice('Limits saved. They apply within 5 seconds.');
    limits.reload();
    usage.reload();
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (limits.data) void save.run(changeOf(new FormData(event.currentTarget), limits.data.signals));
  };
  return (
    <>
      <PageHeader title="Usage and limits" />
      <p className="panel read-note" role="note">
        What is over a limit is refused whole with 429 and Retry-After; SDKs keep it and send it later. Throttled counts
        units (spans, bytes…), refused counts requests refused for anything else.
      </p>
      <p role="status" className="notice">
        {notice}
      </p>
      <LoadState loading={usage.loading && !usage.data} error={usage.error} />
      {usage.data && <TodayTable usage={usage.data} />}
      {usage.data && <DaysTable usage={usage.data} />}
      <LoadState loading={limits.loading && !limits.data} error={limits.error} />
      {limits.data && (
        <form className="panel" onSubmit={submit} key={JSON.stringify(limits.data.signals)}>
          <table className="usage-table">
            <caption>Limits{editable ? '' : ' (admins and owners change them)'}</caption>
            <thead>
              <tr>
                <th scope="col">Signal</th>
                {FIELDS.map((f) => (
                  <th scope="col" key={f}>
                    {FIELD_TEXT[f]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {limits.data.signals.map((s) => (
                <LimitsRow key={s.signal} signal={s} editable={editable} />
              ))}
            </tbody>
          </table>
          {editable && (
            <button type="submit" className="primary" disabled={save.busy}>
              Save limits
            </button>
          )}
          <ActionError error={save.error} className="state state-error" />
        </form>
      )}
    </>
  );
}
