import { useMemo } from 'react';
import { vitalsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { DataTable, type Column } from '../../ui/data-table';
import { FilterBar, type FilterField } from '../../ui/filter-bar';
import { formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { TimeRangePicker, useTimeRange } from '../../ui/time-range';
import { useUrlState } from '../../ui/url-state';
import { VITAL_NAMES, type Vitals, type VitalsPageRow } from './types';
import { formatVital, RatingBadge } from '../../ui/web-vitals';
import { VitalPanel } from './vital-panel';
import './vitals.css';

/** The range when the URL names none: the API's own default window. */
const DEFAULT_RANGE = '7d';

const asOptions = (values: Iterable<string>, current: string | null) =>
  [...new Set([...values, ...(current ? [current] : [])])].map((v) => ({ value: v, label: v }));

function columns(thresholds: Vitals['thresholds']): ReadonlyArray<Column<VitalsPageRow>> {
  return [
    { id: 'route', header: 'Page', sortable: true, cell: (p) => <span className="mono">{p.route}</span> },
    { id: 'samples', header: 'Samples', sortable: true, numeric: true, cell: (p) => p.samples },
    ...VITAL_NAMES.map(
      (name): Column<VitalsPageRow> => ({
        id: name,
        header: `${name} p75`,
        sortable: true,
        numeric: true,
        cell: (p) => (
          <span className="vital-cell">
            {formatVital(thresholds[name].unit, p.p75[name])} <RatingBadge rating={p.rating[name]} />
          </span>
        ),
      }),
    ),
  ];
}

/** The pages in the URL's order (`sort`: route, samples or a vital; `order`), most samples first by default. */
function sortPages(pages: readonly VitalsPageRow[], sort: string, order: string): VitalsPageRow[] {
  const value = (p: VitalsPageRow): number | string | null =>
    sort === 'route' ? p.route : sort === 'samples' ? p.samples : (p.p75[sort as keyof VitalsPageRow['p75']] ?? null);
  const sign = order === 'asc' ? 1 : -1;
  return [...pages].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    // Pages without the vital go last whatever the order.
    if (va === null || vb === null) return va === vb ? 0 : va === null ? 1 : -1;
    return va < vb ? -sign : va > vb ? sign : 0;
  });
}

/** Web Vitals: p75, trend and rating split of each vital for all pages or one route, and every page's p75s. */
export default function VitalsPage() {
  const me = useMe();
  const [params] = useUrlState();
  const range = useTimeRange(DEFAULT_RANGE);
  const route = params.get('route');
  const query = { app: params.get('app') ?? undefined, route: route ?? undefined, from: range.from, to: range.to };
  const { data, error, loading } = useApi((o) => vitalsClient.index.$get({ query }, o), [query]);
  const fields: FilterField[] = [
    {
      name: 'app',
      label: 'App',
      kind: 'select',
      options: asOptions(
        me.apps.map((a) => a.name),
        params.get('app'),
      ),
    },
    { name: 'route', label: 'Page', kind: 'select', options: asOptions(data?.pages.map((p) => p.route) ?? [], route) },
  ];
  const pages = useMemo(
    () => sortPages(data?.pages ?? [], params.get('sort') ?? 'samples', params.get('order') ?? 'desc'),
    [data, params],
  );
  const routeHref = (r: string) => {
    const next = new URLSearchParams(params);
    next.set('route', r);
    return `/vitals?${next.toString()}`;
  };
  return (
    <div className="vitals-page">
      <PageHeader title="Web Vitals">
        <TimeRangePicker fallback={DEFAULT_RANGE} />
      </PageHeader>
      <FilterBar label="Web Vitals filters" fields={fields} />
      <LoadState loading={loading && !data} error={error} />
      {data && (
        <>
          <p className="hint">
            {data.route ? `Page ${data.route}` : 'All pages'}, {formatTime(data.window.from)} to{' '}
            {formatTime(data.window.to)}.{data.truncated && ' Only the newest samples of this window were read.'}
          </p>
          <div className="vitals-grid">
            {VITAL_NAMES.map((name) => (
              <VitalPanel key={name} name={name} vitals={data} />
            ))}
          </div>
          <h2>Pages</h2>
          <LoadState loading={false} empty={pages.length === 0}>
            No Web Vitals in this window.
          </LoadState>
          {pages.length > 0 && (
            <DataTable
              caption="Pages by Web Vitals p75"
              columns={columns(data.thresholds)}
              rows={pages}
              rowKey={(p) => p.route}
              rowHref={(p) => routeHref(p.route)}
              activeKey={route ?? undefined}
              defaultSort={{ id: 'samples', order: 'desc' }}
            />
          )}
        </>
      )}
    </div>
  );
}
