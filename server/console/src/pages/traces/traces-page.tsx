import { tracesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import type { Column } from '../../ui/data-table';
import { FilterBar, type FilterField } from '../../ui/filter-bar';
import { formatDuration, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { PagedTable } from '../../ui/paged-table';
import { Badge } from '../../ui/status';
import { TimeRangePicker, useTimeRange } from '../../ui/time-range';
import { pick, useUrlState } from '../../ui/url-state';
import type { TraceSummary } from './types';
import './traces.css';

/** The API's own default window when no `from` is given. */
const DEFAULT_RANGE = '24h';
const PASSED = [
  'trace_id',
  'service',
  'name',
  'status',
  'min_duration_ms',
  'max_duration_ms',
  'sort',
  'order',
  'limit',
  'cursor',
] as const;

const FIELDS: FilterField[] = [
  { name: 'trace_id', label: 'Trace id', kind: 'search', placeholder: '32 hex characters' },
  { name: 'service', label: 'Service', kind: 'text' },
  { name: 'name', label: 'Span name contains', kind: 'text', placeholder: 'GET /products' },
  {
    name: 'status',
    label: 'Status',
    kind: 'select',
    options: [
      { value: 'error', label: 'Error' },
      { value: 'ok', label: 'OK' },
      { value: 'unset', label: 'Unset' },
    ],
  },
  { name: 'min_duration_ms', label: 'Min duration (ms)', kind: 'number' },
  { name: 'max_duration_ms', label: 'Max duration (ms)', kind: 'number' },
];

function columns(longest: number): ReadonlyArray<Column<TraceSummary>> {
  return [
    {
      id: 'root',
      header: 'Started by',
      cell: (t) =>
        t.root ? (
          <span className="root-label">
            {t.root.label}
            {t.root.label !== t.root.name && <span className="hint">span {t.root.name}</span>}
          </span>
        ) : (
          <span className="hint">(no root span)</span>
        ),
    },
    { id: 'services', header: 'Services', cell: (t) => t.services.join(', ') || <span className="hint">—</span> },
    { id: 'start', header: 'Start', sortable: true, cell: (t) => formatTime(t.start) },
    {
      id: 'duration',
      header: 'Duration',
      sortable: true,
      numeric: true,
      cell: (t) => (
        <span className="duration-cell">
          {formatDuration(t.duration_ms)}
          {/* Relative to the longest trace of the page: a glance at which ones are slow. */}
          <span className="duration-track" aria-hidden="true">
            <span
              className="duration-bar"
              style={{ width: `${longest > 0 ? Math.max(2, (t.duration_ms / longest) * 100) : 2}%` }}
            />
          </span>
        </span>
      ),
    },
    { id: 'spans', header: 'Spans', sortable: true, numeric: true, cell: (t) => t.span_count },
    {
      id: 'errors',
      header: 'Errors',
      sortable: true,
      numeric: true,
      cell: (t) => (
        <Badge tone={t.error_count > 0 ? 'bad' : 'neutral'}>
          {t.error_count === 1 ? '1 error' : `${t.error_count} errors`}
        </Badge>
      ),
    },
  ];
}

/** Traces: newest first unless a column sorts them, with root span, services, duration, span and error counts; a row opens the trace. */
export default function TracesPage() {
  const [params] = useUrlState();
  const range = useTimeRange(DEFAULT_RANGE);
  const query = pick(params, PASSED);
  // A trace id is looked up whatever its age.
  const bounds = query.trace_id ? {} : { from: range.from, to: range.to };
  const list = useApi((o) => tracesClient.index.$get({ query: { ...query, ...bounds } }, o), [query, bounds]);
  const longest = Math.max(0, ...(list.data?.data.map((t) => t.duration_ms) ?? []));
  return (
    <div className="traces-page">
      <PageHeader title="Traces">
        <TimeRangePicker fallback={DEFAULT_RANGE} />
      </PageHeader>
      <FilterBar label="Trace filters" fields={FIELDS} />
      <PagedTable
        list={list}
        empty="No traces match these filters."
        caption="Traces"
        columns={columns(longest)}
        rowKey={(t) => t.trace_id}
        rowHref={(t) => `/trace/${t.trace_id}`}
        defaultSort={{ id: 'start', order: 'desc' }}
      />
    </div>
  );
}
