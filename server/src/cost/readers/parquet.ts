import type { AsyncBuffer, FileMetaData } from 'hyparquet';

/**
 * Parquet timestamps as epoch milliseconds (numbers) rather than Date objects: cheaper per row, and what the line-item
 * model holds. INT96 timestamps (older Spark/Athena writers) arrive through the nanosecond parser.
 */
const parsers = {
  timestampFromMilliseconds: (ms: bigint) => Number(ms),
  timestampFromMicroseconds: (us: bigint) => Number(us / 1000n),
  timestampFromNanoseconds: (ns: bigint) => Number(ns / 1_000_000n),
  dateFromDays: (days: number) => days * 86_400_000,
};

export interface ParquetFile {
  metadata: FileMetaData;
  /** Top-level column names. */
  columns: string[];
}

export async function openParquet(file: AsyncBuffer): Promise<ParquetFile> {
  // Loaded with the first Parquet export: only AWS cost sources read them, and hyparquet costs every start-up its load time.
  const { parquetMetadataAsync, parquetSchema } = await import('hyparquet');
  const metadata = await parquetMetadataAsync(file);
  return { metadata, columns: parquetSchema(metadata).children.map((child) => child.element.name) };
}

/**
 * Reads the given columns one row group at a time, each row an array in `columns` order. Only those columns' chunks
 * of one row group are fetched (ranged reads through the AsyncBuffer) and held at once; snappy, gzip, zstd, brotli
 * and lz4 pages are decompressed by hyparquet-compressors.
 */
export async function* parquetRowGroups(
  file: AsyncBuffer,
  parquet: ParquetFile,
  columns: string[],
): AsyncGenerator<unknown[][]> {
  const [{ parquetRead }, { compressors }] = await Promise.all([import('hyparquet'), import('hyparquet-compressors')]);
  let rowStart = 0;
  for (const group of parquet.metadata.row_groups) {
    const rowEnd = rowStart + Number(group.num_rows);
    let rows: unknown[][] = [];
    await parquetRead({
      file,
      metadata: parquet.metadata,
      columns,
      rowStart,
      rowEnd,
      compressors,
      parsers,
      onComplete: (decoded: unknown[][]) => {
        rows = decoded;
      },
    });
    yield rows;
    rowStart = rowEnd;
  }
}
