import type { Readable } from 'node:stream';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { parse } from 'csv-parse';
import { parseCsv } from '../../server/src/cost/readers/csv';
import { readCsvReport } from '../../server/src/cost/readers/index';

const CSV_PARSE_ROWS = 200_000;
/** Ends the csv-parse pipeline once it has parsed its sample. */
const ENOUGH = new Error('enough rows');

/** One way of reading the report file, timed from the GetObject request to the last row. */
export interface BaselineResult {
  name: string;
  rows: number;
  seconds: number;
  /** Decompressed bytes read. */
  bytes: number;
}

export interface ReportObject {
  s3: S3Client;
  bucket: string;
  key: string;
}

/**
 * What the sync's rate should be read against, each measured in this process on the very object the server syncs,
 * fetched from s3rver (directly, not through the recording proxy) and gunzipped the same way:
 * - the floor: fetch + gunzip + count line breaks, the least any reader of this file can do;
 * - csv-parse (the usual npm CSV parser) building every record (of the first CSV_PARSE_ROWS), against the readers'
 *   hand-written parser on its own (every column kept, the same work csv-parse does) — why the readers do not use
 *   csv-parse (readers/csv.ts);
 * - readCsvReport: the server's whole reader (only the CUR columns kept, each row mapped to a line item), the part of
 *   a sync before aggregation and the database.
 */
export async function measureBaselines(
  object: ReportObject,
  rows: number,
  log: (line: string) => void,
): Promise<BaselineResult[]> {
  const results: BaselineResult[] = [];
  const run = async (name: string, read: (body: AsyncIterable<Buffer>) => Promise<number>) => {
    log(`baseline: ${name}...`);
    const started = performance.now();
    const body = await open(object);
    let bytes = 0;
    const counted = (async function* () {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        yield chunk;
      }
    })();
    const parsed = await read(counted);
    results.push({ name, rows: parsed, seconds: (performance.now() - started) / 1000, bytes });
  };

  await run('fetch + gunzip + count lines (floor)', async (body) => {
    let lines = 0;
    for await (const chunk of body) {
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
    }
    return lines - 1; // the header
  });
  // csv-parse takes about a minute for a million CUR rows: it stops after CSV_PARSE_ROWS, a steady-state sample.
  const sample = Math.min(CSV_PARSE_ROWS, rows);
  await run(
    `csv-parse 7, every field${sample < rows ? ` (first ${sample.toLocaleString('en-US')} rows)` : ''}`,
    async (body) => {
      let records = 0;
      await pipeline(
        body,
        parse(),
        new Writable({
          objectMode: true,
          highWaterMark: 1024,
          write(_record, _encoding, done) {
            records += 1;
            done(records > sample ? ENOUGH : null);
          },
        }),
      ).catch((error: unknown) => {
        if (error !== ENOUGH) throw error;
      });
      return records - 1; // the header
    },
  );
  await run('readers/csv.ts parseCsv, every field', async (body) => {
    let rows = 0;
    for await (const records of parseCsv(body, (header) => header.map((_, i) => i))) rows += records.length;
    return rows;
  });
  await run('readers readCsvReport → line items', async (body) => {
    let rows = 0;
    for await (const batch of readCsvReport(body, { format: 'cur' })) rows += batch.length;
    return rows;
  });
  return results;
}

/** The object's decompressed bytes, as the AWS source reads it (GetObject body piped through gunzip). */
async function open({ s3, bucket, key }: ReportObject): Promise<Readable> {
  const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const gunzip = createGunzip();
  void pipeline(out.Body as Readable, gunzip).catch((error: unknown) => gunzip.destroy(error as Error));
  return gunzip;
}
