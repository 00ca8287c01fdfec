import { nanosToMillis, readId, readInteger, readString, readUint64 } from '../json/read';
import { traceKey } from '../db/trace-key';
import { RecordBudget } from '../ingest/limits';
import type { PendingBatch, PendingRow } from './records';
import { SessionFactsCollector } from './session-facts';
import { recordUidOf, sessionIdOf, toPlainAttributes, toPlainValue } from './values';
import { forEachRecord } from './walk';

const LOGS = {
  message: 'ExportLogsServiceRequest',
  resources: 'resourceLogs',
  scopes: 'scopeLogs',
  records: 'logRecords',
};

/** Validates an OTLP/JSON ExportLogsServiceRequest and flattens it into log rows. */
export function normalizeLogs(body: unknown, receivedMs: number): PendingBatch<'logs'> {
  const rows: PendingRow<'logs'>[] = [];
  const services: string[] = [];
  const budget = new RecordBudget('log records');
  const sessions = new SessionFactsCollector();
  forEachRecord(body, LOGS, (rec, { path, resource, resourceJson, scopeJson }) => {
    budget.take(path);
    const timeNs = readUint64(rec.timeUnixNano, `${path}.timeUnixNano`);
    const observedNs = readUint64(rec.observedTimeUnixNano, `${path}.observedTimeUnixNano`);
    const attributes = toPlainAttributes(rec.attributes, `${path}.attributes`);
    // The OTLP data model: when the event time is unknown, the observed time stands in; failing both, receipt.
    const eventNs = timeNs !== '0' ? timeNs : observedNs;
    const traceId = readId(rec.traceId, `${path}.traceId`, 16, true) ?? null;
    const sessionId = sessionIdOf(attributes, `${path}.attributes`) ?? resource.sessionId ?? null;
    const timeMs = eventNs !== '0' ? nanosToMillis(eventNs) : receivedMs;
    sessions.note(sessionId, timeMs, attributes, resource);
    services.push(resource.serviceName);
    rows.push({
      time_ns: timeNs,
      observed_ns: observedNs,
      time_ms: timeMs,
      severity_number: readInteger(rec.severityNumber, `${path}.severityNumber`, 0, 24) ?? 0,
      severity_text: readString(rec.severityText, `${path}.severityText`) || null,
      body: JSON.stringify(toPlainValue(rec.body, `${path}.body`)),
      event_name: readString(rec.eventName, `${path}.eventName`) || null,
      trace_id: traceId,
      trace_key: traceId === null ? null : traceKey(traceId),
      span_id: readId(rec.spanId, `${path}.spanId`, 8, true) ?? null,
      session_id: sessionId,
      record_uid: recordUidOf(attributes, `${path}.attributes`),
      attributes: JSON.stringify(attributes),
      resource: resourceJson,
      scope: scopeJson,
    });
  });
  return { table: 'logs', rows, services, sessions: sessions.list() };
}
