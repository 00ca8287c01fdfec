import { z } from '@hono/zod-openapi';

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

/** `cursor`: the `next_cursor` of the previous page, checked when decoded (query/params.ts readCursor). */
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
