import { promisify } from 'node:util';
import { gunzipSync, gzip } from 'node:zlib';
import { REPLAY_LIMITS, undoIdDeltas, type RecipeStep } from '../../../wire/replay';
import { traceKey } from '../db/trace-key';
import { invalid } from '../shared/domain-errors';
import { readArray, readInteger, readObject, readString, type JsonObject } from '../json/read';
import { exceedsStructures } from '../json/structures';
import type { PendingBatch, PendingRow } from '../otlp/records';
import { redactRecipeUrls, redactReplayEventUrls } from '../privacy/replay-urls';
import { checkEventDepth } from '../replay/event-depth';
import { INGEST_LIMITS, limitExceeded } from './limits';

const MAX_TS = 8_640_000_000_000_000; // the largest Date
const gzipAsync = promisify(gzip);

function requiredString(o: JsonObject, field: string, max: number): string {
  const v = readString(o[field], field);
  if (!v) throw invalid(`${field} is required`, 'invalid_request', { field });
  if (v.length > max) throw invalid(`${field} must be at most ${max} characters`, 'invalid_request', { field });
  return v;
}

const requiredInt = (o: JsonObject, field: string, min: number, max: number): number => {
  const v = readInteger(o[field], field, min, max);
  if (v === undefined) throw invalid(`${field} is required`, 'invalid_request', { field });
  return v;
};

/** The fields every replay body starts with: which app, session and recording it belongs to. */
function readReplayOwner(o: JsonObject) {
  return {
    serviceName: requiredString(o, 'serviceName', 128),
    sessionId: requiredString(o, 'sessionId', REPLAY_LIMITS.maxIdLength),
    replayId: requiredString(o, 'replayId', REPLAY_LIMITS.maxIdLength),
  };
}

/** A chunk's fields but its payload, checked before the payload is decoded. */
function readChunkFields(o: JsonObject) {
  const owner = readReplayOwner(o);
  const seq = requiredInt(o, 'seq', 0, 2 ** 31 - 1);
  const startTs = requiredInt(o, 'startTs', 0, MAX_TS);
  const endTs = requiredInt(o, 'endTs', 0, MAX_TS);
  if (endTs < startTs) throw invalid('endTs must not be before startTs', 'invalid_request', { field: 'endTs' });
  const eventCount = requiredInt(o, 'eventCount', 1, Number.MAX_SAFE_INTEGER);
  if (eventCount > INGEST_LIMITS.maxChunkEvents)
    throw limitExceeded('maxChunkEvents', `eventCount is ${eventCount}`, 'eventCount');
  return { ...owner, seq, startTs, endTs, eventCount };
}

/** A 400 unless the payload (named `field`) held the `eventCount` events the chunk claims. */
function checkEventCount(eventCount: number, events: readonly unknown[], field: string): void {
  if (events.length !== eventCount)
    throw invalid(`eventCount is ${eventCount} but ${field} holds ${events.length} events`, 'invalid_request', {
      field: 'eventCount',
    });
}

function chunkRow(
  fields: ReturnType<typeof readChunkFields>,
  encoding: 'gzip' | 'json',
  stored: Buffer,
): PendingBatch<'replay_chunks'> {
  const { serviceName, sessionId, replayId, seq, startTs, endTs, eventCount } = fields;
  const row: PendingRow<'replay_chunks'> = {
    session_id: sessionId,
    replay_id: replayId,
    seq,
    time_ms: startTs,
    end_ms: endTs,
    event_count: eventCount,
    encoding,
    data: stored,
  };
  return { table: 'replay_chunks', rows: [row], services: [serviceName] };
}

/**
 * Validates a replay chunk (wire/replay.ts `ReplayChunk`) and its events, proving they are what the chunk claims: a JSON
 * array of `eventCount` rrweb events, within the size limit. A `data` payload is stored as sent (gzip stays gzip);
 * events sent inline, with their node ids delta-encoded (the ids restored), or with a URL whose secrets had to be
 * redacted (page loads, network and navigation events), are stored gzipped.
 */
