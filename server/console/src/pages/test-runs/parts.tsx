import type { ApiState } from '../../api/use-api';
import type { Page } from '../../api/client';
import { Badge } from '../../ui/status';
import type { AttemptStatus, Outcome, Run, RunStatus } from './types';

const RUN_TONE = { running: 'info', passed: 'good', failed: 'bad', interrupted: 'warn', timedout: 'bad' } as const;
const OUTCOME = {
  expected: { tone: 'good', label: 'passed' },
  unexpected: { tone: 'bad', label: 'failed' },
  flaky: { tone: 'warn', label: 'flaky' },
  skipped: { tone: 'neutral', label: 'skipped' },
} as const;

/** A run's status and a test's outcome as labelled badges: the word carries the meaning, the colour only helps. */
export const RunStatusBadge = ({ status }: { status: RunStatus }) => (
  <Badge tone={RUN_TONE[status] ?? 'neutral'}>{status === 'timedout' ? 'timed out' : status}</Badge>
);

/** "expected" reads as "passed" (or "skipped" when the final attempt was a skip), "unexpected" as "failed". */
export function OutcomeBadge({ outcome, status }: { outcome: Outcome; status?: AttemptStatus }) {
  const o = OUTCOME[outcome] ?? { tone: 'neutral', label: outcome };
  const label = outcome === 'unexpected' && status && status !== 'failed' ? attemptLabel(status) : o.label;
  return <Badge tone={o.tone}>{label}</Badge>;
}

export const attemptLabel = (status: AttemptStatus) => (status === 'timedOut' ? 'timed out' : status);

/** A test as lists name it: its title path, the file (and line) under it. */
export function TestTitle({ title, file }: { title: string; file: string }) {
  return (
    <span className="test-title">
      {title}
      <span className="test-file">{file}</span>
    </span>
  );
}

/** A commit's first 7 characters, the whole hash on hover and for readers. */
export function Commit({ sha }: { sha: string | null }) {
  if (!sha) return <span className="hint">—</span>;
  return (
    <code className="commit" title={sha}>
      {sha.slice(0, 7)}
    </code>
  );
}

/** The CI job the run came from, when the reporter knew it (a link out of the console). */
export function CiLink({ run }: { run: Pick<Run, 'ci' | 'run_id'> }) {
  const { job_url: url, provider, build_id: build } = run.ci;
  const label = [provider, build].filter(Boolean).join(' ') || 'job';
  if (!url || !/^https?:\/\//i.test(url)) return <span className="hint">{url ? label : '—'}</span>;
  return (
    <a href={url} target="_blank" rel="noreferrer noopener">
      {label}
      <span className="visually-hidden"> (CI job of run {run.run_id}, opens in a new tab)</span>
    </a>
  );
}

/** A path parameter as written: wouter decodes paths with decodeURI, which leaves `%3A` (a run id's `:`) encoded. */
export function pathParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** The flaky list answers one page (`{ data }`); the console's tables page `{ data, next_cursor }`. */
export function onePage<T>(state: ApiState<{ data: T[] }>): ApiState<Page<T>> {
  const { data, ...rest } = state;
  return { ...rest, data: data && { data: data.data, next_cursor: null } };
}
