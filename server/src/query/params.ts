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

export function readCursor(c: Context): Cursor | undefined {
  const raw = c.req.query('cursor');
  if (raw === undefined || raw === '') return undefined;
  try {
    const v = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Cursor;
    if (typeof v.t === 'number' && (typeof v.k === 'number' || typeof v.k === 'string')) return v;
  } catch {
    // fall through to the error below
  }
  throw badRequest('cursor is not a cursor this API returned (use next_cursor from the previous page)', { field: 'cursor' });
}

export function readLimit(c: Context, fallback: number, max: number): number {
  const raw = c.req.query('limit');
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw badRequest(`limit must be an integer from 1 to ${max}`, { field: 'limit' });
  return n;
}

/** A time bound: epoch milliseconds or an ISO 8601 date-time. */
export function readTime(c: Context, field: 'from' | 'to'): number | undefined {
  const raw = c.req.query(field);
  if (raw === undefined || raw === '') return undefined;
  const n = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  if (!Number.isFinite(n)) {
    throw badRequest(`${field} must be epoch milliseconds or an ISO 8601 date-time`, { field });
  }
  return n;
}

/**
 * Rejects filters an endpoint does not support, so a typo is not silently an unfiltered query, and values with U+0000,
 * which no stored text holds and PostgreSQL cannot take as a parameter.
 */
export function checkParams(c: Context, allowed: readonly string[]): void {
  for (const [key, values] of Object.entries(c.req.queries())) {
    if (!allowed.includes(key)) {
      throw badRequest(`unknown query parameter "${key}"; this endpoint accepts ${allowed.join(', ')}`, { field: key });
    }
    if (values.some((v) => v.includes('\u0000'))) throw badRequest(`${key} must not contain U+0000`, { field: key });
  }
}

export const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * A newest-first page from the `limit + 1` rows a keyset query read: the first `limit` as JSON, and the cursor after
 * the last of them when there are more.
 */
export function keysetPage<R, J>(rows: readonly R[], limit: number, toJson: (row: R) => J, position: (row: R) => Cursor): { data: J[]; next_cursor: string | null } {
  const kept = rows.slice(0, limit);
  const last = kept[kept.length - 1];
  return { data: kept.map(toJson), next_cursor: rows.length > limit && last ? encodeCursor(position(last)) : null };
}
