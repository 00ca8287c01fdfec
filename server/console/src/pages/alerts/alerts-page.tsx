import { Link } from 'wouter';
import { alertRulesClient } from '../../api/typed';
import { can } from '../../api/types';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import type { Column } from '../../ui/data-table';
import { formatAgo, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { PagedTable } from '../../ui/paged-table';
import { pick, useUrlState } from '../../ui/url-state';
import { conditionText, measureText, RuleStateBadge, valueText } from './rule-text';
import type { Rule } from './types';
import './alerts.css';

const COLUMNS: ReadonlyArray<Column<Rule>> = [
  { id: 'name', header: 'Rule', cell: (r) => r.name },
  {
    id: 'signal',
    header: 'Measures',
    cell: (r) => (
      <>
        {measureText(r)} <span className="hint">({r.signal})</span>
      </>
    ),
  },
  { id: 'condition', header: 'Fires when', cell: (r) => conditionText(r) },
  {
    id: 'state',
    header: 'State',
    cell: (r) => (r.enabled ? <RuleStateBadge state={r.state} /> : <span className="hint">disabled</span>),
  },
  {
    id: 'last_value',
    header: 'Last value',
    numeric: true,
    cell: (r) => (
      <span title={r.last_evaluated_at ? `evaluated ${formatTime(r.last_evaluated_at)}` : 'not evaluated yet'}>
        {r.last_evaluated_at ? valueText(r, r.last_value) : '—'}
        {r.last_evaluated_at && <span className="hint"> {formatAgo(r.last_evaluated_at)}</span>}
      </span>
    ),
  },
  {
    id: 'incident',
    header: 'Incident',
    cell: (r) =>
      r.incident_id ? <Link href={`/incident/${encodeURIComponent(r.incident_id)}`}>{r.incident_id}</Link> : '—',
  },
];

/** `/alerts`: the project's alert rules, newest first, each with its state, last value and open incident. */
export default function AlertsPage() {
  const me = useMe();
  const [params] = useUrlState();
  const query = pick(params, ['cursor']);
  const saved = params.get('saved');
  const list = useApi((o) => alertRulesClient.index.$get({ query }, o), [query]);
  return (
    <>
      <PageHeader title="Alerts">
        {can(me, 'project.configure') && (
          <Link href="/alert/new" className="button primary">
            New rule
          </Link>
        )}
      </PageHeader>
      {saved && (
        <p role="status" className="notice">
          Rule {saved} saved.
        </p>
      )}
      <p className="hint">
        Each rule measures one signal over a window and opens an incident when its condition holds; notifications follow
        the incident rules.
      </p>
      <PagedTable
        list={list}
        empty="No alert rules yet."
        caption="Alert rules"
        columns={COLUMNS}
        rowKey={(r) => r.id}
        rowHref={(r) => `/alert/${encodeURIComponent(r.id)}`}
      />
    </>
  );
}
