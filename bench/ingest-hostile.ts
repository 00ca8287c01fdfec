/**
 * Hostile bodies (`bench/ingest.ts`, phase 3): single requests built to cost the server as much memory as the limits
 * let them, each sent alone to a fresh reference server, whose peak RSS (VmHWM) then belongs to that one request.
 * Target: under 400 MiB whatever a single request holds.
 *
 * (a) 500,000 empty log records, OTLP/JSON (1.5 MB, about 1.6 KB gzipped): parsed, refused at the record limit.
 * (b) empty JSON objects up to the body limit (10 MiB decompressed): refused by the structure scan before parsing.
 * (c) empty protobuf LogRecords up to the body limit (about 5.2 million): refused by the decoder's structure count.
 * (d) the biggest logs request that is accepted: 10,000 records (maxRecords) carrying as many attributes as
 *     maxStructures leaves them (49: 128 each would be 1.28 million key-values, over the 1,000,000 structures), values
 *     as long as the body limit leaves them, protobuf (the densest encoding, so the most structures per byte).
 * (e) a replay chunk at its limits: 10,000 events (maxChunkEvents) in 5,000,000 bytes of JSON (maxChunkBytes), gzip
 *     and base64 as the SDK sends it, holding just under 1,000,000 objects and arrays (maxStructures, which ingest
 *     counts in the decompressed payload before parsing it).
 * Every body goes gzipped (Content-Encoding: gzip), so the server holds both the compressed and the decompressed bytes.
 */
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { INGEST_LIMITS } from '../server/src/ingest/limits';
import { REPLAY_LIMITS } from '../wire/replay';
import { INGEST_PATHS } from '../wire/paths';
import { processMemoryMiB } from './harness';
import { withChild, type IngestChild, type LaunchChild } from './ingest-child';
import { fmt, send, type Request } from './ingest-load';

export const TARGET_PEAK_MIB = 400;
/** The server's default body limit (SVC_BODY_LIMIT), after decompression; the bench servers run with it. */
const BODY_LIMIT = 10 * 1024 * 1024;
/** Time for work the server finishes after answering (a refused body's drain, freeing) to reach the peak, if any. */
const SETTLE_MS = 250;
/** How long an idle server is left before its baseline is read. */
const IDLE_MS = 1_000;
const PROTOBUF = 'application/x-protobuf';

interface HostileBody {
  label: string;
  /** The status the server must answer: a different one makes the row meaningless, and fails the run. */
  expected: number;
  /** The request, decompressed. */
  build(): Request;
}

// ------------------------------------------------------------------------------------------------ JSON bodies

/** An OTLP/JSON logs request of one `web-app` resource whose log records are the `records` text, padded to `padTo` bytes. */
function logsJson(records: string, padTo = 0): Buffer {
  const head =
    '{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"web-app"}}]},"scopeLogs":[{"logRecords":[';
  const text = `${head}${records}]}]}]}`;
  // Trailing whitespace is valid JSON: the body is exactly the size asked for.
  return Buffer.from(text.padEnd(padTo, ' '));
}

/** `count` empty objects, comma-separated. */
const emptyObjects = (count: number) => (count > 0 ? `{}${',{}'.repeat(count - 1)}` : '');

/** As many empty log records as fit in `bytes`: each `{}` with its comma takes 3. */
function emptyRecordsFilling(bytes: number): Buffer {
  const overhead = logsJson('').length;
  return logsJson(emptyObjects(Math.floor((bytes - overhead + 1) / 3)), bytes);
}

// ------------------------------------------------------------------------------------------------ protobuf bodies

function varint(n: number): Buffer {
  const bytes: number[] = [];
  for (; n > 0x7f; n = Math.floor(n / 128)) bytes.push((n % 128) | 0x80);
  bytes.push(n);
  return Buffer.from(bytes);
}

/** A length-delimited protobuf field (wire type 2). */
const field = (fieldNumber: number, ...content: Buffer[]) => {
  const payload = Buffer.concat(content);
  return Buffer.concat([Buffer.from([(fieldNumber << 3) | 2]), varint(payload.length), payload]);
};

/** OTLP KeyValue { key = 1; value = 2: AnyValue { string_value = 1 } }. */
const keyValue = (key: string, value: string) =>
  Buffer.concat([field(1, Buffer.from(key)), field(2, field(1, Buffer.from(value)))]);

/** ExportLogsServiceRequest { resource_logs = 1 { resource = 1 { attributes = 1 }?, scope_logs = 2 { log_records = 2 } } }. */
function protobufLogs(records: Buffer, withResource = true): Buffer {
  const resource = withResource ? [field(1, field(1, keyValue('service.name', 'web-app')))] : [];
  return field(1, ...resource, field(2, records));
}

