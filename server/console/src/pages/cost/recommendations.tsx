import { formatMoney } from '../../ui/format';
import type { Recommendation, Recommendations } from './types';

const KIND_LABELS: Record<string, string> = {
  idle_resource: 'Idle resource',
  overprovisioned_service: 'Overprovisioned service',
  reserved_instance: 'Reservation',
};

const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
const pct = (v: number | undefined) => (v === undefined ? '?' : `${Math.round(v * 100)} %`);

/** One sentence from the kind and its evidence (server/src/cost/reports/recommendations/*). */
function describe(r: Recommendation): string {
  const e = r.evidence;
  if (r.kind === 'idle_resource')
    return `Handled ${num(e.requests_per_day)?.toFixed(1) ?? '?'} requests a day over ${num(e.lookback_days) ?? '?'} days; stopping it saves its compute cost.`;
  if (r.kind === 'reserved_instance')
    return `On demand ${pct(num(e.coverage))} of ${num(e.lookback_days) ?? '?'} days at a steady cost; a commitment saves about ${pct(num(e.commitment_discount))}.`;
  if (r.kind === 'overprovisioned_service')
    return `Low CPU and memory use over ${num(e.lookback_days) ?? '?'} days; smaller instances would do.`;
  return r.kind;
}

function target(r: Recommendation): string {
  if (r.target.type === 'service') return r.target.service;
  const name = r.target.resource_name ? `${r.target.resource_name} (${r.target.resource_id})` : r.target.resource_id;
  return r.target.service ? `${name} · ${r.target.service}` : name;
}

/** Savings recommendations, largest saving first, with their total (the server's sum: no resource counted twice). */
export function RecommendationsTable({ data }: { data: Recommendations }) {
  const rows = [...data.recommendations].sort((a, b) => b.estimated_monthly_saving - a.estimated_monthly_saving);
  const currency = data.currency ?? rows[0]?.currency ?? 'USD';
  return (
    <section aria-labelledby="recs-heading" className="panel">
      <h2 id="recs-heading">Recommendations</h2>
      <p className="hint">{data.note}</p>
      {rows.length === 0 ? (
        <p className="state">
          No recommendation for {data.window.start} to {data.window.end}.
        </p>
      ) : (
        <table className="data-table">
          <caption className="visually-hidden">Savings recommendations, largest saving first</caption>
          <thead>
            <tr>
              <th scope="col">Kind</th>
              <th scope="col">Resource or service</th>
              <th scope="col">Why</th>
              <th scope="col" className="numeric">
                Saving per month
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => (
              <tr key={`${r.kind}-${target(r)}-${i}`}>
                <td>{KIND_LABELS[r.kind] ?? r.kind}</td>
                <td>{target(r)}</td>
                <td>{describe(r)}</td>
                <td className="numeric">{formatMoney(r.estimated_monthly_saving, r.currency)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={3}>
                Total estimated saving
              </th>
              <td className="numeric">
                <strong>{formatMoney(data.total_estimated_monthly_saving, currency)}</strong>
              </td>
            </tr>
          </tfoot>
        </table>
      )}
    </section>
  );
}
