import { Link, useParams } from 'wouter';
import { testRunsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import type { Column } from '../../ui/data-table';
import { formatDuration, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { PagedTable } from '../../ui/paged-table';
import { LoadState } from '../../ui/status';
import { pick, useUrlState } from '../../ui/url-state';
import { Commit, OutcomeBadge } from './parts';
import type { HistoryItem, Outcome } from './types';
import './test-runs.css';

const COLUMNS: ReadonlyArray<Column<HistoryItem>> = [
  { id: 'run', header: 'Run', cell: (h) => <time dateTime={h.started_at}>{formatTime(h.started_at)}</time> },
  { id: 'outcome', header: 'Outcome', cell: (h) => <OutcomeBadge outcome={h.outcome} status={h.status} /> },
  {
    id: 'retries',
    header: 'Retries',
    numeric: true,
    cell: (h) => (h.retries === 0 ? <span className="hint">0</span> : h.retries),
  },
  { id: 'duration', header: 'Duration', numeric: true, cell: (h) => formatDuration(h.duration_ms) },
  { id: 'commit', header: 'Commit', cell: (h) => <Commit sha={h.commit} /> },
  { id: 'branch', header: 'Branch', cell: (h) => h.branch ?? <span className="hint">—</span> },
  {
    id: 'error',
    header: 'Error',
    cell: (h) =>
      h.error ? (
        <span className="history-error">{h.error.message.split('\n')[0]}</span>
      ) : (
        <span className="hint">—</span>
      ),
  },
];

const MARK: Record<Outcome, { glyph: string; word: string }> = {
  expected: { glyph: '✓', word: 'passed' },
  unexpected: { glyph: '✗', word: 'failed' },
  flaky: { glyph: '~', word: 'flaky' },
  skipped: { glyph: '–', word: 'skipped' },
};

/** The page's runs as marks, oldest on the left: a glance at when the test started failing or flipping. */
function OutcomeStrip({ items }: { items: readonly HistoryItem[] }) {
  const oldestFirst = [...items].reverse();
  const tally = (Object.keys(MARK) as Outcome[])
    .map((o) => [MARK[o].word, items.filter((i) => i.outcome === o).length] as const)
    .filter(([, n]) => n > 0)
    .map(([word, n]) => `${n} ${word}`)
    .join(', ');
  return (
    <div
      className="outcome-strip"
      role="img"
      aria-label={`${items.length} runs, oldest first: ${oldestFirst.map((i) => MARK[i.outcome]?.word ?? i.outcome).join(', ')} (${tally})`}
    >
      {oldestFirst.map((i) => (
        <span
          key={i.run_id}
          className={`mark mark-${i.outcome}`}
          title={`${formatTime(i.started_at)}: ${MARK[i.outcome]?.word ?? i.outcome}`}
        >
          {MARK[i.outcome]?.glyph ?? '?'}
        </span>
      ))}
    </div>
  );
}

/** `/test/:id`: one test (its stable key) over runs, newest first: outcome, retries, duration, commit and branch. */
export default function TestPage() {
  const { id = '' } = useParams<{ id: string }>();
  const [params] = useUrlState();
  const query = pick(params, ['cursor', 'limit']);
  const history = useApi(
    (o) => testRunsClient.tests[':test_key'].$get({ param: { test_key: encodeURIComponent(id) }, query }, o),
    [id, query],
  );
  const test = history.data?.test;
  return (
    <div className="test-page">
      <PageHeader title={test?.title ?? 'Test'}>
        <Link href="/tests/flaky">Flaky tests</Link>
        <Link href="/test-runs">All test runs</Link>
      </PageHeader>
      {history.error?.status === 404 ? (
        <p role="alert" className="state state-error">
          No test {id} in this key's project.
        </p>
      ) : (
        !test && <LoadState loading={history.loading} error={history.error} />
      )}
      {test && history.data && (
        <>
          <dl className="facts panel test-facts">
            <dt>File</dt>
            <dd>
              <code>{`${test.file}:${test.line}`}</code>
            </dd>
            <dt>Project</dt>
            <dd>{test.project || '—'}</dd>
            <dt>Test key</dt>
            <dd>
              <code>{test.test_key}</code>
            </dd>
          </dl>
          <h2>History</h2>
          {history.data.data.length > 0 && (
            <div className="strip-line">
              <OutcomeStrip items={history.data.data} />
              <span className="hint" aria-hidden="true">
                oldest on the left
              </span>
            </div>
          )}
          <PagedTable
            list={history}
            empty="This test has no result yet."
            caption="Runs of this test, newest first"
            columns={COLUMNS}
            rowKey={(h) => h.run_id}
            rowHref={(h) => `/test-run/${encodeURIComponent(h.run_id)}?test=${encodeURIComponent(test.test_key)}`}
          />
        </>
      )}
    </div>
  );
}
