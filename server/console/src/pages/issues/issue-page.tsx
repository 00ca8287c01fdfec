import { parseResponse } from 'hono/client';
import { Link, useParams } from 'wouter';
import { issuesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { AssigneeControl, assignmentText } from '../../ui/assignee';
import { formatClock, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { Stack } from '../../ui/stack';
import { LoadState } from '../../ui/status';
import { AnalysisPanel } from './analysis-panel';
import { IssueBreakdownPanel, IssueTrends } from './issue-depth';
import { IssueStatusBadge } from './status-badge';
import { StatusControls } from './status-controls';
import { reproductionText, seenInText } from '../../../../src/api-types';
import type { IssueDetail, Seen } from './types';
import './issues.css';

function SeenAt({ seen }: { seen: Seen }) {
  return (
    <>
      <time dateTime={seen.at}>{formatTime(seen.at)}</time>
      {seen.release !== null && (
        <>
          {' '}
          in release <code>{seen.release}</code>
        </>
      )}
    </>
  );
}

/** What the status means beyond its name. */
function statusNote(issue: IssueDetail): string {
  if (issue.status === 'regressed') return 'It was resolved and occurred again.';
  if (issue.status === 'resolved' && issue.in_next_release)
    return `Resolved for the release after ${issue.resolved_release ?? 'the one then current'}.`;
  return '';
}

function Facts({ issue }: { issue: IssueDetail }) {
  const assignment = assignmentText(issue);
  return (
    <dl className="facts">
      <dt>App</dt>
      <dd>{issue.app}</dd>
      <dt>Environment</dt>
      <dd>{issue.env}</dd>
      <dt>Events</dt>
      <dd>{issue.events.toLocaleString()}</dd>
      <dt>Sessions</dt>
      <dd>{issue.sessions.toLocaleString()}</dd>
      <dt>Seen in</dt>
      <dd>
        {seenInText(issue.seen_in)}
        {issue.caught_in_tests && <span className="hint"> — caught in tests</span>}
      </dd>
      <dt>First seen</dt>
      <dd>
        <SeenAt seen={issue.first_seen} />
      </dd>
      <dt>Last seen</dt>
      <dd>
        <SeenAt seen={issue.last_seen} />
      </dd>
      {issue.status_changed_at && (
        <>
          <dt>Status set</dt>
          <dd>
            {formatTime(issue.status_changed_at)}
            {issue.status_by && ` by ${issue.status_by}`}
          </dd>
        </>
      )}
      {assignment && (
        <>
          <dt>Assignment</dt>
          <dd>{assignment}</dd>
        </>
      )}
      {issue.incident_id && (
        <>
          <dt>Incident</dt>
          <dd>
            <Link href={`/incident/${encodeURIComponent(issue.incident_id)}`}>the incident this issue opened</Link>
          </dd>
        </>
      )}
      <dt>Issue id</dt>
      <dd>
        <code>{issue.id}</code>
      </dd>
    </dl>
  );
}

function Breadcrumbs({ crumbs }: { crumbs: IssueDetail['breadcrumbs'] }) {
  if (crumbs.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="crumbs-heading">
      <h2 id="crumbs-heading">Before the newest error</h2>
      <table className="data-table crumbs">
        <caption className="visually-hidden">Breadcrumbs before the newest error</caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">What</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {crumbs.map((b, i) => (
            <tr key={i}>
              <td>
                <time dateTime={b.at}>{formatClock(b.at)}</time>
              </td>
              <td>{b.kind}</td>
              <td className="crumb-message">{b.message}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Sessions({ sessions }: { sessions: IssueDetail['sessions_sample'] }) {
  return (
    <section className="panel" aria-labelledby="sessions-heading">
      <h2 id="sessions-heading">Affected sessions</h2>
      {sessions.length === 0 ? (
        <p className="hint">No session id came with these errors.</p>
      ) : (
        <table className="data-table">
          <caption className="visually-hidden">Affected sessions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Session</th>
              <th scope="col">User</th>
              <th scope="col">First error</th>
              <th scope="col">Last error</th>
              <th scope="col">Replay</th>
            </tr>
          </thead>
          <tbody>
            {sessions.map((s) => (
              <tr key={s.session_id}>
                <td>
                  <Link href={`/session/${encodeURIComponent(s.session_id)}`}>{s.session_id}</Link>
                </td>
                <td>{s.user_id ?? '—'}</td>
                <td>{s.first_seen ? <time dateTime={s.first_seen}>{formatTime(s.first_seen)}</time> : '—'}</td>
                <td>
                  <time dateTime={s.last_seen}>{formatTime(s.last_seen)}</time>
                </td>
                <td>{s.replay_url ? 'recorded' : 'none'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** Runs of the AI fix's reproduction test (attempts annotated `svc-issue` with this issue), each linked to its run. */
function Reproductions({ reproductions }: { reproductions: IssueDetail['reproductions'] }) {
  if (reproductions.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="reproductions-heading">
      <h2 id="reproductions-heading">Reproduction test</h2>
      <ul>
        {reproductions.map((r) => (
          <li key={`${r.run_id} ${r.at}`}>
            <Link href={`/test-run/${encodeURIComponent(r.run_id)}`}>{reproductionText(r)}</Link>,{' '}
            <time dateTime={r.at}>{formatTime(r.at)}</time>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Releases({ releases }: { releases: IssueDetail['releases'] }) {
  if (releases.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="releases-heading">
      <h2 id="releases-heading">Releases</h2>
      <table className="data-table">
        <caption className="visually-hidden">Releases the issue was seen in</caption>
        <thead>
          <tr>
            <th scope="col">Release</th>
            <th scope="col" className="numeric">
              Events
            </th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
          </tr>
        </thead>
        <tbody>
          {releases.map((r) => (
            <tr key={r.release}>
              <td>
                <code>{r.release}</code>
              </td>
              <td className="numeric">{r.events.toLocaleString()}</td>
              <td>{formatTime(r.first_seen)}</td>
              <td>{formatTime(r.last_seen)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/**
 * `/issue/:id`: an issue with its symbolicated stack, status and assignee controls, sessions, breadcrumbs, analysis and
 * pull request.
 */
export default function IssuePage() {
  const { id = '' } = useParams<{ id: string }>();
  const {
    data: issue,
    error,
    loading,
    reload,
  } = useApi((o) => issuesClient[':id'].$get({ param: { id: encodeURIComponent(id) } }, o), [id]);
  if (!issue) return <LoadState loading={loading} error={error} />;
  const note = statusNote(issue);
  return (
    <article className="issue-page">
      <p className="back">
        <Link href="/issues">← Issues</Link>
      </p>
      <PageHeader title={`${issue.type}: ${issue.message}`} />
      <div className="status-line">
        <span className="visually-hidden">Status</span>
        <IssueStatusBadge status={issue.status} />
        {note && <span className="hint">{note}</span>}
        <StatusControls issue={issue} onChanged={reload} />
      </div>
      <AssigneeControl
        assignment={issue}
        onAssign={async (assignee) => {
          const param = { id: encodeURIComponent(issue.id) };
          await parseResponse(issuesClient[':id'].assignee.$put({ param, json: { assignee } }));
          reload();
        }}
      />
      <div className="issue-grid">
        <section className="panel" aria-labelledby="facts-heading">
          <h2 id="facts-heading">Summary</h2>
          <Facts issue={issue} />
        </section>
        <AnalysisPanel issueId={issue.id} />
      </div>
      <IssueTrends trend={issue.trend} />
      <IssueBreakdownPanel breakdown={issue.breakdown} />
      <Reproductions reproductions={issue.reproductions} />
      <section className="panel" aria-labelledby="stack-heading">
        <h2 id="stack-heading">Stack</h2>
        <Stack stack={issue.stack} />
      </section>
      <Breadcrumbs crumbs={issue.breadcrumbs} />
      <Sessions sessions={issue.sessions_sample} />
      <Releases releases={issue.releases} />
    </article>
  );
}
