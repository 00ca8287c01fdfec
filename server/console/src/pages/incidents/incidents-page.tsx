import { incidentsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import type { Column } from '../../ui/data-table';
import { FilterBar, type FilterField } from '../../ui/filter-bar';
import { formatAgo, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { AssigneeName, assignedToMe, MINE } from '../../ui/assignee';
import { PagedTable } from '../../ui/paged-table';
import { pick, useUrlState } from '../../ui/url-state';
import { IncidentStatusBadge, SeverityBadge } from './badges';
import { INCIDENT_STATUSES, SEVERITIES, type Incident } from './types';
import './incidents.css';

const when = (at: string | null, by?: string | null) =>
  at ? (
    <time dateTime={at} title={`${formatTime(at)}${by ? ` by ${by}` : ''}`}>
      {formatAgo(at)}
    </time>
  ) : (
    '—'
  );

const COLUMNS: ReadonlyArray<Column<Incident>> = [
  { id: 'title', header: 'Incident', cell: (i) => <span className="incident-title">{i.title}</span> },
  { id: 'severity', header: 'Severity', sortable: true, cell: (i) => <SeverityBadge severity={i.severity} /> },
  { id: 'status', header: 'Status', cell: (i) => <IncidentStatusBadge status={i.status} /> },
  { id: 'services', header: 'Services', cell: (i) => i.services.join(', ') || '—' },
  { id: 'env', header: 'Env', cell: (i) => i.env },
  { id: 'detected', header: 'Detected', sortable: true, cell: (i) => when(i.detected_at) },
  { id: 'acknowledged', header: 'Acknowledged', cell: (i) => when(i.acknowledged_at, i.acknowledged_by) },
  { id: 'resolved', header: 'Resolved', cell: (i) => when(i.resolved_at, i.resolved_by) },
  { id: 'updated', header: 'Updated', sortable: true, cell: (i) => when(i.updated_at) },
  { id: 'assignee', header: 'Assignee', cell: (i) => <AssigneeName assignee={i.assignee} /> },
];

const FIELDS: FilterField[] = [
  { name: 'status', label: 'Status', kind: 'select', options: INCIDENT_STATUSES.map((s) => ({ value: s, label: s })) },
  { name: 'severity', label: 'Severity', kind: 'select', options: SEVERITIES.map((s) => ({ value: s, label: s })) },
  { name: 'env', label: 'Environment', kind: 'text' },
  { name: 'service', label: 'Service', kind: 'text' },
];

/** `/incidents`: newest first unless a column sorts them, filters, sort and page in the URL; a row opens `/incident/<id>`. */
export default function IncidentsPage() {
  const me = useMe();
  const [params] = useUrlState();
  const query = {
    ...pick(params, ['status', 'severity', 'env', 'service', 'sort', 'order', 'cursor', 'limit']),
    assignee: assignedToMe(me, params),
  };
  const list = useApi((o) => incidentsClient.index.$get({ query }, o), [query]);
  // A person's own: a key is nobody (docs/teams.md, "Ownership").
  const fields: FilterField[] = me.person
    ? [...FIELDS, { name: MINE, label: 'Assigned to me', kind: 'checkbox' }]
    : FIELDS;
  return (
    <>
      <PageHeader title="Incidents" />
      <FilterBar label="Incident filters" fields={fields} />
      <PagedTable
        list={list}
        empty="No incident matches these filters."
        caption="Incidents"
        columns={COLUMNS}
        rowKey={(i) => i.id}
        rowHref={(i) => `/incident/${encodeURIComponent(i.id)}`}
        defaultSort={{ id: 'detected', order: 'desc' }}
      />
    </>
  );
}
