import { parseResponse, type ClientResponse } from 'hono/client';
import { useState } from 'react';
import { can } from '../../api/types';
import { costClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { formatAgo, formatMoney, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { Badge, LoadState } from '../../ui/status';
import { ChargesTable } from './charges';
import { DailyTrend } from './daily-trend';
import { RecommendationsTable } from './recommendations';
import { ServiceBars } from './service-bars';
import type { Estimate, FreshnessStatus, Provider, Recommendations, Summary } from './types';
import './cost.css';

const FRESHNESS_TONE = { fresh: 'good', stale: 'warn', no_data: 'neutral' } as const;

/**
 * `/cost`: the current billing period from the synced cloud bills: total, projection and freshness, usage per
 * service, the daily trend with anomalies, the charges that are not usage, and savings recommendations. With no
 * connection, how to make one.
 */
export default function CostPage() {
  const providers = useApi((o) => costClient.providers.$get(undefined, o));
  const none = providers.data !== undefined && providers.data.data.length === 0;
  const ready = providers.data !== undefined && !none;
  const summary = useApi(ready ? (o) => costClient.summary.$get({ query: {} }, o) : null);
  const byService = useApi(ready ? (o) => costClient['by-service'].$get({ query: {} }, o) : null);
  const estimate = useApi(ready ? (o) => costClient.estimate.$get({ query: { period: 'monthly' } }, o) : null);
  // A recommendation's target is declared as an object; the server writes a RecommendationTarget (types.ts).
  const recommendations = useApi(
    ready
      ? (o) =>
          costClient.recommendations.$get({ query: {} }, o) as Promise<ClientResponse<Recommendations, 200, 'json'>>
      : null,
  );
  const currency = summary.data?.currency ?? 'USD';
  return (
    <>
      <PageHeader title="Cost">
        {summary.data && <span className="hint">Billing period {summary.data.period}</span>}
      </PageHeader>
      <LoadState loading={providers.loading && !providers.data} error={providers.error} />
      {none && <ConnectProvider />}
      {ready && (
        <>
          <LoadState loading={summary.loading && !summary.data} error={summary.error} />
          {summary.data && <Kpis summary={summary.data} estimate={estimate.data} currency={currency} />}
          <div className="grid-2">
            {byService.data ? (
              <ServiceBars data={byService.data} currency={currency} />
            ) : (
              <LoadState loading={byService.loading} error={byService.error} />
            )}
            {estimate.data ? (
              <DailyTrend estimate={estimate.data} currency={currency} />
            ) : (
              <LoadState loading={estimate.loading} error={estimate.error} />
            )}
          </div>
          {recommendations.data ? (
            <RecommendationsTable data={recommendations.data} />
          ) : (
            <LoadState loading={recommendations.loading} error={recommendations.error} />
          )}
          <div className="grid-2">
            {summary.data && <ChargesTable charges={summary.data.charges} currency={currency} />}
            <Connections providers={providers.data?.data ?? []} onSynced={providers.reload} />
          </div>
        </>
      )}
    </>
  );
}

function Kpis({ summary, estimate, currency }: { summary: Summary; estimate?: Estimate; currency: string }) {
  const last = summary.data.providers
    .filter((p) => p.last_success_at)
    .sort((a, b) => (b.last_success_at ?? '').localeCompare(a.last_success_at ?? ''))[0];
  return (
    <div className="kpis" role="group" aria-label="Cost figures">
      <div className="kpi">
        <div className="label" id="kpi-total">
          Period total ({summary.period})
        </div>
        <div className="value" aria-labelledby="kpi-total">
          {formatMoney(summary.period_total, currency)}
        </div>
        <div className="hint">
          usage {formatMoney(summary.usage_total, currency)} · other charges{' '}
          {formatMoney(summary.charges.cost, currency)}
        </div>
      </div>
      <div className="kpi">
        <div className="label">Projected for the month</div>
        <div className="value">{estimate ? formatMoney(estimate.projected, currency) : '…'}</div>
        <div className="hint">from the usage burn rate</div>
      </div>
      <div className="kpi">
        <div className="label">Unattributed usage</div>
        <div className="value">{formatMoney(summary.unattributed.cost, currency)}</div>
        <div className="hint">{(summary.unattributed.share * 100).toFixed(1)} % of usage</div>
      </div>
      <div className="kpi">
        <div className="label">Data</div>
        <div className="value">
          <Badge tone={FRESHNESS_TONE[summary.data.status as FreshnessStatus]}>
            {summary.data.status.replace('_', ' ')}
          </Badge>
        </div>
        <div className="hint" title={summary.data.message}>
          {last ? `synced ${formatAgo(last.last_success_at)} from ${last.name ?? last.provider}` : 'not synced yet'}
        </div>
      </div>
    </div>
  );
}

/** The connections with their last sync, and "Sync now" for a key that may change things. */
function Connections({ providers, onSynced }: { providers: readonly Provider[]; onSynced: () => void }) {
  const writable = can(useMe(), 'project.configure');
  const [message, setMessage] = useState('');
  const sync = async (p: Provider) => {
    try {
      await parseResponse(costClient.providers[':id'].sync.$post({ param: { id: encodeURIComponent(p.id) } }));
      setMessage(`Sync of ${p.name ?? p.provider} started.`);
      onSynced();
    } catch (e) {
      setMessage(`Sync of ${p.name ?? p.provider} refused: ${String((e as Error).message)}`);
    }
  };
  return (
    <section aria-labelledby="connections-heading" className="panel">
      <h2 id="connections-heading">Connections</h2>
      <p role="status" className="hint">
        {message}
      </p>
      <div className="table-wrap">
        <table className="data-table">
          <caption className="visually-hidden">Cloud billing connections</caption>
          <thead>
            <tr>
              <th scope="col">Connection</th>
              <th scope="col">Last successful sync</th>
              <th scope="col">Last run</th>
              {writable && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {providers.map((p) => (
              <tr key={p.id}>
                <td>
                  {p.name ?? p.provider} <span className="hint">({p.provider})</span>
                </td>
                <td title={formatTime(p.sync.last_success_at)}>{formatAgo(p.sync.last_success_at)}</td>
                <td>
                  {p.sync.last_run ? (
                    <Badge tone={p.sync.last_run.status === 'succeeded' ? 'good' : 'bad'}>
                      {p.sync.last_run.status}
                    </Badge>
                  ) : (
                    'none'
                  )}
                  {p.sync.last_run?.error && <span className="hint"> {p.sync.last_run.error}</span>}
                  <div className="hint">
                    {p.sync.state}
                    {p.sync.next_run_at ? `, next ${formatTime(p.sync.next_run_at)}` : ''}
                  </div>
                </td>
                {writable && (
                  <td>
                    <button
                      type="button"
                      className="nowrap"
                      onClick={() => void sync(p)}
                      aria-label={`Sync now: ${p.name ?? p.provider}`}
                    >
                      Sync now
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** No connection yet: what to connect and how (docs/cost.md has every field). */
function ConnectProvider() {
  return (
    <section className="panel" aria-labelledby="connect-heading">
      <h2 id="connect-heading">No cloud billing connected</h2>
      <p>
        Cost figures come from your cloud bills, read-only: an AWS Cost and Usage Report (or Data Export) in S3, the GCP
        billing export in BigQuery, or Azure Cost Management. Connect one with a control key:
      </p>
      <pre className="mono connect-example">
        {`curl -X POST $SVC_URL/control-plane/cost/providers \\
  -H "authorization: Bearer $SVC_CONTROL_KEY" -H 'content-type: application/json' \\
  -d '{"provider": "aws", "config": {"role_arn": "arn:aws:iam::123456789012:role/svc-cost-read",
       "cur_bucket": "billing-exports", "cur_prefix": "cur/"}}'`}
      </pre>
      <p className="hint">
        The first sync runs at once, then daily. The fields of each provider (gcp, azure) are in docs/cost.md and the
        API reference (<a href="/docs/api">/docs/api</a>).
      </p>
    </section>
  );
}
