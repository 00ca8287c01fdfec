import { ingestHealthClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { DataTable, type Column } from '../../ui/data-table';
import { formatAgo, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { TimeRangePicker, useTimeRange } from '../../ui/time-range';
import { DROP_TEXT, REFUSAL_TEXT } from './reasons';
import type { Refusal, SdkDrop } from './types';
import './ingest-health.css';

function keyText({ key }: Refusal['example']): string {
  if (key.state === 'missing') return 'no key';
  if (key.state === 'unknown') return key.marker ? `unknown ${key.marker}… key` : 'not an svc key';
  const state = key.state === 'valid' || key.state === 'unchecked' ? '' : ` (${key.state.replace('_', ' ')})`;
  return `${key.scope} key “${key.name}”${state}`;
}

const REFUSAL_COLUMNS: ReadonlyArray<Column<Refusal>> = [
  {
    id: 'reason',
    header: 'Reason',
    cell: (r) => (
      <>
        <code>{r.reason}</code> <span className="hint">HTTP {r.status}</span>
        {REFUSAL_TEXT[r.reason] && <div className="hint">{REFUSAL_TEXT[r.reason]}</div>}
      </>
    ),
  },
  { id: 'count', header: 'Requests', numeric: true, cell: (r) => r.count.toLocaleString() },
  {
    id: 'last_at',
    header: 'Last',
    cell: (r) => (
      <time dateTime={r.last_at} title={formatTime(r.last_at)}>
        {formatAgo(r.last_at)}
      </time>
    ),
  },
  {
    id: 'example',
    header: 'Last example',
    cell: ({ example: e }) => (
      <div className="refusal-example">
        <div>
          <code>
            {e.method} {e.path}
          </code>{' '}
          {keyText(e)}
        </div>
        <div className="clip" title={e.message}>
          {e.message}
        </div>
        <div className="hint clip" title={[e.origin, e.user_agent].filter(Boolean).join(' · ')}>
          {[e.origin ?? 'no Origin', e.content_type, e.content_encoding].filter(Boolean).join(' · ')}
        </div>
      </div>
    ),
  },
];

const DROP_COLUMNS: ReadonlyArray<Column<SdkDrop>> = [
  { id: 'app', header: 'App', cell: (d) => d.app },
  {
    id: 'reason',
    header: 'Reason',
    cell: (d) => (
      <>
        <code>{d.reason}</code>
        {DROP_TEXT[d.reason] && <div className="hint">{DROP_TEXT[d.reason]}</div>}
      </>
    ),
  },
  { id: 'count', header: 'Records dropped', numeric: true, cell: (d) => d.count.toLocaleString() },
  { id: 'sessions', header: 'Sessions', numeric: true, cell: (d) => d.sessions.toLocaleString() },
];

function Refusals({ rows, caption, empty }: { rows: Refusal[]; caption: string; empty: string }) {
  if (rows.length === 0) return <p className="state">{empty}</p>;
  return <DataTable caption={caption} columns={REFUSAL_COLUMNS} rows={rows} rowKey={(r) => r.reason} />;
}

/**
 * `/ingest-health`: the ingest requests the server refused (per reason, with the last example) beside what the SDK
 * reported it dropped, over a time window; an admin key also sees the refusals whose key named no project.
 */
export default function IngestHealthPage() {
  const { from, to } = useTimeRange('24h');
  const health = useApi((o) => ingestHealthClient.index.$get({ query: { from, to } }, o), [from, to]);
  const data = health.data;
  return (
    <div className="ingest-health">
      <PageHeader title="Ingest health">
        <TimeRangePicker fallback="24h" />
      </PageHeader>
      <LoadState loading={health.loading && !data} error={health.error} />
      {data && (
        <>
          <section className="panel" aria-labelledby="refused-heading">
            <h2 id="refused-heading">Refused by the server</h2>
            <p className="hint">
              Ingest requests with this project&apos;s keys that the server answered with an error: nothing of them was
              stored.
            </p>
            <Refusals
              rows={data.refusals}
              caption="Refused ingest requests"
              empty="No ingest request was refused in this window."
            />
          </section>
          <section className="panel" aria-labelledby="dropped-heading">
            <h2 id="dropped-heading">Dropped by the SDK</h2>
            <p className="hint">
              What browsers reported they lost before sending (svc.sdk.dropped_items), per app and reason.
            </p>
            {data.sdk_drops.length === 0 ? (
              <p className="state">No SDK reported dropped records in this window.</p>
            ) : (
              <DataTable
                caption="Records the SDK dropped"
                columns={DROP_COLUMNS}
                rows={data.sdk_drops}
                rowKey={(d) => `${d.app}/${d.reason}`}
              />
            )}
          </section>
          {data.unattributed && (
            <section className="panel" aria-labelledby="unattributed-heading">
              <h2 id="unattributed-heading">Refused with no project</h2>
              <p className="hint">
                Requests whose key named no project (none sent, or not one of this server&apos;s), server-wide: shown to
                admin keys only.
              </p>
              <Refusals
                rows={data.unattributed}
                caption="Refused ingest requests with no project"
                empty="None in this window."
              />
            </section>
          )}
        </>
      )}
    </div>
  );
}
