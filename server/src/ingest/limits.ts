import { REPLAY_LIMITS } from '../../../wire/replay';
import { DomainError } from '../shared/domain-errors';

/**
 * What one ingest request may hold, enforced while it is decoded and before anything is stored, so the work and memory
 * a request costs are bounded whatever it holds (the OpenTelemetry Collector and Sentry Relay bound requests the same
 * way). The body size limit (`SVC_BODY_LIMIT`) bounds the bytes; these bound what the bytes turn into: a gzipped
 * megabyte of empty records would otherwise become millions of rows. docs/ingest.md lists them.
 */
export const INGEST_LIMITS = {
  /** Spans, log records or metric data points in one request. */
  maxRecords: 10_000,
  /** rrweb events in one replay chunk (the SDK seals its chunks at this count). */
  maxChunkEvents: REPLAY_LIMITS.maxChunkEvents,
  /** JSON objects and arrays, or protobuf messages and packed values, in one request body. */
  maxStructures: 1_000_000,
  /** Entries in one attribute list (resource, scope, record, event, link or a nested key-value list). */
  maxAttributes: 128,
  /** Elements in one array attribute value. */
  maxArrayValues: 1_024,
  /** UTF-8 bytes of one string or bytes value (an attribute value or a log body). */
  maxValueBytes: 65_536,
} as const;

export type IngestLimit = keyof typeof INGEST_LIMITS;

/** The 413 a request over one of the limits gets; `message` names the field, this adds the limit and its value. */
export function limitExceeded(limit: IngestLimit, message: string, field?: string): DomainError {
  const max = INGEST_LIMITS[limit];
  return new DomainError(
    'too_large',
    'limit_exceeded',
    `${message}, over the limit of ${max.toLocaleString('en-US')} (${limit}); nothing was stored`,
    {
      limit,
      max,
      ...(field === undefined ? {} : { field }),
    },
  );
}

/** Counts the records a request turns into, refusing the request at the first record over `maxRecords`. */
export class RecordBudget {
  private count = 0;

  constructor(private readonly noun: string) {}

  take(path: string): void {
    if (++this.count > INGEST_LIMITS.maxRecords)
      throw limitExceeded('maxRecords', `the request holds more ${this.noun} (at ${path})`, path);
  }
}