/** As many empty LogRecords (`0x12 0x00`, two bytes each) as fit in `bytes` with their framing, as the limit tests send. */
function emptyProtobufRecordsFilling(bytes: number): Buffer {
  const framing = protobufLogs(Buffer.alloc(0), false).length + 8; // the two length varints grow by at most 4 bytes each
  const records = Buffer.alloc(2 * Math.floor((bytes - framing) / 2));
  for (let i = 0; i < records.length; i += 2) records[i] = 0x12;
  return protobufLogs(records, false);
}

/**
 * The shape of the biggest accepted logs request: `maxRecords` records, each with as many attributes as the structure
 * limit leaves (every LogRecord is a message, every attribute two: KeyValue and AnyValue).
 */
function largestAcceptedShape(): { records: number; attributes: number } {
  const records = INGEST_LIMITS.maxRecords;
  const fixedStructures = 5; // ResourceLogs, Resource, its service.name KeyValue and AnyValue, ScopeLogs
  const perRecord = Math.floor((INGEST_LIMITS.maxStructures - fixedStructures) / records);
  return { records, attributes: Math.min(INGEST_LIMITS.maxAttributes, Math.floor((perRecord - 1) / 2)) };
}

/**
 * The biggest accepted logs request: records of the largest accepted shape, each with a unique `log.record.uid` among
 * its attributes, the other values as long as the body limit leaves them.
 */
function largestAcceptedLogs(): Buffer {
  const { records, attributes } = largestAcceptedShape();
  const build = (valueBytes: number) => {
    const value = 'v'.repeat(valueBytes);
    const shared = Buffer.concat(
      Array.from({ length: attributes - 1 }, (_, i) => field(6, keyValue(`attr.${String(i).padStart(2, '0')}`, value))),
    );
    const record = (i: number) =>
      field(2, field(6, keyValue('log.record.uid', i.toString(16).padStart(32, '0'))), shared);
    return protobufLogs(Buffer.concat(Array.from({ length: records }, (_, i) => record(i))));
  };
  // All records have the same length: each value byte adds `records × (attributes - 1)` bytes to the body.
  const base = build(0).length;
  return build(Math.floor((BODY_LIMIT - base) / (records * (attributes - 1))));
}

// ------------------------------------------------------------------------------------------------ replay chunk

/**
 * A replay chunk of `maxChunkEvents` rrweb-shaped events in at most `maxChunkBytes` of JSON: each event's mutation list
 * holds its share of the `maxStructures` objects the payload may hold, and a text padded to its share of the bytes.
 * Within every limit, as much for JSON.parse as it can be.
 */
function replayChunkAtLimits(): Buffer {
  const events = REPLAY_LIMITS.maxChunkEvents;
  const startTs = Date.now();
  // The outer array, then per event: the event, its data and its adds list, and the empty objects in that list.
  const objects = Math.floor((INGEST_LIMITS.maxStructures - 1) / events) - 3;
  const event = (i: number, text: number) =>
    `{"type":3,"timestamp":${startTs + i},"data":{"source":0,"text":"${'x'.repeat(text)}","adds":[${emptyObjects(objects)}]}}`;
  // Timestamps have the same number of digits throughout, so every event has the same length.
  const perEvent = Math.floor(REPLAY_LIMITS.maxChunkBytes / events) - 1; // each event but the last is followed by a comma
  const text = perEvent - event(0, 0).length - 1;
  const payload = `[${Array.from({ length: events }, (_, i) => event(i, text)).join(',')}]`;
  if (payload.length > REPLAY_LIMITS.maxChunkBytes)
    throw new Error(`replay payload of ${payload.length} bytes is over the limit`);
  const chunk = {
    serviceName: 'web-app',
    sessionId: 'hostile-replay',
    replayId: 'hostile-replay-1',
    seq: 0,
    startTs,
    endTs: startTs + events - 1,
    eventCount: events,
    encoding: 'gzip',
    data: gzipSync(payload).toString('base64'),
  };
  return Buffer.from(JSON.stringify(chunk));
}

// ------------------------------------------------------------------------------------------------ the phase

const logs = (body: Buffer, contentType?: string): Request => ({
  path: INGEST_PATHS.logs,
  body,
  ...(contentType ? { headers: { 'content-type': contentType } } : {}),
});

const LARGEST = largestAcceptedShape();

const BODIES: HostileBody[] = [
  { label: '(a) 500,000 empty log records, JSON', expected: 413, build: () => logs(logsJson(emptyObjects(500_000))) },
  { label: '(b) empty JSON objects, 10 MiB', expected: 413, build: () => logs(emptyRecordsFilling(BODY_LIMIT)) },
  {
    label: '(c) empty LogRecords, protobuf, 10 MiB',
    expected: 413,
    build: () => logs(emptyProtobufRecordsFilling(BODY_LIMIT), PROTOBUF),
  },
  {
    label: `(d) largest accepted: ${fmt(LARGEST.records)} records × ${LARGEST.attributes} attributes, protobuf`,
    expected: 200,
    build: () => logs(largestAcceptedLogs(), PROTOBUF),
  },
  {
    label: '(e) replay chunk at its limits: 10,000 events, 5 MB of JSON, 1,000,000 objects in its gzip data',
    expected: 200,
    build: () => ({ path: INGEST_PATHS.replayChunk, body: replayChunkAtLimits() }),
  },
];

