import type { Context } from 'hono';
import { badRequest } from '../http/errors';

/** Position after the last row of a page: newest-first order is (time desc, tiebreak desc). */
export interface Cursor {
  t: number;
  k: number | string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c)).toString('base64url');
}

/**
 * Times are epoch milliseconds within the range of a JavaScript Date (±8.64e15): safe integers, far inside PostgreSQL's
 * bigint, so no time a request gives can fail a query.
 */
export const MAX_TIME_MS = 8_640_000_000_000_000;

/** Bounds of a number read from the query string. */
export interface NumberRange {
  min: number;
  max: number;
  /** A safe integer (ids, counts, milliseconds), not a fraction. */
  integer: boolean;
}

/**
 * A number given as text, within `range`; otherwise a 400 naming `field`. Every number a request passes to a query goes
 * through here: PostgreSQL refuses a parameter beyond its column's type with an error (a 500 until caught), and
 * JavaScript rounds integers beyond 2^53, so each parameter has bounds both hold.
 */
export function parseNumberParam(raw: string, field: string, range: NumberRange): number {
  const n = raw.trim() === '' ? NaN : Number(raw);
  const ok = range.integer ? Number.isSafeInteger(n) : Number.isFinite(n);
  if (!ok || n < range.min || n > range.max) {
    throw badRequest(
      `${field} must be ${range.integer ? 'an integer' : 'a number'} from ${range.min} to ${range.max} (got ${JSON.stringify(raw)})`,
      {
        field,
      },
    );
  }
  return n;
}

/**
 * The `cursor` parameter: a position this API returned. Its key is a row id (`'number'`) or a text key (`'string'`)
 * depending on the listing; decoded, it is checked like any parameter, since a client can forge one.
 */
export function readCursor(c: Context, key: 'number'): (Cursor & { k: number }) | undefined;
export function readCursor(c: Context, key: 'string'): (Cursor & { k: string }) | undefined;
export function readCursor(c: Context, key?: 'number' | 'string'): Cursor | undefined;
export function readCursor(c: Context, key?: 'number' | 'string'): Cursor | undefined {
  const raw = c.req.query('cursor');
  if (raw === undefined || raw === '') return undefined;
  let v: Partial<Cursor> | null = null;
  try {
    v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor> | null;
  } catch {
    // answered below
  }
  const t = v?.t;
  const k = v?.k;
  const timeOk = typeof t === 'number' && Number.isSafeInteger(t) && Math.abs(t) <= MAX_TIME_MS;
  const keyOk = typeof k === 'number' ? Number.isSafeInteger(k) : typeof k === 'string' && !k.includes('\u0000');
  if (timeOk && keyOk && (key === undefined || typeof k === key)) return { t, k: k as number | string };
  throw badRequest('cursor is not a cursor this API returned (use next_cursor from the previous page)', {
    field: 'cursor',
  });
}

/** A time bound as text: epoch milliseconds or an ISO 8601 date-time, within {@link MAX_TIME_MS}; undefined when neither. */
export function parseTime(raw: string): number | undefined {
  const n = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  return Number.isFinite(n) && Math.abs(n) <= MAX_TIME_MS ? n : undefined;
}

export const TIME_FORMAT = `epoch milliseconds (at most ${MAX_TIME_MS}) or an ISO 8601 date-time`;

export const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * A newest-first page from the `limit + 1` rows a keyset query read: the first `limit` as JSON, and the cursor after
 * the last of them when there are more.
 */
export function keysetPage<R, J>(
  rows: readonly R[],
  limit: number,
  toJson: (row: R) => J,
  position: (row: R) => Cursor,
): { data: J[]; next_cursor: string | null } {
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return { data: kept.map(toJson), next_cursor: rows.length > limit && last ? encodeCursor(position(last)) : null };
}