export async function normalizeReplayChunk(body: unknown): Promise<PendingBatch<'replay_chunks'>> {
  const o = readObject(body, 'body');
  const fields = readChunkFields(o);
  const { ids } = o;
  if (ids !== undefined && ids !== 'delta')
    throw invalid('ids must be "delta" when given', 'invalid_request', { field: 'ids' });
  let events: unknown[];
  let field = 'events';
  let sent: { encoding: 'gzip' | 'json'; stored: Buffer } | undefined;
  if (o.events !== undefined) {
    if (o.encoding !== undefined || o.data !== undefined)
      throw invalid('events and encoding/data exclude each other', 'invalid_request', { field: 'events' });
    events = checkEvents(o.events, field);
  } else {
    const encoding = o.encoding;
    if (encoding !== 'gzip' && encoding !== 'json')
      throw invalid('encoding must be "gzip" or "json"', 'invalid_request', { field: 'encoding' });
    const data = readString(o.data, 'data');
    if (!data) throw invalid('data is required', 'invalid_request', { field: 'data' });
    sent = { encoding, stored: encoding === 'gzip' ? Buffer.from(data, 'base64') : Buffer.from(data, 'utf8') };
    events = decodeChunkEvents(encoding, sent.stored);
    field = 'data';
  }
  checkEventCount(fields.eventCount, events, field);
  if (ids === 'delta') undoIdDeltas(events);
  // docs/ingest.md, "Secrets in URLs": a payload is stored as sent unless a URL in it had to be redacted.
  const redacted = redactReplayEventUrls(events);
  if (sent && ids === undefined && !redacted) return chunkRow(fields, sent.encoding, sent.stored);
  const json = JSON.stringify(events);
  if (Buffer.byteLength(json) > REPLAY_LIMITS.maxChunkBytes) {
    throw invalid(`${field} must be at most ${REPLAY_LIMITS.maxChunkBytes} bytes of JSON`, 'invalid_request', {
      field,
    });
  }
  return chunkRow(fields, 'gzip', await gzipAsync(json));
}

/** The events of a stored chunk; throws a 400 naming `data` when the payload is not a JSON array within the limit. */
export function decodeChunkEvents(encoding: 'gzip' | 'json', stored: Uint8Array): unknown[] {
  let json: Buffer;
  if (encoding === 'gzip') {
    try {
      json = gunzipSync(stored, { maxOutputLength: REPLAY_LIMITS.maxChunkBytes });
    } catch {
      throw invalid(
        `data must be base64 gzip of at most ${REPLAY_LIMITS.maxChunkBytes} bytes of JSON`,
        'invalid_request',
        {
          field: 'data',
        },
      );
    }
  } else {
    json = Buffer.from(stored);
    if (json.byteLength > REPLAY_LIMITS.maxChunkBytes) {
      throw invalid(`data must be at most ${REPLAY_LIMITS.maxChunkBytes} bytes`, 'invalid_request', { field: 'data' });
    }
  }
  // The body's own check cannot see inside base64 gzip: the events are counted before they are parsed, like a body.
  if (exceedsStructures(json, INGEST_LIMITS.maxStructures))
    throw limitExceeded('maxStructures', 'data holds more objects and arrays', 'data');
  let events: unknown;
  try {
    events = JSON.parse(json.toString('utf8'));
  } catch {
    throw invalid('data must hold a JSON array of replay events', 'invalid_request', { field: 'data' });
  }
  return checkEvents(events, 'data');
}

/** `events` as an array of event objects nested within the depth limit; a 400 naming `field` otherwise. */
function checkEvents(events: unknown, field: string): unknown[] {
  if (!Array.isArray(events) || !events.every((e) => typeof e === 'object' && e !== null && !Array.isArray(e))) {
    throw invalid(`${field} must hold a JSON array of replay event objects`, 'invalid_request', { field });
  }
  checkEventDepth(events, field);
  return events;
}

const METHOD = /^[A-Za-z!#$%&'*+.^_`|~0-9-]{1,32}$/;
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

function headerMap(v: unknown, path: string): Record<string, string> {
  const o = v === undefined || v === null ? {} : readObject(v, path);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(o)) {
    if (typeof val !== 'string')
      throw invalid(`${path}.${k} must be a string`, 'invalid_request', { field: `${path}.${k}` });
    out[k.toLowerCase()] = val;
  }
  return out;
}

