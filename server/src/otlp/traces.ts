import { invalid } from '../shared/domain-errors';
import {
  nanosToMillis,
  readArray,
  readId,
  readInteger,
  readObject,
  readString,
  readUint64,
  type JsonObject,
} from '../json/read';
import type { PendingBatch, PendingRow } from './records';
import { traceKey } from '../db/trace-key';
import { RecordBudget } from '../ingest/limits';
import { redactSpanName } from '../privacy/url-attributes';
import { SessionFactsCollector, spanPages } from './session-facts';
import { sessionIdOf, toPlainAttributes } from './values';
import { forEachRecord, type RecordContext } from './walk';

/** Validates an OTLP/JSON ExportTraceServiceRequest and flattens it into span rows. */
export function normalizeTraces(body: unknown): PendingBatch<'spans'> {
  const rows: PendingRow<'spans'>[] = [];
  const services: string[] = [];
  const budget = new RecordBudget('spans');
  const sessions = new SessionFactsCollector();
  forEachRecord(body, TRACES, (span, ctx) => {
    budget.take(ctx.path);
    rows.push(normalizeSpan(span, ctx, sessions));
    services.push(ctx.resource.serviceName);
  });
  return { table: 'spans', rows, services, sessions: sessions.list() };
}

const TRACES = {
  message: 'ExportTraceServiceRequest',
  resources: 'resourceSpans',
  scopes: 'scopeSpans',
  records: 'spans',
};

function normalizeSpan(
  span: JsonObject,
  { path, resource, resourceJson, scopeJson }: RecordContext,
  sessions: SessionFactsCollector,
): PendingRow<'spans'> {
  const startNs = readUint64(span.startTimeUnixNano, `${path}.startTimeUnixNano`);
  const endNs = readUint64(span.endTimeUnixNano, `${path}.endTimeUnixNano`);
  // Exact: nanosecond epochs exceed 2^53, so a Number difference would be off by tens of nanoseconds.
  const durationNs = Number(BigInt(endNs) - BigInt(startNs));
  if (durationNs < 0) {
    throw invalid(`${path}.endTimeUnixNano must not be before startTimeUnixNano`, 'invalid_request', {
      field: `${path}.endTimeUnixNano`,
    });
  }
  const attributes = toPlainAttributes(span.attributes, `${path}.attributes`);
  const status = span.status === undefined || span.status === null ? {} : readObject(span.status, `${path}.status`);
  const events = readArray(span.events, `${path}.events`).map((raw, i) => {
    const at = `${path}.events[${i}]`;
    const e = readObject(raw, at);
    return {
      timeUnixNano: readUint64(e.timeUnixNano, `${at}.timeUnixNano`),
      name: readString(e.name, `${at}.name`) ?? '',
      attributes: toPlainAttributes(e.attributes, `${at}.attributes`),
    };
  });
  const links = readArray(span.links, `${path}.links`).map((raw, i) => {
    const at = `${path}.links[${i}]`;
    const l = readObject(raw, at);
    return {
      traceId: readId(l.traceId, `${at}.traceId`, 16, false),
      spanId: readId(l.spanId, `${at}.spanId`, 8, false),
      traceState: readString(l.traceState, `${at}.traceState`) ?? '',
      attributes: toPlainAttributes(l.attributes, `${at}.attributes`),
    };
  });
  const traceId = readId(span.traceId, `${path}.traceId`, 16, false)!;
  const sessionId = sessionIdOf(attributes, `${path}.attributes`) ?? resource.sessionId ?? null;
  const timeMs = nanosToMillis(startNs);
  const name = redactSpanName(readString(span.name, `${path}.name`) ?? '');
  sessions.note(sessionId, timeMs, attributes, resource, spanPages(name, attributes));
  return {
    trace_id: traceId,
    trace_key: traceKey(traceId),
    span_id: readId(span.spanId, `${path}.spanId`, 8, false)!,
    parent_span_id: readId(span.parentSpanId, `${path}.parentSpanId`, 8, true) ?? null,
    name,
    kind: readInteger(span.kind, `${path}.kind`, 0, 5) ?? 0,
    start_ns: startNs,
    end_ns: endNs,
    time_ms: timeMs,
    duration_ms: durationNs / 1e6,
    status_code: readInteger(status.code, `${path}.status.code`, 0, 2) ?? 0,
    status_message: readString(status.message, `${path}.status.message`) || null,
    session_id: sessionId,
    attributes: JSON.stringify(attributes),
    events: JSON.stringify(events),
    links: JSON.stringify(links),
    resource: resourceJson,
    scope: scopeJson,
  };
}
