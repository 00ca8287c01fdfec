import { badRequest } from '../http/errors';
import { nanosToMillis, readArray, readId, readInteger, readObject, readString, readUint64 } from '../json/read';
import type { PendingBatch, PendingRow } from './records';
import { readResource, readScope, sessionIdOf, toPlainAttributes, toPlainValue } from './values';

/** Validates an OTLP/JSON ExportLogsServiceRequest and flattens it into log rows. */
export function normalizeLogs(body: unknown, receivedMs: number): PendingBatch<'logs'> {
  const root = readObject(body, 'body');
  if (root.resourceLogs === undefined || root.resourceLogs === null) {
    throw badRequest('resourceLogs is required: an OTLP ExportLogsServiceRequest has at least one ResourceLogs', {
      field: 'resourceLogs',
    });
  }
  const rows: PendingRow<'logs'>[] = [];
  readArray(root.resourceLogs, 'resourceLogs').forEach((rlRaw, i) => {
    const rlPath = `resourceLogs[${i}]`;
    const rl = readObject(rlRaw, rlPath);
    const resource = readResource(rl, rlPath);
    const resourceJson = JSON.stringify({ attributes: resource.attributes });
    readArray(rl.scopeLogs, `${rlPath}.scopeLogs`).forEach((slRaw, j) => {
      const slPath = `${rlPath}.scopeLogs[${j}]`;
      const sl = readObject(slRaw, slPath);
      const scope = JSON.stringify(readScope(sl, slPath));
      readArray(sl.logRecords, `${slPath}.logRecords`).forEach((recRaw, k) => {
        const path = `${slPath}.logRecords[${k}]`;
        const rec = readObject(recRaw, path);
        const timeNs = readUint64(rec.timeUnixNano, `${path}.timeUnixNano`);
        const observedNs = readUint64(rec.observedTimeUnixNano, `${path}.observedTimeUnixNano`);
        const attributes = toPlainAttributes(rec.attributes, `${path}.attributes`);
        // The OTLP data model: when the event time is unknown, the observed time stands in; failing both, receipt.
        const eventNs = timeNs !== '0' ? timeNs : observedNs;
        rows.push({
          serviceName: resource.serviceName,
          time_ns: timeNs,
          observed_ns: observedNs,
          time_ms: eventNs !== '0' ? nanosToMillis(eventNs) : receivedMs,
          severity_number: readInteger(rec.severityNumber, `${path}.severityNumber`, 0, 24) ?? 0,
          severity_text: readString(rec.severityText, `${path}.severityText`) || null,
          body: JSON.stringify(toPlainValue(rec.body, `${path}.body`)),
          event_name: readString(rec.eventName, `${path}.eventName`) || null,
          trace_id: readId(rec.traceId, `${path}.traceId`, 16, true) ?? null,
          span_id: readId(rec.spanId, `${path}.spanId`, 8, true) ?? null,
          session_id: sessionIdOf(attributes) ?? resource.sessionId ?? null,
          attributes: JSON.stringify(attributes),
          resource: resourceJson,
          scope,
        });
      });
    });
  });
  return { table: 'logs', rows };
}
