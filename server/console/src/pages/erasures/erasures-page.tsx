import { useEffect, useId, useState, type FormEvent } from 'react';
import { parseResponse, type InferResponseType } from 'hono/client';
import { erasuresClient } from '../../api/typed';
import { can } from '../../api/types';
import { useApi } from '../../api/use-api';
import { useMe } from '../../auth/me-context';
import { formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { Badge, LoadState } from '../../ui/status';
import { ActionError, useAction } from '../../ui/use-action';
import './erasures.css';

type Job = InferResponseType<(typeof erasuresClient)['index']['$get'], 200>['data'][number];
type Request = Parameters<(typeof erasuresClient)['index']['$post']>[0]['json'];
type Kind = Job['target']['kind'];

/** How often the list is read again while a job is queued or running. */
const FOLLOW_MS = 1000;

const KINDS: ReadonlyArray<{ kind: Kind; label: string }> = [
  { kind: 'user_id', label: 'User id' },
  { kind: 'session_id', label: 'Session id' },
  { kind: 'attribute', label: 'Attribute value' },
];

const TONE = { queued: 'neutral', running: 'warn', done: 'good', failed: 'bad' } as const;

/** The request the form names: exactly one target. */
function requestOf(form: FormData): Request {
  const value = String(form.get('value') ?? '');
  const kind = String(form.get('kind')) as Kind;
  if (kind === 'attribute') return { attribute: { key: String(form.get('key') ?? ''), value } };
  return kind === 'session_id' ? { session_id: value } : { user_id: value };
}

const countsOf = (job: Job) =>
  Object.entries(job.counts)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ') || 'nothing yet';

/** The form: what to erase, its value, and a confirmation that it cannot be undone. */
function EraseForm({ onQueued }: { onQueued: (job: Job) => void }) {
  const id = useId();
  const [kind, setKind] = useState<Kind>('user_id');
  const erase = useAction(async (json: Request) => {
    onQueued(await parseResponse(erasuresClient.index.$post({ json })));
  });
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    void erase.run(requestOf(new FormData(form))).then(() => form.reset());
  };
  return (
    <form className="panel erasure-form" onSubmit={submit}>
      <fieldset>
        <legend>Erase everything of</legend>
        {KINDS.map((k) => (
          <label key={k.kind} className="inline">
            <input type="radio" name="kind" value={k.kind} checked={kind === k.kind} onChange={() => setKind(k.kind)} />
            {k.label}
          </label>
        ))}
      </fieldset>
      {kind === 'attribute' && (
        <p>
          <label htmlFor={`${id}-key`}>Attribute key</label>
          <input id={`${id}-key`} name="key" required placeholder="customer.email" autoComplete="off" />
        </p>
      )}
      <p>
        <label htmlFor={`${id}-value`}>Value</label>
        <input id={`${id}-value`} name="value" required maxLength={1024} autoComplete="off" />
      </p>
      <p>
        <label className="inline">
          <input type="checkbox" name="confirm" required /> I understand this deletes the data for good
        </label>
      </p>
      <button type="submit" className="danger" disabled={erase.busy}>
        Erase
      </button>
      <ActionError error={erase.error} className="state state-error" />
    </form>
  );
}

/** The project's jobs, newest first: the target as a digest only, its status and what it deleted. */
function JobsTable({ jobs }: { jobs: readonly Job[] }) {
  if (jobs.length === 0) return <p className="panel">No deletion requests yet.</p>;
  return (
    <div className="table-wrap">
      <table className="data-table">
        <caption>Deletion requests</caption>
        <thead>
          <tr>
            <th scope="col">Requested</th>
            <th scope="col">Target</th>
            <th scope="col">By</th>
            <th scope="col">Status</th>
            <th scope="col">Rows deleted or scrubbed</th>
            <th scope="col">Finished</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((job) => (
            <tr key={job.id}>
              <td>{formatTime(job.created_at)}</td>
              <td>
                {job.target.kind}
                {job.target.key ? ` ${job.target.key}` : ''} <span className="mono">{job.target.digest}</span>
              </td>
              <td>{job.requested_by}</td>
              <td>
                <Badge tone={TONE[job.status]}>{job.status}</Badge>
                {job.error && <span className="state-error"> {job.error}</span>}
              </td>
              <td>{countsOf(job)}</td>
              <td>{job.finished_at ? formatTime(job.finished_at) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * `/erasures`: deletion on request (docs/governance.md). Who may configure the project asks for a user's, a session's
 * or an attribute value's data to be erased; everyone sees the jobs, followed until they end, never the value erased.
 */
export default function ErasuresPage() {
  const me = useMe();
  const jobs = useApi((o) => erasuresClient.index.$get({ query: {} }, o));
  const [notice, setNotice] = useState<string>();
  const open = jobs.data?.data.some((j) => j.status === 'queued' || j.status === 'running') ?? false;
  const { reload } = jobs;
  useEffect(() => {
    if (!open) return;
    const timer = setTimeout(reload, FOLLOW_MS);
    return () => clearTimeout(timer);
  }, [open, jobs.data, reload]);
  return (
    <>
      <PageHeader title="Deletion requests" />
      <p className="panel read-note" role="note">
        A request deletes everything the project holds of a user, a session or an attribute value: its records, its
        sessions whole with their replays and recipes, its issue and incident links; then the database is compacted so
        no file keeps the old bytes. The value itself is never shown again, only a digest of it.
      </p>
      <p role="status" className="notice">
        {notice}
      </p>
      {can(me, 'project.configure') && (
        <EraseForm
          onQueued={(job) => {
            setNotice(`Deletion request ${job.id} queued.`);
            reload();
          }}
        />
      )}
      <LoadState loading={jobs.loading && !jobs.data} error={jobs.error} />
      {jobs.data && <JobsTable jobs={jobs.data.data} />}
    </>
  );
}