interface HostileRow {
  label: string;
  sentBytes: number;
  decompressedBytes: number;
  expected: number;
  status: number;
  /** The error code and limit the answer names, if any. */
  answer: string;
  ms: number;
  rssBefore: number;
  peak: number;
}

/** The error code and limit of an error answer, e.g. `limit_exceeded maxRecords`; empty for a success. */
function errorOf(text: string): string {
  try {
    const { error } = JSON.parse(text) as { error?: { code?: string; details?: { limit?: unknown } } };
    return error ? [error.code, error.details?.limit].filter((s) => typeof s === 'string').join(' ') : '';
  } catch {
    return text.slice(0, 40);
  }
}

/** Runs `use` on a fresh server on a fresh SQLite file, so what it measures belongs to `use` alone. */
const withFreshServer = <T>(
  launch: LaunchChild,
  work: string,
  name: string,
  use: (server: IngestChild) => Promise<T>,
) => withChild(launch, name, ['svc', join(work, `${name}.db`)], use);

/** Sends `hostile` alone to a fresh server and reads the server's peak RSS after it. */
function measureBody(launch: LaunchChild, work: string, hostile: HostileBody, index: number): Promise<HostileRow> {
  const request = hostile.build();
  if (request.body.length > BODY_LIMIT)
    throw new Error(`${hostile.label}: ${request.body.length} bytes, over the body limit`);
  const sent: Request = {
    ...request,
    body: gzipSync(request.body),
    headers: { ...request.headers, 'content-encoding': 'gzip' },
  };
  return withFreshServer(launch, work, `hostile-${index}`, async (server) => {
    const agent = new http.Agent({ keepAlive: false });
    const rssBefore = processMemoryMiB(server.pid).rss;
    const t0 = performance.now();
    const answer = await send(agent, server, sent);
    agent.destroy();
    await new Promise((r) => setTimeout(r, SETTLE_MS));
    return {
      label: hostile.label,
      sentBytes: sent.body.length,
      decompressedBytes: request.body.length,
      expected: hostile.expected,
      status: answer.status,
      answer: errorOf(answer.text),
      ms: answer.endMs - t0,
      rssBefore,
      peak: processMemoryMiB(server.pid).peak,
    };
  });
}

const size = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${fmt(bytes / 1024 / 1024, 1)} MiB` : `${fmt(bytes / 1024, 1)} KiB`;

/** Sends each hostile body in turn, each to its own fresh server, prints the table; false when a target is missed. */
export async function measureHostileBodies(launch: LaunchChild, work: string): Promise<boolean> {
  const idle = await withFreshServer(launch, work, 'hostile-idle', async (server) => {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return processMemoryMiB(server.pid);
  });
  const rows: HostileRow[] = [];
  for (const [i, hostile] of BODIES.entries()) rows.push(await measureBody(launch, work, hostile, i));

  console.log(`## Phase 3: hostile bodies, one request per fresh server (target: peak RSS < ${TARGET_PEAK_MIB} MiB)\n`);
  console.log('| body | sent (gzip) | decompressed | status | answer | ms | RSS before MiB | peak RSS MiB | target |');
  console.log('|---|---:|---:|---:|---|---:|---:|---:|---|');
  console.log(
    `| idle server (baseline, ${IDLE_MS / 1000} s after start) | – | – | – | – | – | ${fmt(idle.rss)} | ${fmt(idle.peak)} | – |`,
  );
  let ok = true;
  for (const r of rows) {
    const met = r.peak < TARGET_PEAK_MIB;
    const expected = r.status === r.expected;
    ok &&= met && expected;
    const status = expected ? String(r.status) : `**${r.status}** (expected ${r.expected})`;
    const cells = [
      r.label,
      size(r.sentBytes),
      size(r.decompressedBytes),
      status,
      r.answer || '–',
      fmt(r.ms),
      fmt(r.rssBefore),
      fmt(r.peak),
    ];
    console.log(`| ${cells.join(' | ')} | ${met ? 'met' : 'MISSED'} |`);
  }
  const worst = Math.max(...rows.map((r) => r.peak));
  const verdict = worst < TARGET_PEAK_MIB ? 'met' : 'MISSED';
  console.log(
    `\nHighest peak RSS of a single request: **${fmt(worst)} MiB** (target < ${TARGET_PEAK_MIB} MiB: ${verdict})\n`,
  );
  return ok;
}
