import { useMemo } from 'react';
import { Chart } from '../../ui/chart';
import { formatDuration, formatTime } from '../../ui/format';
import { measureText, valueText } from './rule-text';
import type { Preview, PreviewRule } from './types';

const COLORS = { value: '#0b5cad', bound: '#c0262d', recovery: '#0a7a3b', fired: 'rgba(192, 38, 45, 0.14)' };
const seconds = (iso: string) => Date.parse(iso) / 1000;

/** A change condition's bound at each point: the baseline moved by the percentage (as alerts/query conditionBound). */
function boundOf(condition: PreviewRule['condition'], baseline: number | null | undefined): number | null {
  if (condition.type !== 'change' || baseline === null || baseline === undefined) return null;
  return baseline * (condition.op === 'above' ? 1 + condition.percent / 100 : 1 - condition.percent / 100);
}

/** When the rule would have fired, in words: how often, and each time from when to when. */
function Firings({ preview }: { preview: Preview }) {
  const { firings } = preview;
  if (firings.length === 0) return <p className="hint">It would not have fired in this range.</p>;
  return (
    <>
      <p>
        It would have fired <strong>{firings.length === 1 ? 'once' : `${firings.length} times`}</strong> in this range:
      </p>
      <ul className="firing-list" aria-label="When it would have fired">
        {firings.map((f) => (
          <li key={f.start}>
            {f.end
              ? `${formatTime(f.start)} to ${formatTime(f.end)} (${formatDuration(Date.parse(f.end) - Date.parse(f.start))})`
              : `from ${formatTime(f.start)}, still firing at the end of the range`}
          </li>
        ))}
      </ul>
    </>
  );
}

/**
 * A rule's query over a range (uPlot): its value, the threshold (or a change rule's bound from its baseline), the
 * recovery line, and where the rule would have fired shaded; the firings in words and the values as a table.
 */
export function PreviewChart({ rule, preview, title }: { rule: PreviewRule; preview: Preview; title: string }) {
  const measure = measureText(rule);
  const chart = useMemo(() => {
    const bounds = preview.points.map((p) => boundOf(rule.condition, p.baseline));
    const hasBound = bounds.some((b) => b !== null);
    return {
      x: preview.points.map((p) => seconds(p.t)),
      series: [
        { label: measure, values: preview.points.map((p) => p.value), color: COLORS.value },
        ...(hasBound
          ? [{ label: 'Bound (from the baseline)', values: bounds, color: COLORS.bound, dash: [6, 4] }]
          : []),
      ],
      guides: [
        ...(preview.threshold === null ? [] : [{ value: preview.threshold, color: COLORS.bound, label: 'Threshold' }]),
        ...(rule.recovery ? [{ value: rule.recovery.value, color: COLORS.recovery, label: 'Recovery' }] : []),
      ],
      bands: preview.firings.map((f) => ({
        from: seconds(f.start),
        to: f.end === null ? null : seconds(f.end),
        color: COLORS.fired,
      })),
    };
  }, [preview, rule, measure]);
  const withBaseline = preview.points.some((p) => p.baseline !== undefined);
  return (
    <div className="preview-chart">
      <Chart title={title} x={chart.x} series={chart.series} guides={chart.guides} bands={chart.bands} height={200} />
      <p className="hint chart-key">
        <span className="key-line" aria-hidden="true" /> {measure} per {formatDuration(preview.step_seconds * 1000)}
        {preview.threshold !== null && (
          <>
            {' '}
            <span className="key-dash" aria-hidden="true" /> threshold {valueText(rule, preview.threshold)}
          </>
        )}{' '}
        <span className="key-band" aria-hidden="true" /> would have fired
      </p>
      <Firings preview={preview} />
      <details>
        <summary>The values as a table</summary>
        <table className="data-table">
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">Window ending</th>
              <th scope="col" className="numeric">
                {measure}
              </th>
              {withBaseline && (
                <th scope="col" className="numeric">
                  Baseline
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {preview.points.map((p) => (
              <tr key={p.t}>
                <td>{formatTime(p.t)}</td>
                <td className="numeric">{p.value === null ? 'no data' : valueText(rule, p.value)}</td>
                {withBaseline && <td className="numeric">{valueText(rule, p.baseline)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </div>
  );
}
