import { Link } from 'wouter';
import { testRunsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import type { Column } from '../../ui/data-table';
import { FilterBar, type FilterField } from '../../ui/filter-bar';
import { formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { PagedTable } from '../../ui/paged-table';
import { pick, useUrlState } from '../../ui/url-state';
import { Commit, OutcomeBadge, onePage, TestTitle } from './parts';
import type { FlakyTest } from './types';
import './test-runs.css';

const FIELDS: FilterField[] = [
  { name: 'branch', label: 'Branch', kind: 'text', placeholder: 'main' },
  { name: 'runs', label: 'Over the last N runs', kind: 'number', placeholder: '50' },
];

const percent = (rate: number) => `${Math.round(rate * 100)} %`;

const COLUMNS: ReadonlyArray<Column<FlakyTest>> = [
  { id: 'title', header: 'Test', cell: (t) => <TestTitle title={t.title} file={t.file} /> },
  { id: 'project', header: 'Project', cell: (t) => t.project || <span className="hint">—</span> },
  { id: 'flip_rate', header: 'Flip rate', numeric: true, cell: (t) => <strong>{percent(t.flip_rate)}</strong> },
  { id: 'flaky_runs', header: 'Flaky runs / runs', numeric: true, cell: (t) => `${t.flaky_runs} / ${t.runs}` },
  { id: 'flips', header: 'Flips', numeric: true, cell: (t) => t.flips },
  {
    id: 'last_flips',
    header: 'Last flips',
    cell: (t) => (
      <ul className="flips" aria-label={`Last flips of ${t.title}`}>
        {t.last_flips.map((f) => (
          <li key={`${f.run_id}-${f.at}`}>
            <Link href={`/test-run/${encodeURIComponent(f.run_id)}?test=${encodeURIComponent(t.test_key)}`}>
              <time dateTime={f.at}>{formatTime(f.at)}</time>
            </Link>{' '}
            <OutcomeBadge outcome={f.outcome} /> <Commit sha={f.commit} />
          </li>
        ))}
      </ul>
    ),
  },
];

/**
 * `/tests/flaky`: tests that passed on a retry, or passed and failed at one commit, over the last N runs (50 unless
 * asked), most often flipping first; a row opens the test's history, a flip its run.
 */
export default function FlakyTestsPage() {
  const [params] = useUrlState();
  const query = pick(params, ['branch', 'runs']);
  const list = useApi((o) => testRunsClient.tests.flaky.$get({ query }, o), [query]);
  return (
    <div className="flaky-tests-page">
      <PageHeader title="Flaky tests">
        <Link href="/test-runs">All test runs</Link>
      </PageHeader>
      <FilterBar label="Flaky test filters" fields={FIELDS} />
      <PagedTable
        list={onePage(list)}
        empty="No test flipped between passing and failing in these runs."
        caption="Flaky tests, most flips first"
        columns={COLUMNS}
        rowKey={(t) => t.test_key}
        rowHref={(t) => `/test/${encodeURIComponent(t.test_key)}`}
      />
    </div>
  );
}
