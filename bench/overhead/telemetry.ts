/**
 * Where the bytes of a run's telemetry go: every request the sink received, split into categories by what it
 * carried. Totals are exact (body bytes as received, and uncompressed); a category's bytes are the uncompressed JSON
 * text of its records, and what is left of each request (OTLP resource and scope wrappers, Sentry envelope headers) is its own category, so the
 * categories add up to the total.
 *
 * - svc, OTLP/JSON: spans by name, logs by `log.source` (else `http` for fetch outcomes, else `manual`), metrics by
 *   name, replay requests by path.
 * - Sentry envelopes: items by type; spans (streamed span items, or the child spans of a transaction) by `op`.
 * - Datadog intake: RUM events by `type` (view, action, resource, long task, error...), logs by `status`; replay
 *   segments (multipart form data around the deflated recording) by request, as sent.
 */
import { gunzipSync, inflateSync } from 'node:zlib';
import type { SinkRequest } from './servers';

/** A kind of record, how many were sent and their bytes. */
export interface Category {
  name: string;
  count: number;
  bytes: number;
}

/** A run's telemetry. */
export interface TelemetrySummary {
  requests: number;
  /** Request body bytes as sent (compressed if the SDK compressed). */
  bytes: number;
  /** The part of `bytes` in requests carrying session replay (recording and replay metadata, svc's recipes). */
  replayBytes: number;
  /** The same bodies uncompressed; the categories add up to this. */
  decodedBytes: number;
  /** `Content-Encoding` values seen. */
  encodings: string[];
  categories: Category[];
  /**
   * OTLP only: bytes of each attribute key over every record (resource attributes included, once per request), so
   * that an attribute repeated on every record shows up. Overlaps the categories; does not add up to the total.
   */
  attributes: Category[];
}

type Json = Record<string, any>;

class Tally {
  private readonly byName = new Map<string, Category>();

  add(name: string, bytes: number, count = 1): void {
    const category = this.byName.get(name) ?? { name, count: 0, bytes: 0 };
    category.count += count;
    category.bytes += bytes;
    this.byName.set(name, category);
  }

  sorted(): Category[] {
    return [...this.byName.values()].sort((a, b) => b.bytes - a.bytes);
  }
}

const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value));

/** Counts one record under `name`; returns its bytes. */
function addRecord(tally: Tally, name: string, record: unknown): number {
  const bytes = jsonBytes(record);
  tally.add(name, bytes);
  return bytes;
}

function attribute(record: Json, key: string): unknown {
  const found = (record.attributes as Json[] | undefined)?.find((entry) => entry.key === key);
  const value = found?.value as Json | undefined;
  return value && Object.values(value)[0];
}

function logCategory(record: Json): string {
  const source = attribute(record, 'log.source');
  if (typeof source === 'string') return `log: ${source} ${String(record.severityText ?? '').toLowerCase()}`.trim();
  return attribute(record, 'http.url') === undefined ? 'log: manual' : 'log: http outcome';
}

/** Counts the bytes of each attribute of an OTLP record or resource. */
function tallyAttributes(record: Json | undefined, attributes: Tally): void {
  for (const entry of (record?.attributes as Json[] | undefined) ?? [])
    attributes.add(String(entry.key), jsonBytes(entry));
}

/** Splits one OTLP/JSON body into records; returns the bytes attributed to them. */
function otlp(path: string, body: Json, tally: Tally, attributes: Tally): number {
  let counted = 0;
  for (const resource of [
    ...(body.resourceSpans ?? []),
    ...(body.resourceLogs ?? []),
    ...(body.resourceMetrics ?? []),
  ] as Json[]) {
    tallyAttributes(resource.resource, attributes);
  }
  const add = (name: string, record: Json): number => {
    tallyAttributes(record, attributes);
    for (const point of (record.gauge?.dataPoints as Json[] | undefined) ?? []) tallyAttributes(point, attributes);
    return addRecord(tally, name, record);
  };
  if (path.endsWith('/traces')) {
    for (const resource of body.resourceSpans ?? []) {
      for (const scope of resource.scopeSpans ?? [])
        for (const span of scope.spans ?? []) counted += add(`span: ${String(span.name)}`, span);
    }
  } else if (path.endsWith('/logs')) {
    for (const resource of body.resourceLogs ?? []) {
      for (const scope of resource.scopeLogs ?? [])
        for (const record of scope.logRecords ?? []) counted += add(logCategory(record), record);
    }
  } else if (path.endsWith('/metrics')) {
    for (const resource of body.resourceMetrics ?? []) {
      for (const scope of resource.scopeMetrics ?? [])
        for (const metric of scope.metrics ?? []) counted += add(`metric: ${String(metric.name)}`, metric);
    }
  }
  return counted;
}

