/**
 * Times are epoch milliseconds within the range of a JavaScript Date (±8.64e15): safe integers, far inside PostgreSQL's
 * bigint, so no time a request gives can fail a query.
 */
export const MAX_TIME_MS = 8_640_000_000_000_000;

/** A time bound as text: epoch milliseconds or an ISO 8601 date-time, within {@link MAX_TIME_MS}; undefined when neither. */
export function parseTime(raw: string): number | undefined {
  const n = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw);
  return Number.isFinite(n) && Math.abs(n) <= MAX_TIME_MS ? n : undefined;
}

export const TIME_FORMAT = `epoch milliseconds (at most ${MAX_TIME_MS}) or an ISO 8601 date-time`;

export const iso = (ms: number): string => new Date(ms).toISOString();
