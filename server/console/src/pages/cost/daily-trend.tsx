import { useMemo } from 'react';
import { Chart } from '../../ui/chart';
import { formatMoney } from '../../ui/format';
import type { Estimate } from './types';

const seconds = (day: string) => Date.parse(`${day}T00:00:00Z`) / 1000;
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const dayText = (day: string) => dayFormat.format(new Date(`${day}T00:00:00Z`));

/** The period's daily usage cost with the anomalous days marked on the chart and listed in text beside it. */
export function DailyTrend({ estimate, currency }: { estimate: Estimate; currency: string }) {
  const x = useMemo(() => estimate.daily.map((d) => seconds(d.day)), [estimate]);
  const series = useMemo(
    () => [{ label: `Usage (${currency})`, values: estimate.daily.map((d) => d.cost), color: '#0b5cad' }],
    [estimate, currency],
  );
  const marks = useMemo(() => estimate.anomalies.total.map((a) => seconds(a.day)), [estimate]);
  const flags: Array<
    Estimate['anomalies']['by_service'][number] | (Estimate['anomalies']['total'][number] & { service?: undefined })
  > = [...estimate.anomalies.total, ...estimate.anomalies.by_service];
  return (
    <section aria-labelledby="trend-heading" className="panel">
      <h2 id="trend-heading">Daily usage</h2>
      {estimate.daily.length === 0 ? (
        <p className="state">No day of this period yet.</p>
      ) : (
        <Chart
          title={`Daily usage cost from ${estimate.range.start}, ${marks.length} anomalous day(s) marked`}
          x={x}
          series={series}
          marks={marks}
          height={200}
        />
      )}
      <h3>Anomalies</h3>
      {flags.length === 0 ? (
        <p className="hint">No day stands out from its baseline.</p>
      ) : (
        <ul className="anomalies" aria-label="Anomalous days">
          {flags.map((a) => (
            <li key={`${a.service ?? 'total'}-${a.day}`}>
              <strong>{dayText(a.day)}</strong> {a.service ? `${a.service}: ` : 'total: '}
              {formatMoney(a.cost, currency)} against a baseline of {formatMoney(a.baseline, currency)} (+
              {formatMoney(a.excess, currency)}
              {a.excess_pct !== null ? `, +${Math.round(a.excess_pct)} %` : ''})
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
