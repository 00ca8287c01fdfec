import type { CostLineItem } from '../../model';
import type { Cells } from '../cells';

/** The billing export formats the readers understand. */
export type ExportFormat = 'cur' | 'cur2' | 'focus';

export const FORMAT_LABELS: Record<ExportFormat, string> = {
  cur: 'AWS Cost and Usage Report (legacy CUR)',
  cur2: 'AWS CUR 2.0 (Data Exports)',
  focus: 'FOCUS 1.0',
};

/** How one report's columns become line items: the columns to read, in slot order, and the row mapping. */
export interface ColumnPlan {
  /** Header names to read; `Cells` slot i is `columns[i]`. */
  columns: string[];
  /** Header positions of `columns` (for CSV, which reads fields by position). */
  positions: number[];
  /** FOCUS text writes `NULL` for null cells. */
  nullLiteral: boolean;
  toItem(cells: Cells): CostLineItem;
}

export interface FormatSpec {
  format: ExportFormat;
  /** Required columns this header lacks (empty when it fits this format). */
  missing(header: readonly string[]): string[];
  /** The plan for a header that fits (call `missing` first; throws ReportFormatError otherwise). */
  plan(header: readonly string[]): ColumnPlan;
}

/**
 * A format from its column binding: `bind` picks the columns it reads from the picker (recording missing required
 * ones) and returns the row mapping.
 */
export function defineFormat(
  format: ExportFormat,
  nullLiteral: boolean,
  bind: (pick: ColumnPicker) => ColumnPlan['toItem'],
): FormatSpec {
  return {
    format,
    missing(header) {
      const pick = new ColumnPicker(header);
      bind(pick);
      return pick.missing;
    },
    plan(header) {
      const pick = new ColumnPicker(header);
      const toItem = bind(pick);
      pick.check(format);
      return { columns: pick.columns, positions: pick.positions, nullLiteral, toItem };
    },
  };
}

export class ReportFormatError extends Error {
  constructor(
    message: string,
    readonly missingColumns: string[],
  ) {
    super(message);
  }
}

/**
 * Picks columns from a header by name and hands out slots, recording required names the header lacks. Alternatives
 * (`required('EffectiveCost', 'AmortizedCost')`) cover renamed columns; the first one present wins.
 */
export class ColumnPicker {
  readonly columns: string[] = [];
  readonly positions: number[] = [];
  readonly missing: string[] = [];
  private readonly index = new Map<string, number>();

  constructor(readonly header: readonly string[]) {
    header.forEach((name, position) => {
      if (!this.index.has(name)) this.index.set(name, position);
    });
  }

  has(name: string): boolean {
    return this.index.has(name);
  }

  required(...names: string[]): number {
    const slot = this.optional(...names);
    if (slot < 0) this.missing.push(names[0]!);
    return slot;
  }

  /** The slot of the first present name, or -1. */
  optional(...names: string[]): number {
    for (const name of names) {
      const position = this.index.get(name);
      if (position !== undefined) return this.slot(name, position);
    }
    return -1;
  }

  /** Every column whose name starts with `prefix`, as slot and the rest of the name. */
  prefixed(prefix: string): { slot: number; suffix: string }[] {
    const out: { slot: number; suffix: string }[] = [];
    this.header.forEach((name, position) => {
      if (name.startsWith(prefix) && name.length > prefix.length && this.index.get(name) === position) {
        out.push({ slot: this.slot(name, position), suffix: name.slice(prefix.length) });
      }
    });
    return out;
  }

  /** Throws naming the missing required columns, if any. */
  check(format: ExportFormat): void {
    if (this.missing.length > 0) {
      throw new ReportFormatError(
        `the report is not a complete ${FORMAT_LABELS[format]}: missing column${this.missing.length > 1 ? 's' : ''} ${this.missing.join(', ')}`,
        [...this.missing],
      );
    }
  }

  private slot(name: string, position: number): number {
    const existing = this.positions.indexOf(position);
    if (existing >= 0) return existing;
    this.columns.push(name);
    this.positions.push(position);
    return this.columns.length - 1;
  }
}
