import { z } from '@hono/zod-openapi';
import { cursorQuery, intParam, limitQuery, rangeQuery, Time, userIdQuery } from '../http/schemas';
import { REPLAY_MODES, SESSION_FACT_LIMITS } from '../otlp/session-facts';
import { MAX_TIME_MS } from '../shared/time';
import { ATTRIBUTE_PARAM, MAX_ATTRIBUTE_FILTERS } from './filters';

/** Query parameters and answers of the sessions listing (docs/query-api.md). */

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
  url: z.string().min(1).max(256).optional().openapi({
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
    user: z.object({ id: z.string(), email: z.string().optional(), name: z.string().optional() }).nullable().openapi({
      description:
        'The latest user the records named (user.id; user.email and user.name when the app sends them); null when none did',
    }),
    attributes: z.record(z.string(), z.unknown()).openapi({
      description: `The latest custom attributes (session.attributes.*): at most ${SESSION_FACT_LIMITS.maxAttributes}; {} when none`,
    }),
    replay_mode: z
      .string()
      .nullable()
      .openapi({ enum: [...REPLAY_MODES, null], description: 'svc.replay.mode of the session; null when not sent' }),
    sample_rate: z.number().nullable().openapi({ description: 'svc.sample_rate of the session; null when not sent' }),
    duration_ms: z.number().int().openapi({ description: 'last_seen - first_seen' }),
    env: z.string().nullable().openapi({
      description:
        'deployment.environment.name (or deployment.environment) of the latest batch that sent one; null when none did',
    }),
    release: z
      .string()
      .nullable()
      .openapi({ description: 'service.version (the release) of the latest batch that sent one; null when none did' }),
    pages: z.number().int().openapi({ description: 'Distinct page paths seen (length of urls)' }),
    entry_url: z.string().nullable().openapi({
      description: 'Path of the earliest page record (page load, interaction, Web Vitals point); null when none',
    }),
    urls: z.array(z.string()).openapi({
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
        title: z.string().nullable().openapi({
          description: "test.title: the title path joined with ' > '; null when not sent or over 1,024 characters",
        }),
        file: z.string().nullable().openapi({
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
