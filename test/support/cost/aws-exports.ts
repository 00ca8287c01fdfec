import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { csvReport, parquetReport, writeCsvReport, type ExportFormat, type SampleLineItem } from './report-files';

/**
 * Puts billing exports into a bucket exactly where and how AWS delivers them (the test's doing, through its own S3
 * client; the code under test only reads). Layouts, from AWS's docs ("Cost and Usage Report files in Amazon S3",
 * "Understanding export delivery"):
 *
 * - legacy CUR, versioned: `<prefix><name>/<YYYYMMDD-YYYYMMDD>/<assemblyId>/<name>-00001.csv.gz` per update with a copy
 *   of its manifest, and `<prefix><name>/<YYYYMMDD-YYYYMMDD>/<name>-Manifest.json` overwritten to point at the newest.
 * - legacy CUR for Athena (Parquet, overwritten): `<prefix><name>/<name>/year=YYYY/month=M/<name>-00001.snappy.parquet`
 *   and the manifest in the same folder, next to the crawler template and data status AWS also writes.
 * - Data Exports (CUR 2.0, FOCUS): `<prefix><name>/data/BILLING_PERIOD=YYYY-MM/<name>-00001.csv.gz|.snappy.parquet`
 *   (overwrite) or under a `<ISO time>-<execution id>/` folder per delivery (create new), and
 *   `<prefix><name>/metadata/BILLING_PERIOD=YYYY-MM/<name>-Manifest.json` listing `s3://` URIs in `dataFiles`.
 *
 * Files are one element of `files` each (AWS splits large reports). CSV is written streaming (gzip to a temp file,
 * uploaded from disk with its length), so the bench can put a million rows without holding them.
 */
export interface ExportTarget {
  s3: S3Client;
  bucket: string;
  /** `''` or ending in `/`. */
  prefix: string;
}

export type ExportEncoding = 'csv-gzip' | 'parquet';

const ACCOUNT = '111122223333';

/** Legacy CUR kept in versions, gzip CSV: every assembly (oldest first) is delivered; the last one is current. */
export async function putLegacyCur(
  target: ExportTarget,
  options: { name: string; period: string; assemblies: Iterable<SampleLineItem>[][] },
): Promise<{ manifestKey: string; assemblies: { assemblyId: string; keys: string[] }[] }> {
  const { name, period } = options;
  const range = `${target.prefix}${name}/${dateRange(period)}/`;
  const manifestKey = `${range}${name}-Manifest.json`;
  const assemblies: { assemblyId: string; keys: string[] }[] = [];
  for (const files of options.assemblies) {
    const assemblyId = randomUUID();
    const keys: string[] = [];
    for (const [i, rows] of files.entries()) {
      const key = `${range}${assemblyId}/${name}-${chunk(i)}.csv.gz`;
      await putGzipCsv(target, key, 'cur', rows);
      keys.push(key);
    }
    const manifest = legacyManifest(target, {
      name,
      period,
      assemblyId,
      keys,
      compression: 'GZIP',
      contentType: 'text/csv',
    });
    await putText(target, `${range}${assemblyId}/${name}-Manifest.json`, manifest);
    // AWS overwrites the period's manifest after each delivery: it names the current assembly.
    await putText(target, manifestKey, manifest);
    assemblies.push({ assemblyId, keys });
  }
  return { manifestKey, assemblies };
}

/** Legacy CUR in Parquet, as delivered for Athena (always overwritten in place). */
export async function putLegacyCurParquet(
  target: ExportTarget,
  options: { name: string; period: string; files: SampleLineItem[][] },
): Promise<{ manifestKey: string; keys: string[] }> {
  const { name, period } = options;
  const [year, month] = period.split('-') as [string, string];
  const root = `${target.prefix}${name}/`;
  const folder = `${root}${name}/year=${year}/month=${Number(month)}/`;
  const keys: string[] = [];
  for (const [i, rows] of options.files.entries()) {
    const key = `${folder}${name}-${chunk(i)}.snappy.parquet`;
    await putBytes(target, key, Buffer.from(parquetReport('cur', rows)));
    keys.push(key);
  }
  const manifestKey = `${folder}${name}-Manifest.json`;
  await putText(
    target,
    manifestKey,
    legacyManifest(target, {
      name,
      period,
      assemblyId: randomUUID(),
      keys,
      compression: 'Parquet',
      contentType: 'Parquet',
    }),
  );
  // The other files AWS delivers for Athena: none of them is report data.
  await putText(target, `${root}crawler-cfn.yml`, 'AWSTemplateFormatVersion: 2010-09-09\nResources: {}\n');
  await putText(target, `${root}${name}/${name}-create-table.sql`, `CREATE EXTERNAL TABLE IF NOT EXISTS ${name} (...)`);
  await putBytes(
    target,
    `${root}cost_and_usage_data_status/cost_and_usage_data_status.parquet`,
    Buffer.from(parquetReport('cur', [])),
  );
  return { manifestKey, keys };
}

/**
 * A Data Exports delivery (CUR 2.0 or FOCUS 1.0). `delivery: 'create-new'` puts it in its own timestamped folder;
 * `manifest: false` leaves the metadata out (a delivery in progress, or a bucket the metadata was not copied to).
 */
