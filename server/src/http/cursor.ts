import type { Context } from 'hono';
import { decodeCursor, type Cursor } from '../shared/keyset';

/** The request's `cursor` parameter, decoded and checked (shared/keyset.ts decodeCursor). */
export function readCursor(c: Context, key: 'number'): (Cursor & { k: number }) | undefined;
export function readCursor(c: Context, key: 'string'): (Cursor & { k: string }) | undefined;
export function readCursor(c: Context, key: 'number' | 'string'): Cursor | undefined {
  return key === 'number' ? decodeCursor(c.req.query('cursor'), key) : decodeCursor(c.req.query('cursor'), key);
}
