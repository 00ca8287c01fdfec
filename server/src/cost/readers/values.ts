/**
 * Timestamp text as billing exports write it, to epoch milliseconds. Accepted: `YYYY-MM-DD`, optionally followed by
 * `T` or a space, `HH:MM`, optional `:SS` and fraction, and an optional zone `Z` or `±HH[:]MM`. Without a zone the time
 * is UTC: CUR writes `2024-09-01T00:00:00Z` or `...00.000Z`, FOCUS exports `2024-09-01T00:00:00Z` or, in the FinOps
 * Foundation's sample data, `2024-09-01 00:00:00`, and every export is in UTC (`Date.parse` would read a zone-less
 * date-time as local time). Returns NaN for anything else, including impossible dates like 2024-02-30.
 */
export function parseTimestamp(s: string): number {
  const n = s.length;
  if (n < 10 || s.charCodeAt(4) !== 45 || s.charCodeAt(7) !== 45) return NaN;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  let hour = 0;
  let minute = 0;
  let second = 0;
  let millis = 0;
  let i = 10;
  if (i < n && (s.charCodeAt(i) === 84 || s.charCodeAt(i) === 32)) {
    hour = digits(s, i + 1, 2);
    if (s.charCodeAt(i + 3) !== 58) return NaN;
    minute = digits(s, i + 4, 2);
    i += 6;
    if (s.charCodeAt(i) === 58) {
      second = digits(s, i + 1, 2);
      i += 3;
      if (s.charCodeAt(i) === 46) {
        let scale = 100;
        i += 1;
        const start = i;
        for (let c = s.charCodeAt(i); c >= 48 && c <= 57; c = s.charCodeAt(++i)) {
          millis += (c - 48) * scale;
          scale /= 10;
        }
        if (i === start) return NaN;
        millis = Math.floor(millis);
      }
    }
  }
  let offsetMinutes = 0;
  if (i < n) {
    const c = s.charCodeAt(i);
    if (c === 90 && i + 1 === n) {
      // Z
    } else if (c === 43 || c === 45) {
      const hh = digits(s, i + 1, 2);
      const colon = s.charCodeAt(i + 3) === 58 ? 1 : 0;
      const mm = digits(s, i + 3 + colon, 2);
      if (i + 5 + colon !== n) return NaN;
      offsetMinutes = (c === 45 ? -1 : 1) * (hh * 60 + mm);
    } else {
      return NaN;
    }
  }
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month))) return NaN;
  if (!(hour <= 23 && minute <= 59 && second <= 59)) return NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
}

/** The UTC month of an instant, `YYYY-MM`. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

function digits(s: string, start: number, length: number): number {
  let value = 0;
  for (let i = start; i < start + length; i++) {
    const c = s.charCodeAt(i) - 48;
    if (!(c >= 0 && c <= 9)) return NaN;
    value = value * 10 + c;
  }
  return value;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  if (month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)) return 29;
  return DAYS_IN_MONTH[month - 1]!;
}