export async function putDataExport(
  target: ExportTarget,
  options: {
    name: string;
    period: string;
    format: 'cur2' | 'focus';
    encoding: ExportEncoding;
    files: Iterable<SampleLineItem>[];
    delivery?: 'overwrite' | 'create-new';
    manifest?: boolean;
    /** Delivery time, for the create-new folder name (default now). */
    at?: Date;
  },
): Promise<{ manifestKey: string | null; keys: string[] }> {
  const { name, period, format, encoding } = options;
  const root = `${target.prefix}${name}/`;
  const executionId = randomUUID();
  const partition = `BILLING_PERIOD=${period}/`;
  const delivery =
    options.delivery === 'create-new' ? `${(options.at ?? new Date()).toISOString()}-${executionId}/` : '';
  const keys: string[] = [];
  for (const [i, rows] of options.files.entries()) {
    const base = `${root}data/${partition}${delivery}${name}-${chunk(i)}`;
    if (encoding === 'parquet') {
      keys.push(`${base}.snappy.parquet`);
      await putBytes(target, `${base}.snappy.parquet`, Buffer.from(parquetReport(format, Array.from(rows))));
    } else {
      keys.push(`${base}.csv.gz`);
      await putGzipCsv(target, `${base}.csv.gz`, format, rows);
    }
  }
  if (options.manifest === false) return { manifestKey: null, keys };
  const [start, end] = periodBounds(period);
  const manifestKey = `${root}metadata/${partition}${name}-Manifest.json`;
  const manifest = {
    executionId,
    exportArn: `arn:aws:bcm-data-exports:us-east-1:${ACCOUNT}:export/${name}-${randomUUID()}`,
    exportName: name,
    billingPeriod: { start: start.toISOString(), end: end.toISOString() },
    bucket: target.bucket,
    reportFormat: encoding === 'parquet' ? 'PARQUET' : 'TEXT_OR_CSV',
    compression: encoding === 'parquet' ? 'PARQUET' : 'GZIP',
    columns: headerOf(format).map((column) => ({ name: column, type: 'string' })),
    dataFiles: keys.map((key) => `s3://${target.bucket}/${key}`),
  };
  await putText(target, manifestKey, JSON.stringify(manifest, null, 2));
  return { manifestKey, keys };
}

/** The legacy CUR manifest (`reportKeys` are keys in the bucket; `billingPeriod` in AWS's compact ISO form). */
function legacyManifest(
  target: ExportTarget,
  m: { name: string; period: string; assemblyId: string; keys: string[]; compression: string; contentType: string },
): string {
  const [start, end] = periodBounds(m.period);
  const compact = (d: Date) => d.toISOString().replace(/[-:]/g, '');
  return JSON.stringify(
    {
      assemblyId: m.assemblyId,
      account: ACCOUNT,
      columns: headerOf('cur').map((column) => {
        const [category, ...rest] = column.split('/');
        return { category, name: rest.join('/'), type: 'String' };
      }),
      charset: 'UTF-8',
      compression: m.compression,
      contentType: m.contentType,
      reportId: randomUUID().replaceAll('-', ''),
      reportName: m.name,
      billingPeriod: { start: compact(start), end: compact(end) },
      bucket: target.bucket,
      reportKeys: m.keys,
      additionalArtifactKeys: [],
    },
    null,
    2,
  );
}

function headerOf(format: ExportFormat): string[] {
  return csvReport(format, []).split(/\r?\n/)[0]!.split(',');
}

async function putGzipCsv(
  target: ExportTarget,
  key: string,
  format: ExportFormat,
  rows: Iterable<SampleLineItem>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-export-'));
  const file = join(dir, 'report.csv.gz');
  try {
    const csv = new PassThrough();
    await Promise.all([writeCsvReport(format, rows, csv), pipeline(csv, createGzip(), createWriteStream(file))]);
    const { size } = await stat(file);
    await target.s3.send(
      new PutObjectCommand({ Bucket: target.bucket, Key: key, Body: createReadStream(file), ContentLength: size }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function putText(target: ExportTarget, key: string, text: string): Promise<void> {
  await putBytes(target, key, Buffer.from(text));
}

async function putBytes(target: ExportTarget, key: string, body: Buffer): Promise<void> {
  await target.s3.send(new PutObjectCommand({ Bucket: target.bucket, Key: key, Body: body }));
}

/** `<YYYYMMDD>-<YYYYMMDD>`: the period's first day and the next period's first day, as AWS names the folder. */
function dateRange(period: string): string {
  const [start, end] = periodBounds(period);
  const day = (d: Date) => d.toISOString().slice(0, 10).replaceAll('-', '');
  return `${day(start)}-${day(end)}`;
}

function periodBounds(period: string): [Date, Date] {
  const [year, month] = period.split('-').map(Number) as [number, number];
  return [new Date(Date.UTC(year, month - 1, 1)), new Date(Date.UTC(year, month, 1))];
}

function chunk(i: number): string {
  return String(i + 1).padStart(5, '0');
}
