import { Link, useParams } from 'wouter';
import { testRunsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { DataTable, type Column } from '../../ui/data-table';
import { formatDuration, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { useUrlState } from '../../ui/url-state';
import { CiLink, OutcomeBadge, pathParam, RunStatusBadge, TestTitle } from './parts';
import { TestDetail } from './test-detail';
import type { RunDetail, RunTest } from './types';
import './test-runs.css';

const COLUMNS: ReadonlyArray<Column<RunTest>> = [
  { id: 'title', header: 'Test', cell: (t) => <TestTitle title={t.title} file={`${t.file}:${t.line}`} /> },
  { id: 'project', header: 'Project', cell: (t) => t.project || <span className="hint">—</span> },
  { id: 'outcome', header: 'Outcome', cell: (t) => <OutcomeBadge outcome={t.outcome} status={t.status} /> },
  {
    id: 'retries',
    header: 'Retries',
    numeric: true,
    cell: (t) => (t.retries === 0 ? <span className="hint">0</span> : t.retries),
  },
  { id: 'duration', header: 'Duration', numeric: true, cell: (t) => formatDuration(t.duration_ms) },
];

function Totals({ counts }: { counts: RunDetail['counts'] }) {
  const items = [
    ['Passed', counts.passed],
    ['Failed', counts.failed],
    ['Flaky', counts.flaky],
    ['Skipped', counts.skipped],
    ['Total', counts.total],
  ] as const;
  return (
    <dl className="kpis run-totals">
      {items.map(([label, n]) => (
        <div key={label} className={`kpi kpi-${label.toLowerCase()}`}>
          <dt className="label">{label}</dt>
          <dd className="value">{n.toLocaleString()}</dd>
        </div>
      ))}
    </dl>
  );
}

function RunFacts({ run }: { run: RunDetail }) {
  return (
    <dl className="facts panel run-facts">
      {run.title && (
        <>
          <dt>Title</dt>
          <dd>{run.title}</dd>
        </>
      )}
      <dt>Status</dt>
      <dd>
        <RunStatusBadge status={run.status} />
      </dd>
      <dt>Branch</dt>
      <dd>{run.branch ?? '—'}</dd>
      <dt>Commit</dt>
      <dd>{run.commit ? <code>{run.commit}</code> : '—'}</dd>
      <dt>Started</dt>
      <dd>
        <time dateTime={run.started_at}>{formatTime(run.started_at)}</time>
      </dd>
      <dt>Duration</dt>
      <dd>{run.finished_at ? formatDuration(run.duration_ms) : 'still running'}</dd>
      <dt>CI job</dt>
      <dd>
        <CiLink run={run} />
      </dd>
      <dt>Shards</dt>
      <dd>{run.shard_total && run.shard_total > 1 ? `${run.shard_total} shards` : 'not sharded'}</dd>
    </dl>
  );
}

/**
 * `/test-run/:id`: the run's facts and totals, then its tests, failed first; a test's row opens its attempts (`?test=`
 * in the address), each with its error, original stack and links into the browser session it recorded.
 */
export default function TestRunPage() {
  const id = pathParam(useParams<{ id: string }>().id ?? '');
  const [params] = useUrlState();
  const open = params.get('test');
  const {
    data: run,
    error,
    loading,
  } = useApi(
    (o) => testRunsClient['test-runs'][':run_id'].$get({ param: { run_id: encodeURIComponent(id) } }, o),
    [id],
  );
  const base = `/test-run/${encodeURIComponent(id)}`;
  return (
    <div className="test-run-page">
      <PageHeader title={`Test run ${id}`}>
        <Link href="/test-runs">All test runs</Link>{' '}
        <Link href={`/sessions?test_run=${encodeURIComponent(id)}`}>Sessions of this run</Link>
      </PageHeader>
      {error?.status === 404 ? (
        <p role="alert" className="state state-error">
          No test run {id} in this key's project.
        </p>
      ) : (
        <LoadState loading={loading && !run} error={error} />
      )}
      {run && (
        <>
          <RunFacts run={run} />
          <Totals counts={run.counts} />
          <h2 id="tests-heading">Tests</h2>
          {run.tests.length === 0 ? (
            <p className="state">No result has arrived for this run yet.</p>
          ) : (
            <DataTable
              caption="Tests of the run, failed first"
              columns={COLUMNS}
              rows={run.tests}
              rowKey={(t) => t.test_key}
              rowHref={(t) => (t.test_key === open ? base : `${base}?test=${encodeURIComponent(t.test_key)}`)}
              activeKey={open ?? undefined}
              detail={(t) => <TestDetail test={t} />}
            />
          )}
        </>
      )}
    </div>
  );
}
