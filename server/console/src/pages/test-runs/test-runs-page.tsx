import { Link } from 'wouter';
import { testRunsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import type { Column } from '../../ui/data-table';
import { FilterBar, type FilterField } from '../../ui/filter-bar';
import { formatDuration, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { PagedTable } from '../../ui/paged-table';
import { TimeRangePicker, useTimeRange } from '../../ui/time-range';
import { pick, useUrlState } from '../../ui/url-state';
import { CiLink, Commit, RunStatusBadge } from './parts';
import { RUN_STATUS_CHOICES, type Run } from './types';
import './test-runs.css';

const FIELDS: FilterField[] = [
  { name: 'branch', label: 'Branch', kind: 'text', placeholder: 'main' },
  { name: 'commit', label: 'Commit', kind: 'text', placeholder: 'full hash' },
  {
    name: 'status',
    label: 'Status',
    kind: 'select',
    options: RUN_STATUS_CHOICES.map((s) => ({ value: s, label: s === 'timedout' ? 'timed out' : s })),
  },
];

/** A count that is zero reads quieter than one that is not. */
const count = (n: number) => (n === 0 ? <span className="hint">0</span> : n.toLocaleString());

const COLUMNS: ReadonlyArray<Column<Run>> = [
  { id: 'started', header: 'Started', cell: (r) => <time dateTime={r.started_at}>{formatTime(r.started_at)}</time> },
  {
    id: 'branch',
    header: 'Branch',
    cell: (r) => (r.branch ? <span className="branch">{r.branch}</span> : <span className="hint">—</span>),
  },
  { id: 'commit', header: 'Commit', cell: (r) => <Commit sha={r.commit} /> },
  { id: 'status', header: 'Status', cell: (r) => <RunStatusBadge status={r.status} /> },
  { id: 'passed', header: 'Passed', numeric: true, cell: (r) => count(r.counts.passed) },
  { id: 'failed', header: 'Failed', numeric: true, cell: (r) => count(r.counts.failed) },
  { id: 'flaky', header: 'Flaky', numeric: true, cell: (r) => count(r.counts.flaky) },
  { id: 'skipped', header: 'Skipped', numeric: true, cell: (r) => count(r.counts.skipped) },
  { id: 'duration', header: 'Duration', numeric: true, cell: (r) => formatDuration(r.duration_ms) },
  { id: 'ci', header: 'CI', cell: (r) => <CiLink run={r} /> },
];

/** `/test-runs`: Playwright runs newest first, filtered by branch, commit, status and time; a row opens the run. */
export default function TestRunsPage() {
  const [params] = useUrlState();
  const { from, to } = useTimeRange();
  const query = { ...pick(params, ['branch', 'commit', 'status', 'cursor', 'limit']), from, to };
  const list = useApi((o) => testRunsClient['test-runs'].$get({ query }, o), [query]);
  return (
    <div className="test-runs-page">
      <PageHeader title="Test runs">
        <Link href="/tests/flaky">Flaky tests</Link>
        <TimeRangePicker />
      </PageHeader>
      <FilterBar label="Test run filters" fields={FIELDS} />
      <PagedTable
        list={list}
        empty="No test run matches these filters. Runs appear when a Playwright suite reports with @svc/playwright (docs/playwright.md)."
        caption="Test runs"
        columns={COLUMNS}
        rowKey={(r) => r.run_id}
        rowHref={(r) => `/test-run/${encodeURIComponent(r.run_id)}`}
      />
    </div>
  );
}
