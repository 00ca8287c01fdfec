import { z } from '@hono/zod-openapi';
import { REPLAY_LIMITS } from '../../../wire/replay';
import { cursorQuery, limitQuery, rangeQuery, Time, userIdQuery } from '../http/schemas';

/** Query parameters and records of the record listings (docs/query-api.md). */

/** The query of a record listing: range, paging, user and the listing's own filters. */
export const listingQuery = <F extends Record<string, z.ZodType>>(filters: F, defaultLimit: number, maxLimit: number) =>
  z.strictObject({
    ...rangeQuery,
    ...filters,
    user_id: userIdQuery,
    limit: limitQuery(defaultLimit, maxLimit),
    cursor: cursorQuery,
  });

const common = { id: z.number().int(), app: z.string(), session_id: z.string().nullable(), received_at: Time };
const json = z.unknown();

export const SpanSchema = z
  .object({
    ...common,
    trace_id: z.string(),
    span_id: z.string(),
    parent_span_id: z.string().nullable(),
    name: z.string(),
    kind: z.number().int(),
    start_time_unix_nano: z.string(),
    end_time_unix_nano: z.string(),
    time: Time,
    duration_ms: z.number(),
    status: z.object({ code: z.number().int(), message: z.string().nullable() }),
    attributes: json,
    events: json,
    links: json,
    resource: json,
    scope: json,
  })
  .openapi('Span');

export const LogRecordSchema = z
  .object({
    ...common,
    time_unix_nano: z.string(),
    observed_time_unix_nano: z.string(),
    time: Time,
    severity_number: z.number().int(),
    severity_text: z.string().nullable(),
    body: json,
    event_name: z.string().nullable(),
    trace_id: z.string().nullable(),
    span_id: z.string().nullable(),
    attributes: json,
    resource: json,
    scope: json,
  })
  .openapi('LogRecord');

export const MetricPointSchema = z
  .object({
    ...common,
    name: z.string(),
    description: z.string().nullable(),
    unit: z.string().nullable(),
    type: z.string().openapi({ enum: ['gauge', 'sum', 'histogram', 'exponential_histogram', 'summary'] }),
    time_unix_nano: z.string(),
    start_time_unix_nano: z.string().nullable(),
    time: Time,
    value: z.number().nullable().openapi({ description: 'Number points: the value; distributions: the sum' }),
    data: json.openapi({ description: 'Full point: value, or count/sum/buckets/quantiles, temporality' }),
    attributes: json,
    resource: json,
    scope: json,
  })
  .openapi('MetricPoint');

export const ReplayChunkRecordSchema = z
  .object({
    ...common,
    replay_id: z.string(),
    seq: z.number().int(),
    start_time: Time,
    end_time: Time,
    event_count: z.number().int(),
    encoding: z.string().openapi({ enum: ['gzip', 'json'] }),
    events: z.array(json).optional(),
    unreadable: z
      .string()
      .optional()
      .openapi({ description: 'Why the stored events could not be read (they are left out)' }),
  })
  .openapi('ReplayChunkRecord');

/** A recipe step as recorded (wire/replay.ts RecipeStep). */
export const RecipeStepSchema = z
  .object({
    ts: z.number().int(),
    method: z.string(),
    url: z.string().openapi({ format: 'uri' }),
    requestHeaders: z.record(z.string(), z.string()),
    requestBody: z.string().max(REPLAY_LIMITS.maxRecipeBodyChars).nullable().optional(),
    requestBodyTruncated: z.boolean().optional(),
    status: z.number().int().min(0).max(599).openapi({ description: '0: no response (network error)' }),
    responseHeaders: z.record(z.string(), z.string()),
    responseBody: z.string().max(REPLAY_LIMITS.maxRecipeBodyChars).nullable().optional(),
    responseBodyTruncated: z.boolean().optional(),
    durationMs: z.number().min(0),
    traceparent: z.string().nullable().optional(),
    error: z.string().nullable().optional(),
  })
  .openapi('RecipeStep');

export const RecipeRecordSchema = RecipeStepSchema.extend({
  ...common,
  replay_id: z.string(),
  trace_id: z.string().nullable(),
}).openapi('RecipeRecord');
