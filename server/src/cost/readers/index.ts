import type { LineItemBatches } from '../model';
import { TextCells, ValueCells } from './cells';
import { parseCsv } from './csv';
import { formatFor } from './detect';
import type { ColumnPlan, ExportFormat } from './formats/types';
import { openParquet, parquetRowGroups } from './parquet';
import { ItemBatcher } from './rows';

export { CsvError } from './csv';
export { detectFormat } from './detect';
export { ReportFormatError, type ExportFormat } from './formats/types';
export { ReportRowError } from './rows';

export interface ReportReadOptions {
  /** The export format; detected from the header when not given. */
  format?: ExportFormat;
  /** Line items per yielded batch (default 256). */
  batchSize?: number;
}

/** A Parquet file reached by ranged reads (hyparquet's AsyncBuffer): an S3 object, a local file, a buffer. */
export interface RandomAccessFile {
  byteLength: number;
  slice(start: number, end?: number): Promise<ArrayBuffer> | ArrayBuffer;
}

/**
 * Small batches: items a consumer sums and drops die young; thousands held across chunks would be promoted to the old
 * generation and grow the heap (bench:cost measured the peak RSS of a sync halving from 2000 to 256).
 */
const DEFAULT_BATCH_SIZE = 256;

/**
 * Line items of a CSV billing export (legacy CUR, CUR 2.0 or FOCUS 1.0), streamed: `input` is the decompressed bytes
 * or text (a Node Readable piped through gunzip works) and only a chunk's worth is held at a time.
 *
 * Throws ReportFormatError when the header is not a known format (naming the missing columns), CsvError for broken
 * CSV, ReportRowError naming the row and column of a cell that is not what the column means (a cost that is not a
 * number, a date that is not a date). Empty cost cells are 0.
 */
export async function* readCsvReport(
  input: AsyncIterable<Uint8Array | string>,
  options: ReportReadOptions = {},
): LineItemBatches {
  // The format, and so the columns to keep, is known once the parser has read the header.
  const state: { batcher?: ItemBatcher<string> } = {};
  const select = (header: readonly string[]) => {
    const plan = formatFor(header, options.format).plan(header);
    state.batcher = new ItemBatcher(
      plan,
      new TextCells(plan.columns, plan.nullLiteral),
      options.batchSize ?? DEFAULT_BATCH_SIZE,
    );
    return plan.positions;
  };
  for await (const records of parseCsv(input, select)) {
    if (state.batcher) yield* state.batcher.push(records);
  }
  const rest = state.batcher?.flush();
  if (rest) yield rest;
}

/**
 * Line items of a Parquet billing export, read row group by row group with ranged reads of only the columns the
 * format needs. Errors as readCsvReport's.
 */
export async function* readParquetReport(file: RandomAccessFile, options: ReportReadOptions = {}): LineItemBatches {
  const parquet = await openParquet(file);
  const plan: ColumnPlan = formatFor(parquet.columns, options.format).plan(parquet.columns);
  const batcher = new ItemBatcher(plan, new ValueCells(plan.columns), options.batchSize ?? DEFAULT_BATCH_SIZE);
  for await (const rows of parquetRowGroups(file, parquet, plan.columns)) {
    yield* batcher.push(rows);
  }
  const rest = batcher.flush();
  if (rest) yield rest;
}
