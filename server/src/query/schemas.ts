import { z } from '@hono/zod-openapi';
import { REPLAY_LIMITS } from '../../../wire/replay';
import { cursorQuery, intParam, limitQuery, Time } from '../http/schemas';
import { REPLAY_MODES, SESSION_FACT_LIMITS } from '../otlp/session-facts';
import { MAX_TIME_MS, parseTime, TIME_FORMAT } from './params';
import { ATTRIBUTE_PARAM, MAX_ATTRIBUTE_FILTERS } from './session-filters';

/** Query parameters and records of the query API (docs/query-api.md). */

/** `from` / `to`: epoch ms or ISO 8601, read as epoch ms. */
const timeBound = (description: string) =>
  z
    .string()
    .transform((raw, ctx) => {
      const ms = parseTime(raw);
      if (ms === undefined) ctx.addIssue({ code: 'custom', message: `must be ${TIME_FORMAT}` });
      return ms ?? 0;
    })
    .optional()
    .openapi({ type: 'string', description, example: '2026-01-01T00:00:00Z' });

export const rangeQuery = {
  app: z.string().optional().openapi({ description: 'App name or alias' }),
  from: timeBound('Inclusive lower time bound: epoch ms or ISO 8601'),
  to: timeBound('Exclusive upper time bound: epoch ms or ISO 8601'),
};

export const userIdQuery = z
  .string()
  .min(1)
  .max(SESSION_FACT_LIMITS.maxUserChars)
  .optional()
  .openapi({
    description:
      "Only sessions (for records: the records of sessions) whose latest user, the SDK's setUser id, is this one",
  });

export const traceIdQuery = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/, { message: 'must be 32 hex characters' })
  .transform((v) => v.toLowerCase())
  .optional()
  .openapi({ type: 'string', example: '4bf92f3577b34da6a3ce929d0e0e4736' });

/** The query of a record listing: range, paging, user and the listing's own filters. */
export const listingQuery = (filters: Record<string, z.ZodType>, defaultLimit: number, maxLimit: number) =>
  z.strictObject({
    ...rangeQuery,
    ...filters,
    user_id: userIdQuery,
    limit: limitQuery(defaultLimit, maxLimit),
    cursor: cursorQuery,
  });

/** The sessions listing's orders (sessions/listing.ts maps each to its column). */
export const SESSION_SORTS = ['last_seen', 'first_seen', 'duration', 'errors'] as const;
export type SessionSort = (typeof SESSION_SORTS)[number];

/** An exact-match filter on a session fact the facets list. */
const factFilter = (description: string) =>
  z.string().min(1).max(SESSION_FACT_LIMITS.maxUserChars).optional().openapi({ description });

const durationBound = (description: string) => intParam(0, MAX_TIME_MS).optional().openapi({ description });

const sessionsFields = {
  ...rangeQuery,
  user_id: userIdQuery,
  env: factFilter('Only sessions whose environment (`deployment.environment`) is this one'),
  release: factFilter('Only sessions whose release (`service.version`) is this one'),
  browser: factFilter(
    'Only sessions in this browser: Chrome, Firefox, Safari, Edge, Opera, Samsung Internet or Other (see /sessions/facets)',
  ),
  test_run: factFilter('Only sessions recorded in this test run (`test.run.id`, the run_id of /test-runs)'),
  test_id: factFilter("Only sessions recorded in this test (`test.id`, Playwright's testId)"),
  url: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .openapi({
      description:
        'Only sessions that visited a page whose path contains this text (ASCII letters case-insensitive); query strings are not kept',
    }),
  has_errors: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .openapi({
      type: 'string',
      enum: ['true', 'false'],
      description: 'true: sessions with at least one error log record; false: sessions without',
    }),
  min_duration_ms: durationBound('Only sessions lasting at least this long (last_seen - first_seen), ms'),
  max_duration_ms: durationBound('Only sessions lasting at most this long, ms'),
  sort: z
    .enum(SESSION_SORTS)
    .default('last_seen')
    .openapi({ description: 'Order: last activity (default), start, duration or error count; ties by session id' }),
  order: z
    .enum(['desc', 'asc'])
    .default('desc')
    .openapi({ description: 'desc (default): newest, longest, most errors first' }),
  limit: limitQuery(50, 500),
  cursor: cursorQuery.openapi({ description: '`next_cursor` of the previous page of the same sort and order' }),
};

/**
 * The session listing's query: a listing's, plus `attr.<key>=<value>` filters, checked by readAttributeFilters. OpenAPI
 * cannot name a parameter by pattern, so it is described once under the name `attr.<key>`.
 */
export const sessionsQuery = z
  .object({
    ...sessionsFields,
    [`${ATTRIBUTE_PARAM}<key>`]: z
      .string()
      .optional()
      .openapi({
        description:
          `Sessions whose custom attribute \`<key>\` (setAttributes; \`session.attributes.<key>\` on the wire) equals the value exactly, as text: ` +
          `\`attr.tier=3\` matches 3 and "3", \`attr.beta=true\` matches true. Repeatable with other keys, at most ${MAX_ATTRIBUTE_FILTERS}; ` +
          `keys are 1 to ${SESSION_FACT_LIMITS.maxKeyChars} letters, digits, \`_\`, \`.\`, \`:\` or \`-\`.`,
      }),
  })
  .catchall(z.unknown())
  .superRefine((query, ctx) => {
    for (const key of Object.keys(query)) {
      if (!(key in sessionsFields) && !key.startsWith(ATTRIBUTE_PARAM))
        ctx.addIssue({ code: 'unrecognized_keys', keys: [key], input: query, message: 'Unrecognized key' });
    }
  });

