import { parseResponse } from 'hono/client';
import { Link, useParams } from 'wouter';
import { incidentsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { AssigneeControl } from '../../ui/assignee';
import { formatMoney, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { LoadState } from '../../ui/status';
import { RuleIncident } from '../alerts/rule-incident';
import { IncidentStatusBadge, SeverityBadge } from './badges';
import { IncidentActions } from './incident-actions';
import { costImpactOf, evidenceOf, ruleEvidenceOf, type CostImpact, type Evidence, type IncidentDetail } from './types';
import './incidents.css';

const At = ({ at }: { at: string }) => <time dateTime={at}>{formatTime(at)}</time>;

/** detected → escalated → acknowledged → resolved, and the latest assignment where it falls, the steps that happened. */
function Timeline({ incident }: { incident: IncidentDetail }) {
  const steps = [
    {
      label: 'Detected',
      at: incident.detected_at,
      by: incident.source === 'api' ? 'opened through the API' : 'by the detector',
    },
    { label: 'Escalated', at: incident.escalated_at, by: null },
    {
      label: 'Acknowledged',
      at: incident.acknowledged_at,
      by: incident.acknowledged_by && `by ${incident.acknowledged_by}`,
    },
    { label: 'Resolved', at: incident.resolved_at, by: incident.resolved_by && `by ${incident.resolved_by}` },
  ];
  if (incident.assigned_at) {
    const assigned = {
      label: incident.assignee ? `Assigned to ${incident.assignee.email}` : 'Unassigned',
      at: incident.assigned_at,
      by: incident.assigned_by && `by ${incident.assigned_by}`,
    };
    // After the steps done by then: the assignment is dated like them.
    const before = steps.findIndex((s) => s.at === null || s.at > incident.assigned_at!);
    steps.splice(before === -1 ? steps.length : before, 0, assigned);
  }
  return (
    <ol className="timeline" aria-label="Timeline">
      {steps.map((s) => (
        <li key={s.label} className={s.at ? 'done' : 'pending'}>
          <strong>{s.label}</strong> {s.at ? <At at={s.at} /> : <span className="hint">not yet</span>}{' '}
          {s.at && s.by && <span className="hint">{s.by}</span>}
        </li>
      ))}
    </ol>
  );
}

function EvidenceView({ e }: { e: Evidence }) {
  const src = e.top_frame_source;
  return (
    <section className="panel" aria-labelledby="evidence-heading">
      <h2 id="evidence-heading">Evidence</h2>
      <dl className="facts">
        <dt>Error</dt>
        <dd className="wrap">{`${e.error_type}: ${e.message}`}</dd>
        <dt>Top frame</dt>
        <dd>
          <code>
            {src
              ? `${src.function ?? e.top_frame ?? ''} ${src.file}:${src.line}:${src.column}`
              : (e.top_frame ?? 'unknown')}
          </code>
          {src?.code && (
            <pre className="top-line">
              <code>{src.code}</code>
            </pre>
          )}
        </dd>
        <dt>Occurrences</dt>
        <dd>{e.error_count.toLocaleString()}</dd>
        <dt>First seen</dt>
        <dd>
          <At at={e.first_seen_at} /> in release <code>{e.first_seen_release ?? 'unknown'}</code>
        </dd>
        <dt>Last seen</dt>
        <dd>
          <At at={e.last_seen_at} />
        </dd>
        <dt>Affected sessions</dt>
        <dd>{e.affected_sessions.toLocaleString()}</dd>
      </dl>
      {e.failing_requests.length > 0 && (
        <>
          <h3>Failing requests</h3>
          <table className="data-table">
            <caption className="visually-hidden">Failing requests around the incident</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Request</th>
                <th scope="col" className="numeric">
                  Status
                </th>
                <th scope="col">Trace</th>
              </tr>
            </thead>
            <tbody>
              {e.failing_requests.map((r) => (
                <tr key={r.span_id}>
                  <td>
                    <At at={r.at} />
                  </td>
                  <td className="wrap">{r.url ?? r.name}</td>
                  <td className="numeric">{r.status === null ? 'network error' : r.status}</td>
                  <td>
                    <Link href={`/trace/${encodeURIComponent(r.trace_id)}`}>
                      <code>{r.trace_id.slice(0, 12)}</code>
                    </Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h3>Sessions</h3>
      {e.sessions.length === 0 ? (
        <p className="hint">No session id came with these errors.</p>
      ) : (
        <ul className="session-links" aria-label="Affected sessions">
          {e.sessions.map((s) => (
            <li key={s.session_id}>
              <Link href={`/session/${encodeURIComponent(s.session_id)}`}>{s.session_id}</Link>{' '}
              <span className="hint">{s.replay_url ? 'with replay' : 'no replay'}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function CostImpactView({ impact }: { impact: CostImpact }) {
  const money = (v: number) => formatMoney(v, impact.currency);
  return (
    <section className="panel" aria-labelledby="cost-heading">
      <h2 id="cost-heading">Cost impact</h2>
      <p>
        About <strong>{money(impact.estimated_cost)}</strong> {impact.ongoing ? 'so far' : 'in all'}: the affected
        services cost {money(impact.hourly_cost)} an hour, over {impact.duration_hours} h.
      </p>
      <table className="data-table">
        <caption className="visually-hidden">Hourly cost per affected service</caption>
        <thead>
          <tr>
            <th scope="col">Service</th>
            <th scope="col" className="numeric">
              Per hour
            </th>
          </tr>
        </thead>
        <tbody>
          {impact.services.map((s) => (
            <tr key={s.service}>
              <td>{s.service}</td>
              <td className="numeric">{money(s.hourly_cost)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="hint">Basis: {impact.basis.description}.</p>
    </section>
  );
}

/** `/incident/:id`: what the signed incident page shows, with Acknowledge and Resolve for a control key. */
export default function IncidentPage() {
  const { id = '' } = useParams<{ id: string }>();
  const {
    data: incident,
    error,
    loading,
    reload,
  } = useApi((o) => incidentsClient[':id'].$get({ param: { id: encodeURIComponent(id) } }, o), [id]);
  if (!incident) return <LoadState loading={loading} error={error} />;
  const evidence = evidenceOf(incident);
  const ruleEvidence = ruleEvidenceOf(incident);
  const costImpact = costImpactOf(incident);
  // Without a model, the analysis is this summary again (the heuristic takes the incident's own): say it once.
  const analysis =
    incident.analysis?.result?.root_cause === incident.root_cause_summary ? undefined : incident.analysis?.result;
  return (
    <article className="incident-page">
      <p className="back">
        <Link href="/incidents">← Incidents</Link>
      </p>
      <PageHeader title={incident.title} />
      <div className="status-line">
        <span className="visually-hidden">Severity</span>
        <SeverityBadge severity={incident.severity} />
        <span className="visually-hidden">Status</span>
        <IncidentStatusBadge status={incident.status} />
        <IncidentActions incident={incident} onChanged={reload} />
      </div>
      <AssigneeControl
        assignment={incident}
        onAssign={async (assignee) => {
          const param = { id: encodeURIComponent(incident.id) };
          await parseResponse(incidentsClient[':id'].assignee.$put({ param, json: { assignee } }));
          reload();
        }}
      />
      <div className="incident-grid">
        <section className="panel" aria-labelledby="summary-heading">
          <h2 id="summary-heading">Summary</h2>
          <dl className="facts">
            <dt>Environment</dt>
            <dd>{incident.env}</dd>
            <dt>Services</dt>
            <dd>{incident.services.join(', ') || '—'}</dd>
            {incident.issue_id && (
              <>
                <dt>Issue</dt>
                <dd>
                  <Link href={`/issue/${encodeURIComponent(incident.issue_id)}`}>
                    its stack, source lines and breadcrumbs
                  </Link>
                </dd>
              </>
            )}
            <dt>Incident id</dt>
            <dd>
              <code>{incident.id}</code>
            </dd>
          </dl>
          <h3>Root cause</h3>
          <p className="wrap">{incident.root_cause_summary || 'No summary.'}</p>
          {analysis && (
            <>
              <h3>Analysis ({incident.analysis?.mode})</h3>
              <p className="wrap">{analysis.root_cause}</p>
            </>
          )}
        </section>
        <section className="panel" aria-labelledby="timeline-heading">
          <h2 id="timeline-heading">Timeline</h2>
          <Timeline incident={incident} />
        </section>
      </div>
      {evidence && <EvidenceView e={evidence} />}
      {ruleEvidence && <RuleIncident incident={incident} evidence={ruleEvidence} />}
      {costImpact && <CostImpactView impact={costImpact} />}
    </article>
  );
}
