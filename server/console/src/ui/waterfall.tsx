import { useMemo, useState } from 'react';
import { onListKeyDown } from './data-table';
import { formatDuration } from './format';
import { KeyValues } from './key-values';
import './waterfall.css';

/** A span as the control plane lists it (`GET /control-plane/spans`, server/src/records/schemas.ts Span). */
export interface SpanJson {
  id: number;
  app: string;
  session_id: string | null;
  trace_id: string;
  span_id: string;
  parent_span_id: string | null;
  name: string;
  kind: number;
  start_time_unix_nano: string;
  end_time_unix_nano: string;
  time: string;
  duration_ms: number;
  status: { code: number; message: string | null };
  attributes: unknown;
  events: unknown;
  /** `{attributes: {...}}`, where `service.name` is. */
  resource?: unknown;
}

/** The resource's `service.name` of a span, when it sent one. */
export function serviceOf(span: SpanJson): string | null {
  const resource = span.resource as { attributes?: Record<string, unknown> } | null | undefined;
  const name = resource?.attributes?.['service.name'];
  return typeof name === 'string' ? name : null;
}

/** Bar colours for services, told apart by their name beside each row too (never by colour alone). */
const SERVICE_COLOURS = ['#3b82c4', '#7c4dbd', '#0f8a7e', '#b0621d', '#5b6b80', '#a6427a'];

/** The same colour for a service wherever it appears, however many services a trace has. */
function colourOf(service: string | null): string {
  if (service === null) return SERVICE_COLOURS[4]!;
  let hash = 0;
  for (const c of service) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return SERVICE_COLOURS[hash % SERVICE_COLOURS.length]!;
}

interface Row {
  span: SpanJson;
  depth: number;
  start: number;
  end: number;
}

const STATUS_ERROR = 2;
const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

const nanosToMs = (nanos: string): number => Number(nanos) / 1e6;

/** Spans in tree order: each root (no parent among the spans given) by start, its children under it by start. */
function treeRows(spans: readonly SpanJson[]): Row[] {
  const key = (traceId: string, spanId: string) => `${traceId}/${spanId}`;
  const present = new Set(spans.map((s) => key(s.trace_id, s.span_id)));
  const children = new Map<string, SpanJson[]>();
  const roots: SpanJson[] = [];
  for (const span of spans) {
    const parent = span.parent_span_id ? key(span.trace_id, span.parent_span_id) : undefined;
    if (parent && present.has(parent)) children.set(parent, [...(children.get(parent) ?? []), span]);
    else roots.push(span);
  }
  const byStart = (a: SpanJson, b: SpanJson) => nanosToMs(a.start_time_unix_nano) - nanosToMs(b.start_time_unix_nano);
  const rows: Row[] = [];
  const visit = (span: SpanJson, depth: number, seen: Set<string>) => {
    const id = key(span.trace_id, span.span_id);
    // A span listed twice, or a parent loop in hostile data, is drawn once.
    if (seen.has(id)) return;
    seen.add(id);
    const start = nanosToMs(span.start_time_unix_nano);
    rows.push({ span, depth, start, end: Math.max(start, nanosToMs(span.end_time_unix_nano)) });
    for (const child of (children.get(id) ?? []).sort(byStart)) visit(child, depth + 1, seen);
  };
  const seen = new Set<string>();
  for (const root of roots.sort(byStart)) visit(root, 0, seen);
  return rows;
}

const attributeEntries = (value: unknown): Array<[string, string]> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)
    ? Object.entries(value as Record<string, unknown>).map(([k, v]) => [
        k,
        typeof v === 'string' ? v : JSON.stringify(v),
      ])
    : [];

interface SpanEvent {
  name?: unknown;
  time_unix_nano?: unknown;
  timeUnixNano?: unknown;
  attributes?: unknown;
}

