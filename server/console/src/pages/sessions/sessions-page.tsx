import { useCallback, useEffect, useRef, useState } from 'react';
import { sessionsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import type { Column } from '../../ui/data-table';
import { FilterBar, selectOptions, type FilterField } from '../../ui/filter-bar';
import { formatAgo, formatDuration, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { PagedTable } from '../../ui/paged-table';
import { Badge, LoadState } from '../../ui/status';
import { TimeRangePicker, useTimeRange } from '../../ui/time-range';
import { useUrlState } from '../../ui/url-state';
import { FirstDataNotice, SetupPanel } from '../setup/setup-panel';
import type { FirstData } from '../setup/types';
import { useSetup } from '../setup/use-setup';
import { parseAttribute, sessionsQuery } from './session-query';
import type { SessionFacets, SessionItem } from './types';
import './sessions.css';

function filterFields(facets: SessionFacets | undefined, params: URLSearchParams): FilterField[] {
  return [
    { name: 'app', label: 'App', kind: 'select', options: selectOptions(facets?.apps, params.get('app')) },
    { name: 'env', label: 'Environment', kind: 'select', options: selectOptions(facets?.envs, params.get('env')) },
    {
      name: 'release',
      label: 'Release',
      kind: 'select',
      options: selectOptions(facets?.releases, params.get('release')),
    },
    {
      name: 'browser',
      label: 'Browser',
      kind: 'select',
      options: selectOptions(facets?.browsers, params.get('browser')),
    },
    { name: 'user_id', label: 'User id', kind: 'search' },
    { name: 'test_run', label: 'Test run', kind: 'search' },
    { name: 'attr', label: 'Attribute (key=value)', kind: 'text', placeholder: 'plan=pro' },
    { name: 'url', label: 'URL contains', kind: 'text', placeholder: '/checkout' },
    {
      name: 'has_errors',
      label: 'Errors',
      kind: 'select',
      options: [
        { value: 'true', label: 'With errors' },
        { value: 'false', label: 'Without errors' },
      ],
    },
    { name: 'min_duration_s', label: 'Min duration (s)', kind: 'number' },
    { name: 'max_duration_s', label: 'Max duration (s)', kind: 'number' },
  ];
}

function userCell(user: SessionItem['user']) {
  if (!user) return <span className="hint">anonymous</span>;
  const label = user.name ?? user.email;
  return (
    <>
      <span className="mono">{user.id}</span>
      {label && (
        <div className="hint clip" title={label}>
          {label}
        </div>
      )}
    </>
  );
}

function deviceCell({ device }: SessionItem) {
  if (!device.browser && !device.os) return <span className="hint">unknown</span>;
  return (
    <>
      {[device.browser, device.browser_version].filter(Boolean).join(' ')}
      <div className="hint">{[device.os, device.type].filter(Boolean).join(' · ')}</div>
    </>
  );
}

const COLUMNS: ReadonlyArray<Column<SessionItem>> = [
  { id: 'first_seen', header: 'Start', sortable: true, cell: (s) => formatTime(s.first_seen) },
  { id: 'duration', header: 'Duration', sortable: true, numeric: true, cell: (s) => formatDuration(s.duration_ms) },
  { id: 'user', header: 'User', cell: (s) => userCell(s.user) },
  {
    id: 'pages',
    header: 'Pages',
    numeric: true,
    cell: (s) => (
      <>
        {s.pages}
        {s.entry_url && (
          <div className="hint clip" title={`Entry page: ${s.entry_url}`}>
            {s.entry_url}
          </div>
        )}
      </>
    ),
  },
  {
    id: 'errors',
    header: 'Errors',
    sortable: true,
    numeric: true,
    cell: (s) => (
      <Badge tone={s.errors > 0 ? 'bad' : 'neutral'}>{s.errors === 1 ? '1 error' : `${s.errors} errors`}</Badge>
    ),
  },
  { id: 'device', header: 'Device', cell: deviceCell },
  { id: 'app', header: 'App', cell: (s) => s.app },
  {
    id: 'last_seen',
    header: 'Last seen',
    sortable: true,
    cell: (s) => (
      <time dateTime={s.last_seen} title={formatTime(s.last_seen)}>
        {formatAgo(s.last_seen)}
      </time>
    ),
  },
];

/**
 * No session in the list: a project that never received anything gets its set-up, watched until the first event
 * arrives (then `onArrived`); one that has data gets the plain "nothing matches".
 */
function NoSessions({ onArrived }: { onArrived: (first: FirstData) => void }) {
  const setup = useSetup();
  const waited = useRef(false);
  const first = setup.data?.first_data;
  if (setup.data && first === null) waited.current = true;
  useEffect(() => {
    if (first && waited.current) onArrived(first);
  }, [first, onArrived]);
  if (!setup.data) return <LoadState loading={setup.loading} error={setup.error} />;
  if (waited.current) return <SetupPanel setup={setup.data} />;
  return (
    <p role="status" className="state">
      No sessions match these filters.
    </p>
  );
}

/** Sessions: who used which app, when, how long, on what device, and with how many errors; a row opens the session. */
export default function SessionsPage() {
  const [params] = useUrlState();
  const range = useTimeRange();
  const facetsQuery = { app: params.get('app') ?? undefined, from: range.from, to: range.to };
  const facets = useApi((o) => sessionsClient.facets.$get({ query: facetsQuery }, o), [facetsQuery]);
  const attr = params.get('attr');
  const badAttr = attr !== null && parseAttribute(attr) === null;
  const query = sessionsQuery(params, range);
  const list = useApi(badAttr ? null : (o) => sessionsClient.index.$get({ query }, o), [query]);
  const [arrived, setArrived] = useState<FirstData>();
  const { reload } = list;
  const onArrived = useCallback(
    (first: FirstData) => {
      setArrived(first);
      reload();
    },
    [reload],
  );
  return (
    <div className="sessions-page">
      <PageHeader title="Sessions">
        <TimeRangePicker />
      </PageHeader>
      <FilterBar label="Session filters" fields={filterFields(facets.data, params)} />
      {badAttr && (
        <p role="alert" className="state state-error">
          The attribute filter must be key=value, e.g. plan=pro.
        </p>
      )}
      {arrived && <FirstDataNotice first={arrived} />}
      {list.data?.data.length === 0 ? (
        <NoSessions onArrived={onArrived} />
      ) : (
        <PagedTable
          list={list}
          empty={null}
          caption="Sessions"
          columns={COLUMNS}
          rowKey={(s) => s.session_id}
          rowHref={(s) => `/session/${encodeURIComponent(s.session_id)}`}
          defaultSort={{ id: 'last_seen', order: 'desc' }}
        />
      )}
    </div>
  );
}
