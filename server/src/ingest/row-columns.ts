import type { StoredRow } from './writer';

/**
 * A write's rows as they cross to the SQLite writer thread: one array of values per column, or the one value every row
 * holds (a batch's spans share their resource and scope JSON). `postMessage` structured-clones its message on the main
 * thread, writing every property name and every value of every row; a batch of 100 spans cloned as columns is half the
 * bytes and a quarter of the time of the same rows as objects (issue 33, docs/benchmarks.md "Ingest").
 */
export interface RowColumns {
  names: string[];
  columns: (unknown[] | { every: unknown })[];
  count: number;
}

/**
 * The rows as columns, or undefined when they do not all have the same columns in the same order (a replay chunk
 * whose payload went to object storage has one more): those cross as they are.
 */
export function toColumns(rows: readonly StoredRow[]): RowColumns | undefined {
  const names = Object.keys(rows[0] ?? {});
  for (const row of rows) {
    let i = 0;
    for (const key in row) if (key !== names[i++]) return undefined;
    if (i !== names.length) return undefined;
  }
  const columns = names.map((name) => {
    const first = rows[0]![name];
    const values: unknown[] = new Array(rows.length);
    let same = rows.length > 1;
    for (let r = 0; r < rows.length; r++) {
      const value = rows[r]![name];
      values[r] = value;
      if (value !== first) same = false;
    }
    return same ? { every: first } : values;
  });
  return { names, columns, count: rows.length };
}

/** The rows again, each with its columns in their order. */
export function fromColumns({ names, columns, count }: RowColumns): StoredRow[] {
  const rows: StoredRow[] = new Array(count);
  for (let r = 0; r < count; r++) {
    const row: Record<string, unknown> = {};
    for (let c = 0; c < names.length; c++) {
      const column = columns[c]!;
      row[names[c]!] = Array.isArray(column) ? column[r] : column.every;
    }
    rows[r] = row as StoredRow;
  }
  return rows;
}