function SpanDetail({ row }: { row: Row }) {
  const { span } = row;
  const attributes = attributeEntries(span.attributes);
  const events = Array.isArray(span.events) ? (span.events as SpanEvent[]) : [];
  return (
    <section className="waterfall-detail" aria-label={`Span ${span.name}`}>
      <h4>{span.name}</h4>
      <dl className="facts">
        <dt>Duration</dt>
        <dd>{formatDuration(row.end - row.start)}</dd>
        <dt>Status</dt>
        <dd>
          {span.status.code === STATUS_ERROR
            ? `error${span.status.message ? `: ${span.status.message}` : ''}`
            : span.status.code === 1
              ? 'ok'
              : 'unset'}
        </dd>
        <dt>Service</dt>
        <dd>{serviceOf(span) ?? '—'}</dd>
        <dt>Kind</dt>
        <dd>{KINDS[span.kind] ?? span.kind}</dd>
        <dt>Trace</dt>
        <dd className="mono">{span.trace_id}</dd>
        <dt>Span</dt>
        <dd className="mono">{span.span_id}</dd>
      </dl>
      <h5>Attributes</h5>
      <KeyValues caption={`Attributes of ${span.name}`} entries={attributes} none="None." />
      <h5>Events</h5>
      {events.length === 0 ? (
        <p className="hint">None.</p>
      ) : (
        <ul className="span-events">
          {events.map((e, i) => {
            const nanos = e.time_unix_nano ?? e.timeUnixNano;
            const at =
              typeof nanos === 'string' || typeof nanos === 'number' ? nanosToMs(String(nanos)) - row.start : undefined;
            return (
              <li key={i}>
                <strong>{String(e.name ?? '(unnamed)')}</strong>
                {at !== undefined && ` at +${formatDuration(at)}`}
                {attributeEntries(e.attributes).map(([k, v]) => (
                  <span key={k} className="mono">
                    {' '}
                    {k}={v}
                  </span>
                ))}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/**
 * Spans as a waterfall: rows nested under their parents, bars placed by start and duration on one time axis.
 * Rows are buttons (arrow keys move, Enter or a click selects); the selected span's attributes and events show
 * below, and `onSelectTime` gets its start (epoch ms). `activeTimeMs` (epoch ms) draws a cursor and marks the
 * spans running at that moment.
 */
export function Waterfall({
  spans,
  activeTimeMs,
  onSelectTime,
}: {
  spans: SpanJson[];
  activeTimeMs?: number;
  onSelectTime?: (ms: number) => void;
}) {
  const rows = useMemo(() => treeRows(spans), [spans]);
  const [selected, setSelected] = useState<string | undefined>();
  if (rows.length === 0) return <p className="state">No spans.</p>;
  const from = Math.min(...rows.map((r) => r.start));
  const to = Math.max(...rows.map((r) => r.end));
  const span = Math.max(1, to - from);
  const pct = (ms: number) => `${(((ms - from) / span) * 100).toFixed(3)}%`;
  const inWindow = activeTimeMs !== undefined && activeTimeMs >= from && activeTimeMs <= to;
  const selectedRow = rows.find((r) => r.span.span_id === selected);
  return (
    <div className="waterfall">
      <div className="waterfall-axis" aria-hidden="true">
        <span>0</span>
        <span>{formatDuration(span / 2)}</span>
        <span>{formatDuration(span)}</span>
      </div>
      <ol className="waterfall-rows" aria-label="Spans" onKeyDown={onListKeyDown}>
        {rows.map((row) => {
          const running = activeTimeMs !== undefined && activeTimeMs >= row.start && activeTimeMs <= row.end;
          const error = row.span.status.code === STATUS_ERROR;
          const service = serviceOf(row.span);
          return (
            <li key={`${row.span.trace_id}/${row.span.span_id}`}>
              <button
                type="button"
                data-row
                className={`waterfall-row${running ? ' running' : ''}${selected === row.span.span_id ? ' selected' : ''}`}
                aria-pressed={selected === row.span.span_id}
                aria-current={running ? 'time' : undefined}
                onClick={() => {
                  setSelected(row.span.span_id);
                  onSelectTime?.(row.start);
                }}
              >
                <span className="waterfall-name" style={{ paddingLeft: `${row.depth * 14}px` }}>
                  {row.span.name}
                  {error && <span className="badge badge-bad">error</span>}
                </span>
                <span className="waterfall-service" title={service ?? 'no service.name'}>
                  <span className="swatch" style={{ background: colourOf(service) }} aria-hidden="true" />
                  {service ?? '—'}
                </span>
                <span className="waterfall-duration">{formatDuration(row.end - row.start)}</span>
                <span className="waterfall-track">
                  <span
                    className={`waterfall-bar${error ? ' error' : ''}`}
                    style={{
                      left: pct(row.start),
                      width: `max(2px, ${(((row.end - row.start) / span) * 100).toFixed(3)}%)`,
                      ...(error ? {} : { background: colourOf(service) }),
                    }}
                  />
                  {inWindow && <span className="waterfall-cursor" style={{ left: pct(activeTimeMs) }} />}
                </span>
              </button>
            </li>
          );
        })}
      </ol>
      {selectedRow ? (
        <SpanDetail row={selectedRow} />
      ) : (
        <p className="hint">Select a span to see its attributes and events.</p>
      )}
    </div>
  );
}
