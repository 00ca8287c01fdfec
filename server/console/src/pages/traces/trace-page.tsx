import { Link, useParams } from 'wouter';
import { tracesClient } from '../../api/typed';
import { useApi } from '../../api/use-api';
import { formatDuration, formatTime } from '../../ui/format';
import { PageHeader } from '../../ui/layout';
import { Badge, LoadState } from '../../ui/status';
import { serviceOf, Waterfall, type SpanJson } from '../../ui/waterfall';
import './traces.css';

const nanosToMs = (nanos: string) => Number(nanos) / 1e6;

function facts(spans: readonly SpanJson[]) {
  const start = Math.min(...spans.map((s) => nanosToMs(s.start_time_unix_nano)));
  const end = Math.max(...spans.map((s) => nanosToMs(s.end_time_unix_nano)));
  return {
    start,
    duration: end - start,
    services: [...new Set(spans.map(serviceOf).filter((s): s is string => s !== null))].sort(),
    sessions: [...new Set(spans.map((s) => s.session_id).filter((s): s is string => s !== null))].sort(),
  };
}

/** One trace: its facts (duration, services, spans, errors, session) and its spans as a waterfall. */
export default function TracePage() {
  const { id = '' } = useParams<{ id: string }>();
  const { data, error, loading } = useApi(
    (o) => tracesClient[':trace_id'].$get({ param: { trace_id: encodeURIComponent(id) } }, o),
    [id],
  );
  const f = data && data.spans.length > 0 ? { ...facts(data.spans), errors: data.error_count } : undefined;
  return (
    <div className="trace-page">
      <PageHeader title={data ? `Trace: ${data.label}` : 'Trace'}>
        <Link href="/traces">All traces</Link>
      </PageHeader>
      <p className="hint mono trace-id">{id}</p>
      <LoadState loading={loading} error={error} />
      {data && f && (
        <>
          <dl className="facts panel trace-facts">
            <dt>Start</dt>
            <dd>{formatTime(f.start)}</dd>
            <dt>Duration</dt>
            <dd>{formatDuration(f.duration)}</dd>
            <dt>Services</dt>
            <dd>{f.services.join(', ') || '—'}</dd>
            <dt>Spans</dt>
            <dd>
              {data.spans.length}
              {data.truncated && ' (the first ones only: the trace has more)'}
            </dd>
            <dt>Errors</dt>
            <dd>
              <Badge tone={f.errors > 0 ? 'bad' : 'neutral'}>{f.errors === 1 ? '1 error' : `${f.errors} errors`}</Badge>
            </dd>
            <dt>Session</dt>
            <dd>
              {f.sessions.length === 0
                ? '—'
                : f.sessions.map((s, i) => (
                    <span key={s}>
                      {i > 0 && ', '}
                      <Link href={`/session/${encodeURIComponent(s)}`}>{s}</Link>
                    </span>
                  ))}
            </dd>
          </dl>
          <h2>Spans</h2>
          <Waterfall spans={data.spans} />
        </>
      )}
    </div>
  );
}
