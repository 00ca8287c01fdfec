import { Link } from 'wouter';
import { formatDuration } from '../../ui/format';
import { Badge } from '../../ui/status';
import { AttemptSession } from './attempt-session';
import { attemptLabel } from './parts';
import type { Attempt, RunTest, TestError } from './types';

/** Playwright colours its messages with ANSI escapes; the console shows the words. */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const plain = (s: string) => s.replace(ANSI, '');

const STATUS_TONE = {
  passed: 'good',
  failed: 'bad',
  timedOut: 'bad',
  interrupted: 'warn',
  skipped: 'neutral',
} as const;

/** The test's own error (the runner's side): message, where it was raised, the stack in the test's source. */
function ErrorView({ error }: { error: TestError }) {
  const stack = error.stack ? plain(error.stack) : null;
  const message = plain(error.message);
  return (
    <div className="test-error">
      <pre className="error-text">
        <code>{message}</code>
      </pre>
      {error.location && (
        <p className="hint">
          at <code>{`${error.location.file}:${error.location.line}:${error.location.column}`}</code>
        </p>
      )}
      {stack && stack !== message && (
        <details>
          <summary>The test's stack</summary>
          <pre className="raw-stack">
            <code>{stack}</code>
          </pre>
        </details>
      )}
    </div>
  );
}

function AttemptView({ attempt, count }: { attempt: Attempt; count: number }) {
  const endedAt = Date.parse(attempt.started_at) + attempt.duration_ms;
  return (
    <section className="attempt" aria-label={`Attempt ${attempt.retry + 1}`}>
      <h3>
        {count > 1
          ? `Attempt ${attempt.retry + 1} (${attempt.retry === 0 ? 'first run' : `retry ${attempt.retry}`})`
          : 'Result'}{' '}
        <Badge tone={STATUS_TONE[attempt.status] ?? 'neutral'}>{attemptLabel(attempt.status)}</Badge>{' '}
        <span className="hint">{formatDuration(attempt.duration_ms)}</span>
      </h3>
      {attempt.error && <ErrorView error={attempt.error} />}
      {attempt.annotations.length > 0 && (
        <ul className="annotations" aria-label="Annotations">
          {attempt.annotations.map((a, i) => (
            <li key={i}>
              <strong>{a.type}</strong>
              {a.description ? `: ${a.description}` : ''}
            </li>
          ))}
        </ul>
      )}
      {attempt.sessions.length === 0 ? (
        <p className="hint">
          No browser session was recorded for this attempt (the page had no svc SDK, or sent nothing).
        </p>
      ) : (
        attempt.sessions.map((s) => <AttemptSession key={s} sessionId={s} endedAt={endedAt} />)
      )}
    </section>
  );
}

/** What a test's row opens on the run page: each attempt with its error and browser sessions; the test's history. */
export function TestDetail({ test }: { test: RunTest }) {
  return (
    <div className="test-detail">
      <p className="test-meta">
        <Link href={`/test/${encodeURIComponent(test.test_key)}`}>History of this test</Link>
        <span className="hint">
          {' · '}
          <code>{`${test.file}:${test.line}`}</code> · project {test.project || '—'} · key <code>{test.test_key}</code>
        </span>
      </p>
      {test.attempts.map((a) => (
        <AttemptView key={a.retry} attempt={a} count={test.attempts.length} />
      ))}
    </div>
  );
}
