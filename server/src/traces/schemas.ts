import { z } from '@hono/zod-openapi';
import { cursorQuery, limitQuery, Time, orderQuery, rangeQuery, traceIdQuery } from '../http/schemas';
import { SpanSchema } from '../records/schemas';

/** Query parameters and answers of the trace search and the trace detail (docs/api.md, "Traces"). */

/** Longest text a `service`, `name` or `session_id` filter may be: far above real values, far below the URL limit. */
export const MAX_FILTER_CHARS = 512;
/** Largest duration bound, ms: a year. */
export const MAX_DURATION_MS = 365 * 24 * 3_600_000;

const filterText = (description: string, example: string) =>
  z.string().min(1).max(MAX_FILTER_CHARS).optional().openapi({ description, example });

const durationBound = (description: string, example: string) => {
  const error = `must be a number of milliseconds from 0 to ${MAX_DURATION_MS}`;
  return z
    .string()
    .regex(/^\d+(\.\d+)?$/, { error })
    .transform(Number)
    .pipe(z.number().max(MAX_DURATION_MS, { error }))
    .optional()
    .openapi({ type: 'string', description, example });
};

export const TRACE_STATUSES = ['error', 'ok', 'unset'] as const;

/** The trace search's orders (traces-routes.ts maps each to its aggregate). */
export const TRACE_SORTS = ['start', 'duration', 'spans', 'errors'] as const;
export type TraceSort = (typeof TRACE_SORTS)[number];

export const tracesQuery = z.strictObject({
  ...rangeQuery,
  service: filterText(
    "Traces with a span whose resource `service.name` is this, as sent (an app's name or alias)",
    'checkout-api',
  ),
  name: filterText('Traces with a span whose name contains this, case-insensitively', 'GET /products'),
  trace_id: traceIdQuery,
  session_id: filterText('Traces with a span of this session', 'a1b2c3d4e5f60718'),
  status: z.enum(TRACE_STATUSES).optional().openapi({
    description:
      'error: a span has status code 2 (ERROR); ok: none has, and one has code 1 (OK); unset: every span has code 0',
    example: 'error',
  }),
  min_duration_ms: durationBound('Traces lasting at least this long (last span end − first span start)', '500'),
  max_duration_ms: durationBound('Traces lasting at most this long', '10000'),
  sort: z
    .enum(TRACE_SORTS)
    .default('start')
    .openapi({ description: 'Order: start (default), duration, span count or error span count; ties by trace id' }),
  order: orderQuery('desc (default): newest, longest, most spans, most errors first'),
  limit: limitQuery(50, 200),
  cursor: cursorQuery.openapi({ description: '`next_cursor` of the previous page of the same sort and order' }),
});

export type TracesQuery = z.output<typeof tracesQuery>;

/** What a trace's `error_count` counts. */
const ERROR_COUNT =
  'Errors: spans with status code 2 (ERROR) or an `exception` event, and log records of the trace that record an exception (`exception.type`)';

export const TraceSummarySchema = z
  .object({
    trace_id: z.string(),
    root: z
      .object({
        name: z.string(),
        label: z.string().openapi({
          description:
            'What started the trace, in words: `load /checkout`, `click on Pay`, `click on Cart → /cart`, `GET /api/cart`; else the name',
        }),
        service: z.string().nullable(),
        span_id: z.string(),
      })
      .nullable()
      .openapi({
        description: "The trace's root: its earliest span that names no parent; else its earliest span",
      }),
    start: Time.openapi({ description: 'Start of the earliest span' }),
    duration_ms: z.number().openapi({ description: 'Latest span end − earliest span start' }),
    span_count: z.number().int(),
    error_count: z.number().int().openapi({ description: ERROR_COUNT }),
    services: z.array(z.string()).openapi({ description: 'Resource `service.name` of its spans, sorted' }),
    session_id: z.string().nullable().openapi({
      description: 'The session of its spans (the smallest id when they name several); null when none names one',
    }),
  })
  .openapi('TraceSummary');

export const TRACE_SUMMARY_EXAMPLE: z.input<typeof TraceSummarySchema> = {
  trace_id: '4bf92f3577b34da6a3ce929d0e0e4736',
  root: { name: 'click', label: 'click on Add to cart', service: 'web-app', span_id: '00f067aa0ba902b7' },
  start: '2026-01-01T12:00:00.000Z',
  duration_ms: 412.5,
  span_count: 7,
  error_count: 1,
  services: ['checkout-api', 'web-app'],
  session_id: 'a1b2c3d4e5f60718',
};

export const traceParams = z.object({
  trace_id: z
    .string()
    .regex(/^[0-9a-fA-F]{32}$/, { message: 'trace_id must be 32 hex characters' })
    .transform((v) => v.toLowerCase())
    .openapi({ type: 'string', example: '4bf92f3577b34da6a3ce929d0e0e4736' }),
});

export const TraceSchema = z
  .object({
    trace_id: z.string(),
    label: z
      .string()
      .openapi({ description: "What started the trace, in words, from its root span (as the search's `root.label`)" }),
    error_count: z.number().int().openapi({ description: ERROR_COUNT }),
    spans: z
      .array(SpanSchema)
      .openapi({ description: 'Every span of the trace in the project, by start time (at most the first 2000)' }),
    truncated: z.boolean().openapi({ description: 'True when the trace has more spans than were returned' }),
  })
  .openapi('Trace');
