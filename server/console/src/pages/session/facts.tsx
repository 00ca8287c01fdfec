import { Link } from 'wouter';
import { formatDuration, formatTime } from '../../ui/format';
import type { SessionDetail } from './types';

const device = (d: SessionDetail['device']) =>
  d &&
  [d.browser && `${d.browser}${d.browser_version ? ` ${d.browser_version}` : ''}`, d.os, d.type]
    .filter(Boolean)
    .join(' · ');

/** Who, where and how long: the session's summary above the replay. */
export function SessionFacts({ detail }: { detail: SessionDetail }) {
  const user = detail.user
    ? [detail.user.name, detail.user.email, detail.user.id].filter(Boolean).join(' · ')
    : 'anonymous';
  const duration = detail.duration_ms ?? Date.parse(detail.last_seen) - Date.parse(detail.first_seen);
  const c = detail.counts;
  return (
    <dl className="facts session-facts">
      <dt>User</dt>
      <dd>{user}</dd>
      <dt>App</dt>
      <dd>{detail.app}</dd>
      <dt>Env / release</dt>
      <dd>
        {detail.env ?? '—'} / {detail.release ?? '—'}
      </dd>
      <dt>Device</dt>
      <dd>{device(detail.device) || '—'}</dd>
      <dt>Started</dt>
      <dd>{formatTime(detail.first_seen)}</dd>
      <dt>Duration</dt>
      <dd>{formatDuration(duration)}</dd>
      {detail.test && (
        <>
          <dt>Test</dt>
          <dd>
            {detail.test.title ?? detail.test.test_id ?? 'a test'}
            {detail.test.retry ? ` (retry ${detail.test.retry})` : ''} in run{' '}
            <Link href={`/test-run/${encodeURIComponent(detail.test.run_id)}`}>{detail.test.run_id}</Link>
          </dd>
        </>
      )}
      <dt>Counts</dt>
      <dd>
        {detail.errors ?? 0} errors · {c.logs} logs · {c.recipes} requests · {c.spans} spans · {detail.pages ?? 0} pages
        · {c.replay_chunks} replay chunks
      </dd>
    </dl>
  );
}
