import { useEffect, useState } from 'react';
import { can } from '../../api/types';
import { issueFacetsClient, issuesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import type { Column } from '../../ui/data-table';
import { FilterBar, selectOptions, type FilterField } from '../../ui/filter-bar';
import { formatAgo, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { AssigneeName } from '../../ui/assignee';
import { PagedTable } from '../../ui/paged-table';
import { TimeRangePicker, useTimeRange } from '../../ui/time-range';
import { assignedToMe, MINE } from '../../ui/assignee';
import { pick, useUrlState } from '../../ui/url-state';
import { BulkStatus } from './bulk-status';
import { IssueStatusBadge } from './status-badge';
import { TrendBars, TrendPeriodToggle, useTrendPeriod } from './trend-bars';
import { ISSUE_STATUSES, type IssueListItem } from './types';
import './issues.css';

/** The API's orders (server/src/issues/list.ts): each largest or newest first, so there is no ascending order. */
const SORTS = ['last_seen', 'first_seen', 'events', 'sessions'] as const;

const COLUMNS: ReadonlyArray<Column<IssueListItem>> = [
  {
    id: 'title',
    header: 'Issue',
    cell: (i) => (
      <span className="issue-title">
        <strong>{i.type}</strong> <span className="issue-message">{i.message}</span>
      </span>
    ),
  },
  { id: 'trend', header: 'Trend', cell: (i) => <TrendBars trend={i.trend} /> },
  { id: 'culprit', header: 'Culprit', cell: (i) => <code className="culprit">{i.top_frame ?? '—'}</code> },
  { id: 'app', header: 'App · env', cell: (i) => `${i.app} · ${i.env}` },
  { id: 'events', header: 'Events', numeric: true, sortable: true, cell: (i) => i.events.toLocaleString() },
  { id: 'sessions', header: 'Sessions', numeric: true, sortable: true, cell: (i) => i.sessions.toLocaleString() },
  {
    id: 'first_seen',
    header: 'First seen',
    sortable: true,
    cell: (i) => (
      <time dateTime={i.first_seen.at} title={formatTime(i.first_seen.at)}>
        {formatAgo(i.first_seen.at)}
      </time>
    ),
  },
  {
    id: 'last_seen',
    header: 'Last seen',
    sortable: true,
    cell: (i) => (
      <time dateTime={i.last_seen.at} title={formatTime(i.last_seen.at)}>
        {formatAgo(i.last_seen.at)}
      </time>
    ),
  },
  { id: 'status', header: 'Status', cell: (i) => <IssueStatusBadge status={i.status} /> },
  { id: 'assignee', header: 'Assignee', cell: (i) => <AssigneeName assignee={i.assignee} /> },
];

/** `/issues`: errors grouped by fingerprint; filters, order and page in the URL; a row opens `/issue/<id>`. */
export default function IssuesPage() {
  const me = useMe();
  const [params] = useUrlState();
  const { from, to } = useTimeRange();
  const sortParam = params.get('sort');
  const sort = SORTS.find((s) => s === sortParam);
  const facets = useApi((o) => issueFacetsClient.index.$get(undefined, o));
  const fields: FilterField[] = [
    { name: 'q', label: 'Search', kind: 'search', placeholder: 'Type or message' },
    { name: 'status', label: 'Status', kind: 'select', options: ISSUE_STATUSES.map((s) => ({ value: s, label: s })) },
    { name: 'app', label: 'App', kind: 'select', options: me.apps.map((a) => ({ value: a.name, label: a.name })) },
    { name: 'env', label: 'Environment', kind: 'select', options: selectOptions(facets.data?.envs, params.get('env')) },
    {
      name: 'release',
      label: 'Release',
      kind: 'select',
      options: selectOptions(facets.data?.releases, params.get('release')),
    },
    // A person's own: a key is nobody (docs/teams.md, "Ownership").
    ...(me.person ? [{ name: MINE, label: 'Assigned to me', kind: 'checkbox' } as const] : []),
  ];
  const trend = useTrendPeriod();
  const query = {
    ...pick(params, ['q', 'status', 'app', 'env', 'release', 'cursor', 'limit']),
    sort,
    from,
    to,
    trend,
    assignee: assignedToMe(me, params),
  };
  const list = useApi((o) => issuesClient.index.$get({ query }, o), [query]);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // Another page or filter: what was picked is no longer on screen.
  useEffect(() => setSelected(new Set()), [params.toString()]);
  return (
    <>
      <PageHeader title="Issues">
        <TrendPeriodToggle />
        <TimeRangePicker />
      </PageHeader>
      <FilterBar label="Issue filters" fields={fields} />
      {can(me, 'issues.triage') && (
        <BulkStatus
          selected={selected}
          onDone={() => (list.reload(), setSelected(new Set()))}
          onClear={() => setSelected(new Set())}
        />
      )}
      <PagedTable
        list={list}
        empty="No issue matches these filters."
        caption="Issues"
        columns={COLUMNS}
        rowKey={(i) => i.id}
        selection={
          can(me, 'issues.triage')
            ? { selected, onChange: setSelected, label: (i) => `${i.type}: ${i.message}` }
            : undefined
        }
        rowHref={(i) => `/issue/${encodeURIComponent(i.id)}`}
        defaultSort={{ id: 'last_seen', order: 'desc' }}
        descendingOnly
      />
    </>
  );
}
