import { useMemo } from 'react';
import { Chart } from '../../ui/chart';
import { formatTime } from '../../ui/format';
import type { Rating, Vitals, VitalName } from './types';
import { formatVital, RATING_LABELS, RatingBadge, VITAL_TITLES } from '../../ui/web-vitals';

const RATINGS: readonly Rating[] = ['good', 'needs_improvement', 'poor'];
const COLORS = { line: '#0b5cad', good: '#0a7a3b', poor: '#c0262d' };

/** Shares of each rating as whole percentages of `total`. */
const percent = (count: number, total: number) => (total === 0 ? 0 : Math.round((count / total) * 100));

function Distribution({ counts }: { counts: Record<Rating, number> }) {
  const total = counts.good + counts.needs_improvement + counts.poor;
  if (total === 0) return <p className="hint">No samples.</p>;
  return (
    <div className="distribution">
      <div className="distribution-bar" aria-hidden="true">
        {RATINGS.map((r) => (
          <span key={r} className={`segment segment-${r}`} style={{ width: `${(counts[r] / total) * 100}%` }} />
        ))}
      </div>
      <ul className="distribution-legend" aria-label="Samples per rating">
        {RATINGS.map((r) => (
          <li key={r}>
            <span className={`swatch segment-${r}`} aria-hidden="true" />
            {RATING_LABELS[r]} {percent(counts[r], total)} % ({counts[r]})
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * One vital: its p75 over the window with the rating, p75 over time against the good and poor thresholds (the
 * same numbers as a table for screen readers), and how the samples split between the ratings.
 */
export function VitalPanel({ name, vitals }: { name: VitalName; vitals: Vitals }) {
  const threshold = vitals.thresholds[name];
  const points = vitals.series[name];
  const p75 = vitals.overall.p75[name];
  const split = vitals.distribution[name];
  const samples = split.good + split.needs_improvement + split.poor;
  const chart = useMemo(() => {
    // The window's ends as empty points, so the time axis spans the window even with one bucket.
    const ts = points.map((p) => Date.parse(p.t) / 1000);
    const from = Math.min(Date.parse(vitals.window.from) / 1000, ...ts);
    const to = Math.max(Date.parse(vitals.window.to) / 1000, ...ts);
    return {
      x: [from, ...ts, to],
      series: [{ label: `p75 ${name}`, values: [null, ...points.map((p) => p.p75), null], color: COLORS.line }],
      guides: [
        { value: threshold.good, color: COLORS.good, label: `good ≤ ${formatVital(threshold.unit, threshold.good)}` },
        { value: threshold.poor, color: COLORS.poor, label: `poor > ${formatVital(threshold.unit, threshold.poor)}` },
      ],
    };
  }, [points, name, threshold, vitals.window]);
  const headingId = `vital-${name}`;
  return (
    <section className="panel vital-panel" aria-labelledby={headingId}>
      <h2 id={headingId}>
        {name} <span className="hint">{VITAL_TITLES[name]}</span>
      </h2>
      <div className="vital-headline">
        <span className="vital-value" data-testid={`p75-${name}`}>
          {formatVital(threshold.unit, p75)}
        </span>
        <RatingBadge rating={vitals.overall.rating[name]} />
        <span className="hint">
          p75 of {samples} {samples === 1 ? 'sample' : 'samples'} in the window
        </span>
      </div>
      <p className="hint">
        Good ≤ {formatVital(threshold.unit, threshold.good)}, poor &gt; {formatVital(threshold.unit, threshold.poor)}
      </p>
      {points.length > 0 && (
        <Chart
          title={`${name} p75 per ${vitals.bucket}`}
          x={chart.x}
          series={chart.series}
          guides={chart.guides}
          height={160}
        />
      )}
      <Distribution counts={vitals.distribution[name]} />
      {points.length > 0 && (
        <details>
          <summary>
            {name} p75 per {vitals.bucket} as a table
          </summary>
          <table className="data-table">
            <caption className="visually-hidden">{`${name} p75 per ${vitals.bucket}`}</caption>
            <thead>
              <tr>
                <th scope="col">{vitals.bucket === 'hour' ? 'Hour' : 'Day'} from</th>
                <th scope="col" className="numeric">
                  p75
                </th>
                <th scope="col" className="numeric">
                  Samples
                </th>
              </tr>
            </thead>
            <tbody>
              {points.map((p) => (
                <tr key={p.t}>
                  <td>{formatTime(p.t)}</td>
                  <td className="numeric">{formatVital(threshold.unit, p.p75)}</td>
                  <td className="numeric">{p.samples}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </section>
  );
}
