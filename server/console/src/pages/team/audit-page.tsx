import { Link } from 'wouter';
import { auditClient } from '../../api/typed';
import { searchParams } from '../../api/client';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import type { Column } from '../../ui/data-table';
import { FilterBar, type FilterField } from '../../ui/filter-bar';
import { formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { PagedTable } from '../../ui/paged-table';
import { TimeRangePicker, useTimeRange } from '../../ui/time-range';
import { pick, useUrlState } from '../../ui/url-state';
import type { AuditEntry } from './types';
import './team.css';

const FIELDS: readonly FilterField[] = [
  { name: 'actor', label: 'Actor', kind: 'search', placeholder: 'E-mail or key:<name>' },
  { name: 'operation', label: 'Operation', kind: 'search', placeholder: 'e.g. DELETE /control-plane/keys/{id}' },
  { name: 'target_type', label: 'Target type', kind: 'text', placeholder: 'e.g. key' },
  { name: 'target_id', label: 'Target id', kind: 'text' },
];
const FILTERS = FIELDS.map((f) => f.name);

/** What changed, as the before and after the entry recorded (secrets are never in them). */
function Changes({ changes }: { changes: AuditEntry['changes'] }) {
  const parts = [
    changes.before === undefined ? '' : `before: ${JSON.stringify(changes.before)}`,
    changes.after === undefined ? '' : `after: ${JSON.stringify(changes.after)}`,
  ].filter(Boolean);
  return parts.length === 0 ? (
    <span className="hint">—</span>
  ) : (
    <pre className="audit-changes mono">{parts.join('\n')}</pre>
  );
}

const COLUMNS: ReadonlyArray<Column<AuditEntry>> = [
  { id: 'at', header: 'When', cell: (e) => <time dateTime={e.at}>{formatTime(e.at)}</time> },
  {
    id: 'actor',
    header: 'Who',
    // A link to this actor's changes alone: the filter a reader reaches for next.
    cell: (e) => (
      <Link href={`/audit?actor=${encodeURIComponent(e.actor.label)}`} title={`Only the changes of ${e.actor.label}`}>
        {e.actor.label}
      </Link>
    ),
  },
  { id: 'operation', header: 'Operation', cell: (e) => <code>{e.operation}</code> },
  {
    id: 'target',
    header: 'Target',
    cell: (e) => (e.target ? <span className="audit-target">{`${e.target.type} ${e.target.id}`}</span> : '—'),
  },
  { id: 'changes', header: 'Changes', cell: (e) => <Changes changes={e.changes} /> },
  { id: 'address', header: 'From', cell: (e) => e.address ?? '—' },
  { id: 'status', header: 'Status', cell: (e) => String(e.status) },
];

/**
 * `/audit`: every change (who, what, before and after, when, from where), newest first, filtered by actor,
 * operation, target and time; the filters are the URL's, and "Export JSON lines" downloads the time range.
 */
export default function AuditPage() {
  const me = useMe();
  const [params] = useUrlState();
  const { from, to } = useTimeRange();
  const query = { ...pick(params, [...FILTERS, 'cursor']), from, to };
  const list = useApi((o) => auditClient.index.$get({ query }, o), [query]);
  // The export takes the time range only (GET /control-plane/audit/export?from=&to=).
  const exportQuery = searchParams({ from, to }).toString();
  return (
    <>
      <PageHeader title="Audit log">
        <TimeRangePicker />
        {me.person ? (
          <a
            className="button-link"
            href={`/control-plane/audit/export${exportQuery ? `?${exportQuery}` : ''}`}
            download
          >
            Export JSON lines
          </a>
        ) : (
          <span className="hint">Export: GET /control-plane/audit/export with the key</span>
        )}
      </PageHeader>
      <FilterBar label="Audit filters" fields={FIELDS} />
      <PagedTable
        list={list}
        empty="No change matches these filters."
        caption="Audit log"
        columns={COLUMNS}
        rowKey={(e) => e.id}
      />
    </>
  );
}