function cappedBody(v: unknown, path: string): string | null {
  const s = readString(v, path);
  if (s === undefined) return null;
  if (s.length > REPLAY_LIMITS.maxRecipeBodyChars) {
    throw invalid(
      `${path} must be at most ${REPLAY_LIMITS.maxRecipeBodyChars} characters (truncate and set the *Truncated flag)`,
      'invalid_request',
      {
        field: path,
      },
    );
  }
  return s;
}

const optionalBool = (v: unknown, path: string): boolean => {
  if (v === undefined || v === null) return false;
  if (typeof v !== 'boolean') throw invalid(`${path} must be a boolean`, 'invalid_request', { field: path });
  return v;
};

/** Validates a recipes batch (wire/replay.ts `RecipeBatch`) into one row per step, secrets in its URLs redacted. */
export function normalizeRecipes(body: unknown): PendingBatch<'recipes'> {
  const o = readObject(body, 'body');
  const { serviceName, sessionId, replayId } = readReplayOwner(o);
  const steps = readArray(o.steps, 'steps');
  if (steps.length === 0) throw invalid('steps must hold at least one step', 'invalid_request', { field: 'steps' });
  if (steps.length > REPLAY_LIMITS.maxRecipeSteps) {
    throw invalid(`steps must hold at most ${REPLAY_LIMITS.maxRecipeSteps} steps`, 'invalid_request', {
      field: 'steps',
    });
  }
  const rows = steps.map((raw, i): PendingRow<'recipes'> => {
    const at = `steps[${i}]`;
    const s = readObject(raw, at);
    const ts = readInteger(s.ts, `${at}.ts`, 0, MAX_TS);
    if (ts === undefined) throw invalid(`${at}.ts is required`, 'invalid_request', { field: `${at}.ts` });
    const method = readString(s.method, `${at}.method`);
    if (!method || !METHOD.test(method))
      throw invalid(`${at}.method must be an HTTP method token`, 'invalid_request', { field: `${at}.method` });
    const url = readString(s.url, `${at}.url`);
    if (!url || !/^https?:$/.test(safeProtocol(url))) {
      throw invalid(`${at}.url must be an absolute http(s) URL`, 'invalid_request', { field: `${at}.url` });
    }
    const status = readInteger(s.status, `${at}.status`, 0, 599);
    if (status === undefined) throw invalid(`${at}.status is required`, 'invalid_request', { field: `${at}.status` });
    const durationMs = s.durationMs;
    if (typeof durationMs !== 'number' || !Number.isFinite(durationMs) || durationMs < 0) {
      throw invalid(`${at}.durationMs must be a non-negative number`, 'invalid_request', { field: `${at}.durationMs` });
    }
    const traceparent = readString(s.traceparent, `${at}.traceparent`) || null;
    const traceMatch = traceparent ? TRACEPARENT.exec(traceparent) : null;
    if (traceparent && !traceMatch)
      throw invalid(`${at}.traceparent must be a W3C traceparent`, 'invalid_request', { field: `${at}.traceparent` });
    const step: RecipeStep = redactRecipeUrls({
      ts,
      method: method.toUpperCase(),
      url,
      requestHeaders: headerMap(s.requestHeaders, `${at}.requestHeaders`),
      requestBody: cappedBody(s.requestBody, `${at}.requestBody`),
      requestBodyTruncated: optionalBool(s.requestBodyTruncated, `${at}.requestBodyTruncated`),
      status,
      responseHeaders: headerMap(s.responseHeaders, `${at}.responseHeaders`),
      responseBody: cappedBody(s.responseBody, `${at}.responseBody`),
      responseBodyTruncated: optionalBool(s.responseBodyTruncated, `${at}.responseBodyTruncated`),
      durationMs,
      traceparent,
      error: readString(s.error, `${at}.error`) || null,
    });
    return {
      session_id: sessionId,
      replay_id: replayId,
      time_ms: ts,
      method: step.method,
      url: step.url,
      status,
      duration_ms: durationMs,
      trace_id: traceMatch?.[1] ?? null,
      trace_key: traceMatch?.[1] ? traceKey(traceMatch[1]) : null,
      step: JSON.stringify(step),
    };
  });
  return { table: 'recipes', rows, services: rows.map(() => serviceName) };
}

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}
