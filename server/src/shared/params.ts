import { invalid } from './domain-errors';

/** Bounds of a number read from the query string. */
export interface NumberRange {
  min: number;
  max: number;
  /** A safe integer (ids, counts, milliseconds), not a fraction. */
  integer: boolean;
}

/**
 * A number given as text, within `range`; otherwise an `invalid` naming `field`. Every number a request passes to a
 * query goes through here: PostgreSQL refuses a parameter beyond its column's type with an error (a 500 until caught),
 * and JavaScript rounds integers beyond 2^53, so each parameter has bounds both hold.
 */
export function parseNumberParam(raw: string, field: string, range: NumberRange): number {
  const n = raw.trim() === '' ? NaN : Number(raw);
  const ok = range.integer ? Number.isSafeInteger(n) : Number.isFinite(n);
  if (!ok || n < range.min || n > range.max) {
    throw invalid(
      `${field} must be ${range.integer ? 'an integer' : 'a number'} from ${range.min} to ${range.max} (got ${JSON.stringify(raw)})`,
      'invalid_request',
      { field },
    );
  }
  return n;
}
