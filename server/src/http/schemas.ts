import { z } from '@hono/zod-openapi';
import { SESSION_FACT_LIMITS } from '../otlp/session-facts';
import { SORT_ORDERS } from '../shared/keyset';
import { parseTime, TIME_FORMAT } from '../shared/time';

/** Schema parts many routes share; each route module builds its own from these. */

export const Time = z.string().openapi({ format: 'date-time', example: '2026-01-01T00:00:00.000Z' });
export const TimeOrNull = Time.nullable();
/** A JSON object whose keys the route does not fix (a provider's settings, an evidence record). */
export const AnyObject = z.record(z.string(), z.unknown());

/** A path parameter: the id of an object in the key's project. */
export const idParams = (description: string) => z.object({ id: z.string().min(1).openapi({ description }) });

/** An integer from `min` to `max` given as text (a query parameter); every failure says the range. */
export const intParam = (min: number, max: number) => {
  const error = `must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error }).openapi({ type: 'integer' });
};

/** `limit` in a query string: an integer from 1 to `max`, `fallback` when absent. */
export const limitQuery = (fallback: number, max: number) =>
  intParam(1, max)
    .default(fallback)
    .openapi({ description: 'Page size', example: Math.min(10, max) });

/** `cursor`: the `next_cursor` of the previous page, checked when decoded (http/cursor.ts readCursor). */
export const cursorQuery = z.string().optional().openapi({ description: '`next_cursor` of the previous page' });

/** A page of a newest-first listing. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), next_cursor: z.string().nullable() });

/** A list answer without paging. */
export const listOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item) });

/** A non-empty, trimmed text of at most `max` characters (the `requiredString` rule of http/json-object.ts). */
export const text = (max = 200) => z.string().trim().min(1).max(max);

/** An array of non-empty strings. */
export const strings = z.array(z.string().trim().min(1));

/** The `order` parameter of a sortable listing (shared/keyset.ts); `description` says what desc puts first. */
export const orderQuery = (description: string) => z.enum(SORT_ORDERS).default('desc').openapi({ description });

/** `from` / `to`: epoch ms or ISO 8601, read as epoch ms (a query parameter, or a field of a body). */
export const timeBound = (description: string) =>
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

export const userIdQuery = z.string().min(1).max(SESSION_FACT_LIMITS.maxUserChars).optional().openapi({
  description:
    "Only sessions (for records: the records of sessions) whose latest user, the SDK's setUser id, is this one",
});

export const traceIdQuery = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/, { message: 'must be 32 hex characters' })
  .transform((v) => v.toLowerCase())
  .optional()
  .openapi({ type: 'string', example: '4bf92f3577b34da6a3ce929d0e0e4736' });
