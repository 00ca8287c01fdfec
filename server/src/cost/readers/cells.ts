import { detach } from '../detach';
import { monthOf, parseTimestamp } from './values';

/**
 * One report row as a format mapping reads it, whatever the file type: CSV gives every cell as text, Parquet gives
 * typed values (numbers, bigints, epoch-ms timestamps, maps). Slots are positions in the column list the format chose
 * (`ColumnPlan.columns`); slot -1 is a column the report does not have.
 *
 * A cell that cannot be what the column means (a cost that is not a number, a date that is not a date) throws a
 * CellError naming the column: a sync must fail rather than store wrong totals.
 */
export interface Cells {
  /** The cell as text; null when empty or absent. */
  text(slot: number): string | null;
  /** The cell as a finite number; an empty or absent cell is 0 (exports leave zero costs blank). */
  number(slot: number): number;
  /** The cell as epoch milliseconds; required. */
  time(slot: number): number;
  /** The UTC month `YYYY-MM` of a timestamp cell; required. */
  month(slot: number): string;
  /** A map cell (Parquet MAP, or a JSON object in text), values as text; null when empty or absent. */
  map(slot: number): Record<string, string> | null;
}

export class CellError extends Error {
  constructor(
    readonly column: string,
    problem: string,
  ) {
    super(`column ${column}: ${problem}`);
  }
}

/** `month` from `time`, remembering the last answer: rows of one report mostly share their billing period. */
abstract class MonthOfTime {
  private lastMonthMs = NaN;
  private lastMonth = '';

  abstract time(slot: number): number;

  month(slot: number): string {
    const ms = this.time(slot);
    if (ms !== this.lastMonthMs) {
      this.lastMonthMs = ms;
      this.lastMonth = monthOf(ms);
    }
    return this.lastMonth;
  }
}

/**
 * Cells of a CSV record. Timestamps and maps repeat heavily (a month has 744 distinct hours; every row of a resource
 * has the same tags), so parsed values are remembered per column: timestamps in a bounded map, maps as the last one.
 */
export class TextCells extends MonthOfTime implements Cells {
  row: readonly string[] = [];
  private readonly lastText: (string | undefined)[];
  private readonly lastValue: unknown[];
  private readonly times = new Map<string, number>();

  constructor(
    private readonly columns: readonly string[],
    /** FOCUS text exports write `NULL` for a null cell. */
    private readonly nullLiteral: boolean,
  ) {
    super();
    this.lastText = new Array<string | undefined>(columns.length);
    this.lastValue = new Array<unknown>(columns.length);
  }

  text(slot: number): string | null {
    if (slot < 0) return null;
    const v = this.row[slot]!;
    return v === '' || (this.nullLiteral && v === 'NULL') ? null : v;
  }

  number(slot: number): number {
    if (slot < 0) return 0;
    const v = this.row[slot]!;
    if (v === '') return 0;
    const n = +v;
    // NaN and ±Infinity are the only numbers for which n - n is not 0.
    if (n - n === 0) return n;
    if (this.nullLiteral && v === 'NULL') return 0;
    throw new CellError(this.columns[slot]!, `${JSON.stringify(v)} is not a number`);
  }

  time(slot: number): number {
    if (slot < 0) throw new CellError('(missing)', 'no timestamp column');
    const v = this.row[slot]!;
    // Consecutive rows mostly share their hour: a string compare is cheaper than hashing a fresh string for the map.
    if (v === this.lastText[slot]) return this.lastValue[slot] as number;
    let ms = this.times.get(v);
    if (ms === undefined) {
      ms = parseTimestamp(v);
      if (ms !== ms) {
        const problem =
          v === '' || (this.nullLiteral && v === 'NULL') ? 'is empty' : `${JSON.stringify(v)} is not a date-time`;
        throw new CellError(this.columns[slot]!, problem);
      }
      if (this.times.size >= 10_000) this.times.clear();
      this.times.set(detach(v), ms);
    }
    this.lastText[slot] = v;
    this.lastValue[slot] = ms;
    return ms;
  }

  map(slot: number): Record<string, string> | null {
    const v = this.text(slot);
    if (v === null) return null;
    if (v === this.lastText[slot]) return this.lastValue[slot] as Record<string, string>;
    let parsed: unknown;
    try {
      parsed = JSON.parse(v);
    } catch {
      throw new CellError(this.columns[slot]!, `${JSON.stringify(truncate(v))} is not a JSON object`);
    }
    const map = toTextMap(parsed, this.columns[slot]!);
    this.lastText[slot] = v;
    this.lastValue[slot] = map;
    return map;
  }
}

/**
 * Cells of a Parquet row as hyparquet decodes it, with timestamps already converted to epoch milliseconds by the
 * reader's parsers (see parquet.ts).
 */
export class ValueCells extends MonthOfTime implements Cells {
  row: readonly unknown[] = [];

  constructor(private readonly columns: readonly string[]) {
    super();
  }

  text(slot: number): string | null {
    if (slot < 0) return null;
    const v = this.row[slot];
    if (v === null || v === undefined || v === '') return null;
    return typeof v === 'string' ? v : String(v);
  }

  number(slot: number): number {
    if (slot < 0) return 0;
    const v = this.row[slot];
    if (typeof v === 'number') {
      if (v - v === 0) return v;
    } else if (typeof v === 'bigint') {
      return Number(v);
    } else if (v === null || v === undefined || v === '') {
      return 0;
    } else if (typeof v === 'string') {
      const n = +v;
      if (n - n === 0) return n;
    }
    throw new CellError(this.columns[slot]!, `${describe(v)} is not a number`);
  }

  time(slot: number): number {
    if (slot < 0) throw new CellError('(missing)', 'no timestamp column');
    const v = this.row[slot];
    if (typeof v === 'number' && v - v === 0) return v;
    if (v instanceof Date && !Number.isNaN(v.getTime())) return v.getTime();
    if (typeof v === 'string') {
      const ms = parseTimestamp(v);
      if (ms === ms) return ms;
    }
    throw new CellError(
      this.columns[slot]!,
      v === null || v === undefined ? 'is empty' : `${describe(v)} is not a date-time`,
    );
  }

  map(slot: number): Record<string, string> | null {
    if (slot < 0) return null;
    const v = this.row[slot];
    if (v === null || v === undefined || v === '') return null;
    if (typeof v === 'string') {
      try {
        return toTextMap(JSON.parse(v), this.columns[slot]!);
      } catch (err) {
        if (err instanceof CellError) throw err;
        throw new CellError(this.columns[slot]!, `${JSON.stringify(truncate(v))} is not a JSON object`);
      }
    }
    return toTextMap(v instanceof Map ? Object.fromEntries(v) : v, this.columns[slot]!);
  }
}

/** A map of text values; null values are dropped (a tag that is not set), other values become text. */
function toTextMap(value: unknown, column: string): Record<string, string> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new CellError(column, `${describe(value)} is not a map`);
  }
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === null || v === undefined) continue;
    out[key] = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  }
  return out;
}

function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(truncate(v));
  if (typeof v === 'bigint') return `${v}`;
  if (v instanceof Date) return 'an invalid date';
  try {
    return truncate(JSON.stringify(v) ?? String(v));
  } catch {
    return String(v);
  }
}

function truncate(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
