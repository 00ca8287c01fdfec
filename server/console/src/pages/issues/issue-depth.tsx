import { TrendBars } from './trend-bars';
import type { IssueBreakdown, IssueDetail } from './types';

type Facet = keyof IssueBreakdown;
const FACETS: ReadonlyArray<{ facet: Facet; title: string }> = [
  { facet: 'browser', title: 'Browser' },
  { facet: 'os', title: 'Operating system' },
  { facet: 'release', title: 'Release' },
  { facet: 'route', title: 'Page' },
  { facet: 'user', title: 'User' },
];

/** The issue's errors per hour over the last 24 hours and per day over the last 14 days. */
export function IssueTrends({ trend }: { trend: IssueDetail['trend'] }) {
  return (
    <section className="panel" aria-labelledby="trend-heading">
      <h2 id="trend-heading">Trend</h2>
      <div className="trend-pair">
        <div>
          <h3>Last 24 hours, by hour</h3>
          <TrendBars trend={trend.hours} width={240} height={64} axis />
        </div>
        <div>
          <h3>Last 14 days, by day</h3>
          <TrendBars trend={trend.days} width={240} height={64} axis />
        </div>
      </div>
    </section>
  );
}

const percent = (count: number, total: number) => (total > 0 ? Math.round((count / total) * 100) : 0);

/** One facet: its largest values with their share of the errors, the rest folded into "Other". */
function FacetList({ title, data }: { title: string; data: IssueBreakdown[Facet] }) {
  const listed = data.top.reduce((a, t) => a + t.count, 0);
  const rows = [
    ...data.top.map((t) => ({ label: t.value ?? 'Not reported', count: t.count, unknown: t.value === null })),
    ...(data.total > listed ? [{ label: 'Other', count: data.total - listed, unknown: true }] : []),
  ];
  return (
    <div className="facet">
      <h3>{title}</h3>
      {rows.length === 0 ? (
        <p className="hint">Nothing recorded.</p>
      ) : (
        <ul aria-label={`Errors by ${title.toLowerCase()}`}>
          {rows.map((r) => (
            <li key={r.label} className={r.unknown ? 'facet-unknown' : undefined}>
              <span className="facet-label">{r.label}</span>
              <span className="facet-share" aria-hidden="true">
                <span style={{ width: `${percent(r.count, data.total)}%` }} />
              </span>
              <span className="facet-count">
                {r.count.toLocaleString()} ({percent(r.count, data.total)} %)
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** The issue's errors by browser, system, release, page and user, with how many users it affected. */
export function IssueBreakdownPanel({ breakdown }: { breakdown: IssueBreakdown }) {
  const users = breakdown.user;
  const affected = `${users.distinct.toLocaleString()}${users.distinct_capped ? '+' : ''}`;
  return (
    <section className="panel" aria-labelledby="breakdown-heading">
      <h2 id="breakdown-heading">Breakdown</h2>
      <p>
        <strong>{affected}</strong> {users.distinct === 1 && !users.distinct_capped ? 'user' : 'users'} affected (named
        by <code>setUser</code>)
      </p>
      <div className="facets">
        {FACETS.map((f) => (
          <FacetList key={f.facet} title={f.title} data={breakdown[f.facet]} />
        ))}
      </div>
    </section>
  );
}