export const SessionSchema = z
  .object({
    session_id: z.string(),
    app: z.string(),
    first_seen: Time,
    last_seen: Time,
    counts: z.object({
      spans: z.number().int(),
      logs: z.number().int(),
      metric_points: z.number().int(),
      replay_chunks: z.number().int(),
      recipes: z.number().int(),
    }),
    user: z
      .object({ id: z.string(), email: z.string().optional(), name: z.string().optional() })
      .nullable()
      .openapi({
        description:
          'The latest user the records named (user.id; user.email and user.name when the app sends them); null when none did',
      }),
    attributes: z
      .record(z.string(), z.unknown())
      .openapi({
        description: `The latest custom attributes (session.attributes.*): at most ${SESSION_FACT_LIMITS.maxAttributes}; {} when none`,
      }),
    replay_mode: z
      .string()
      .nullable()
      .openapi({ enum: [...REPLAY_MODES, null], description: 'svc.replay.mode of the session; null when not sent' }),
    sample_rate: z.number().nullable().openapi({ description: 'svc.sample_rate of the session; null when not sent' }),
    duration_ms: z.number().int().openapi({ description: 'last_seen - first_seen' }),
    env: z
      .string()
      .nullable()
      .openapi({
        description:
          'deployment.environment.name (or deployment.environment) of the latest batch that sent one; null when none did',
      }),
    release: z
      .string()
      .nullable()
      .openapi({ description: 'service.version (the release) of the latest batch that sent one; null when none did' }),
    pages: z.number().int().openapi({ description: 'Distinct page paths seen (length of urls)' }),
    entry_url: z
      .string()
      .nullable()
      .openapi({
        description: 'Path of the earliest page record (page load, interaction, Web Vitals point); null when none',
      }),
    urls: z
      .array(z.string())
      .openapi({
        description: `Distinct page paths (no query or fragment) in the order first received, at most ${SESSION_FACT_LIMITS.maxPages}`,
      }),
    errors: z
      .number()
      .int()
      .openapi({ description: 'Error log records: severity ERROR and above, or with exception.type' }),
    device: z
      .object({
        browser: z
          .string()
          .nullable()
          .openapi({ description: 'Chrome, Firefox, Safari, Edge, Opera, Samsung Internet or Other' }),
        browser_version: z.string().nullable().openapi({ description: 'Major version' }),
        os: z
          .string()
          .nullable()
          .openapi({ enum: ['Windows', 'macOS', 'Linux', 'Android', 'iOS', 'ChromeOS', 'Other', null] }),
        type: z
          .string()
          .nullable()
          .openapi({ enum: ['desktop', 'mobile', 'tablet', null] }),
      })
      .openapi({ description: 'From user_agent.original; nulls when the session sent none' }),
    test: z
      .object({
        run_id: z.string().openapi({ description: 'test.run.id: the run (GET /control-plane/test-runs/{run_id})' }),
        test_id: z.string().nullable().openapi({ description: "test.id: Playwright's testId" }),
        retry: z.number().int().nullable().openapi({ description: 'test.retry: the attempt (0 for the first try)' }),
        title: z
          .string()
          .nullable()
          .openapi({
            description: "test.title: the title path joined with ' > '; null when not sent or over 1,024 characters",
          }),
        file: z
          .string()
          .nullable()
          .openapi({
            description: 'test.file: relative to the Playwright rootDir; null when not sent or over 1,024 characters',
          }),
      })
      .nullable()
      .openapi({
        description:
          'The Playwright test the session was recorded in (@svc/playwright), from its test.* resource attributes; null for other sessions',
      }),
  })
  .openapi('Session');

export const SessionFacetsSchema = z
  .object({
    envs: z.array(z.string()),
    releases: z.array(z.string()),
    browsers: z.array(z.string()),
    apps: z.array(z.string()),
  })
  .openapi('SessionFacets', {
    description: 'Distinct values among the sessions in range, alphabetical, at most 100 each',
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

export const AppSchema = z.object({ id: z.string(), name: z.string(), aliases: z.array(z.string()) }).openapi('App');

export const SamplingSchema = z.object({
  sessions_received: z.number().int(),
  sessions_estimated: z
    .number()
    .int()
    .openapi({ description: 'Sum of 1 / sample_rate over the received sessions, rounded' }),
  sampled_share: z
    .number()
    .nullable()
    .openapi({ description: 'received / estimated, 4 decimals; null without sessions' }),
  replay_modes: z
    .object(
      Object.fromEntries([...REPLAY_MODES, 'unknown'].map((m) => [m, z.number().int()])) as Record<
        (typeof REPLAY_MODES)[number] | 'unknown',
        z.ZodNumber
      >,
    )
    .openapi({ description: 'Received sessions by svc.replay.mode; unknown: sessions that did not send one' }),
  replays_kept_on_error: z
    .number()
    .int()
    .openapi({ description: 'Sessions in on_error mode that sent a replay (an error happened)' }),
});
