import { Link } from 'wouter';
import { recordsClient, sessionsClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { LogErrorStack } from '../../ui/stack';
import { LoadState } from '../../ui/status';
import { bodyText, isError, logTime } from '../session/logs';
import { sessionParam } from '../session/load';
import type { LogRow, SessionDetail } from '../session/types';

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** The session page's panes a failure is looked at in, opened at the same moment (`?pane=` picks the tab). */
const PANES = [
  { pane: null, label: 'Replay at the failure' },
  { pane: 'console', label: 'Console' },
  { pane: 'network', label: 'Network' },
  { pane: 'errors', label: 'Errors' },
  { pane: 'traces', label: 'Traces' },
] as const;

/**
 * Where the session page's replay starts counting: the first replay's start (what `?t=` is measured from), else the
 * session's first record.
 */
const startOf = (s: SessionDetail) => Date.parse(s.replays[0]?.start_time ?? s.first_seen);

/**
 * A session an attempt recorded in the browser: links into its replay, console, network, errors and traces at the
 * failure (its first error, else the end of the attempt), and that error's original stack as the server symbolicates it.
 */
export function AttemptSession({ sessionId, endedAt }: { sessionId: string; endedAt: number }) {
  const session = useApi((o) => sessionsClient[':id'].$get(sessionParam(sessionId), o), [sessionId]);
  // Newest first: the earliest error is the last one listed.
  const logs = useApi(
    (o) => recordsClient.logs.$get({ query: { session_id: sessionId, limit: '1000' } }, o),
    [sessionId],
  );
  if (!session.data || !logs.data)
    return <LoadState loading={session.loading || logs.loading} error={session.error ?? logs.error} />;
  // The schema types a record's `attributes` as any JSON; the server always sends an object.
  const errors = (logs.data.data as LogRow[]).filter(isError);
  const first = errors.at(-1);
  const t = Math.max(0, Math.round((first ? logTime(first) : endedAt) - startOf(session.data)));
  const href = (pane: string | null) =>
    `/session/${encodeURIComponent(sessionId)}?${pane ? `pane=${pane}&` : ''}t=${t}`;
  return (
    <div className="attempt-session">
      <p className="session-links-line">
        <span className="hint">
          Session <code>{sessionId}</code>:
        </span>{' '}
        {PANES.map((p, i) => (
          <span key={p.label}>
            {i > 0 && ' · '}
            <Link href={href(p.pane)}>{p.label}</Link>
          </span>
        ))}
        {first?.trace_id && (
          <>
            {' · '}
            <Link href={`/trace/${first.trace_id}`}>Trace of the error</Link>
          </>
        )}
      </p>
      {first ? (
        <div className="browser-error">
          <p className="error-message">
            <strong>{text(first.attributes['exception.type']) ?? first.severity_text ?? 'Error'}</strong> in the
            browser: {text(first.attributes['exception.message']) ?? bodyText(first.body)}
            {errors.length > 1 && <span className="hint"> (and {errors.length - 1} more in the session)</span>}
          </p>
          <LogErrorStack logId={first.id} hasStack={text(first.attributes['exception.stacktrace']) !== undefined} />
        </div>
      ) : (
        <p className="hint">No error was logged in the browser during this session.</p>
      )}
    </div>
  );
}
