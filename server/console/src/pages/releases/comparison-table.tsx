import { Badge } from '../../ui/status';
import { formatVital, RatingBadge } from '../../ui/web-vitals';
import { VITAL_NAMES } from '../vitals/types';
import type { Comparison, ReleaseFigures } from './types';

const UNITS = { LCP: 'ms', INP: 'ms', CLS: '', FCP: 'ms', TTFB: 'ms' } as const;

/** A share in 0..1 as a percentage with one decimal; a dash for no data. */
const percent = (share: number | null) => (share === null ? '—' : `${(share * 100).toFixed(1)} %`);
const signed = (text: string, value: number) => (value > 0 ? `+${text}` : value < 0 ? `−${text}` : text);

interface Row {
  label: string;
  value: (f: ReleaseFigures) => string;
  rating?: (f: ReleaseFigures) => Parameters<typeof RatingBadge>[0]['rating'];
  /** The change in words, and whether higher is better. */
  change: (c: NonNullable<Comparison['changes']>) => { delta: number | null; percent: number | null };
  deltaText: (delta: number) => string;
  higherIsBetter: boolean;
}

const ROWS: readonly Row[] = [
  ...VITAL_NAMES.map(
    (name): Row => ({
      label: `${name} p75`,
      value: (f) => formatVital(UNITS[name], f.vitals.p75[name]),
      rating: (f) => f.vitals.rating[name],
      change: (c) => c.vitals_p75[name],
      deltaText: (d) => formatVital(UNITS[name], Math.abs(d)),
      higherIsBetter: false,
    }),
  ),
  {
    label: 'Span error rate',
    value: (f) => `${percent(f.span_error_rate)} (${f.span_errors} of ${f.spans})`,
    change: (c) => c.span_error_rate,
    deltaText: (d) => `${(Math.abs(d) * 100).toFixed(1)} points`,
    higherIsBetter: false,
  },
  {
    label: 'Error-free sessions',
    value: (f) => `${percent(f.error_free_share)} (${f.error_free_sessions} of ${f.sessions_read})`,
    change: (c) => c.error_free_share,
    deltaText: (d) => `${(Math.abs(d) * 100).toFixed(1)} points`,
    higherIsBetter: true,
  },
];

/** The change of one figure: signed, with its percentage, and whether that is better or worse, said in words. */
function ChangeCell({ row, changes }: { row: Row; changes: Comparison['changes'] }) {
  if (!changes) return <span className="hint">no previous release</span>;
  const { delta, percent: pct } = row.change(changes);
  if (delta === null) return <span className="hint">no data to compare</span>;
  if (delta === 0) return <Badge tone="neutral">Unchanged</Badge>;
  const better = delta > 0 === row.higherIsBetter;
  return (
    <span className="release-change">
      {signed(row.deltaText(delta), delta)}
      {pct !== null && ` (${signed(`${Math.abs(pct).toFixed(0)} %`, pct)})`}{' '}
      <Badge tone={better ? 'good' : 'bad'}>{better ? 'Better' : 'Worse'}</Badge>
    </span>
  );
}

/** A release's figures beside the previous release's, and what changed, as a table. */
export function ComparisonTable({ comparison }: { comparison: Comparison }) {
  const { current, previous, changes } = comparison;
  const caption = previous ? `Release ${current.release} against ${previous.release}` : `Release ${current.release}`;
  return (
    <div className="table-wrap">
      <table className="data-table release-table">
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Figure</th>
            <th scope="col" className="numeric">
              {current.release}
            </th>
            <th scope="col" className="numeric">
              {previous ? previous.release : 'Previous'}
            </th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {ROWS.map((row) => (
            <tr key={row.label}>
              <th scope="row">{row.label}</th>
              <td className="numeric">
                {row.value(current)} {row.rating && <RatingBadge rating={row.rating(current)} />}
              </td>
              <td className="numeric">
                {previous ? row.value(previous) : '—'}{' '}
                {previous && row.rating && <RatingBadge rating={row.rating(previous)} />}
              </td>
              <td>
                <ChangeCell row={row} changes={changes} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