/** Splits one Sentry envelope (newline-separated headers and payloads) into items; returns their bytes. */
function envelope(body: Buffer, tally: Tally): number {
  let counted = 0;
  let offset = body.indexOf(0x0a) + 1;
  while (offset > 0 && offset < body.length) {
    const headerEnd = body.indexOf(0x0a, offset);
    if (headerEnd < 0) break;
    const header = JSON.parse(body.subarray(offset, headerEnd).toString('utf8')) as { type?: string; length?: number };
    const start = headerEnd + 1;
    // `length` counts the payload's bytes; without it the payload runs to the next newline.
    const next = header.length === undefined ? body.indexOf(0x0a, start) : start + header.length;
    const end = next < 0 ? body.length : Math.min(next, body.length);
    const itemBytes = Math.min(end + 1, body.length) - offset;
    const type = header.type ?? 'unknown';
    const payload =
      type === 'transaction' || type === 'span'
        ? (JSON.parse(body.subarray(start, end).toString('utf8')) as Json)
        : undefined;
    if (type === 'transaction' && payload) {
      // A transaction carries its child spans: split them out, the rest is the transaction itself.
      const spans = (payload.spans as Json[] | undefined) ?? [];
      for (const span of spans) counted += addRecord(tally, `span: ${String(span.op)}`, span);
      payload.spans = [];
      counted += addRecord(tally, `transaction: ${String(payload.contexts?.trace?.op ?? 'unknown')}`, payload);
    } else if (type === 'span' && Array.isArray(payload?.items)) {
      // Streamed spans (span v2 items, Sentry 10+): one item holds many spans.
      for (const span of payload.items as Json[])
        counted += addRecord(tally, `span: ${String(span.attributes?.['sentry.op']?.value)}`, span);
    } else {
      counted += itemBytes;
      tally.add(type, itemBytes);
    }
    offset = end + 1;
  }
  return counted;
}

/** Datadog says how a body is compressed in its query (`dd-evp-encoding=deflate`, zlib), not in a header. */
function decode(request: SinkRequest): Buffer {
  if (request.encoding === 'gzip') return gunzipSync(request.body);
  return /[?&]dd-evp-encoding=deflate\b/.test(request.url) ? inflateSync(request.body) : request.body;
}

/** Splits one Datadog RUM or logs batch (one JSON event per line) into events; returns their bytes. */
function datadogBatch(path: string, body: Buffer, tally: Tally): number {
  let counted = 0;
  for (const line of body.toString('utf8').split('\n')) {
    if (line === '') continue;
    const event = JSON.parse(line) as Json;
    const name = path.endsWith('/logs') ? `log: ${String(event.status)}` : `rum: ${String(event.type)}`;
    counted += Buffer.byteLength(line) + 1;
    tally.add(name, Buffer.byteLength(line) + 1);
  }
  return counted;
}

/**
 * Whether a request carries session replay: svc posts it to `/ingest/replay/*`, Datadog to `/api/v2/replay`; Sentry
 * sends each replay segment in an envelope of its own, with a `replay_event` and a `replay_recording` item (the
 * recording compressed inside it).
 */
function isReplay(request: SinkRequest, path: string): boolean {
  if (path.includes('/ingest/replay/') || path.endsWith('/dd/api/v2/replay')) return true;
  return path.endsWith('/envelope/') && request.body.includes('"type":"replay_recording"');
}

/** Summarises the telemetry of one run. */
export function summarizeTelemetry(requests: readonly SinkRequest[]): TelemetrySummary {
  const tally = new Tally();
  const attributes = new Tally();
  let bytes = 0;
  let replayBytes = 0;
  let decodedBytes = 0;
  const encodings = new Set<string>();
  for (const request of requests) {
    bytes += request.body.length;
    encodings.add(request.encoding);
    const path = request.url.split('?')[0] ?? '';
    if (isReplay(request, path)) replayBytes += request.body.length;
    const decoded = decode(request);
    decodedBytes += decoded.length;
    if (/\/otlp\/v1\/(traces|logs|metrics)$/.test(path)) {
      const counted = otlp(path, JSON.parse(decoded.toString('utf8')) as Json, tally, attributes);
      tally.add('OTLP resource and scope wrappers', decoded.length - counted, 0);
    } else if (path.endsWith('/envelope/')) {
      tally.add('envelope and item headers', decoded.length - envelope(decoded, tally), 0);
    } else if (/\/dd\/api\/v2\/(rum|logs)$/.test(path)) {
      tally.add('batch separators', decoded.length - datadogBatch(path, decoded, tally), 0);
    } else if (path.endsWith('/dd/api/v2/replay')) {
      tally.add('replay: segment (multipart, deflated recording)', decoded.length);
    } else {
      tally.add(`other: ${path.replace(/^\/r\/\d+/, '')}`, decoded.length);
    }
  }
  return {
    requests: requests.length,
    bytes,
    replayBytes,
    decodedBytes,
    encodings: [...encodings],
    categories: tally.sorted(),
    attributes: attributes.sorted(),
  };
}
