import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { S3Client } from '@aws-sdk/client-s3';
import type { BillingSource, LineItemBatches } from '../../model';
import { readCsvReport, readParquetReport } from '../../readers/index';
import type { SourceEnv } from '../types';
import { ReportBucket } from './bucket';
import type { AwsConfig, AwsSecrets } from './config';
import { assumeRoleCredentials } from './credentials';
import { isPassThrough } from './errors';
import { findReports, periodFiles, type Report, type ReportFile } from './layout';

/**
 * Reads one connection's billing periods from its bucket: assume the role (STS), find the report under the prefix
 * (layout.ts), then stream each of the period's files through the readers — gzip CSV piped through gunzip, Parquet read
 * by ranged GETs — so no report file is ever held whole in memory.
 */
export function awsBillingSource(config: AwsConfig, secrets: AwsSecrets, env: SourceEnv): BillingSource {
  const s3 = new S3Client({
    region: config.region,
    credentials: assumeRoleCredentials({
      roleArn: secrets.role_arn,
      externalId: secrets.external_id,
      region: config.region,
      endpoint: env.endpoints.sts,
    }),
    // A bucket in another region than config.region still works: the SDK follows S3's redirect.
    followRegionRedirects: true,
    ...(env.endpoints.s3 ? { endpoint: env.endpoints.s3 } : {}),
    // S3-compatible stores do not resolve `bucket.host`: startCost decides from the endpoints (aws/s3-addressing.ts).
    forcePathStyle: env.endpoints.s3ForcePathStyle ?? env.endpoints.s3 !== undefined,
  });
  const bucket = new ReportBucket(s3, config.cur_bucket);
  return { read: (period, signal) => readPeriod(bucket, config.cur_prefix, period, signal, env.log) };
}

async function* readPeriod(
  bucket: ReportBucket,
  prefix: string,
  period: string,
  signal: AbortSignal,
  log: (line: string) => void,
): LineItemBatches {
  const where = `s3://${bucket.name}/${prefix}`;
  const chosen = await chooseReport(bucket, prefix, period, signal);
  if (!chosen) {
    log(`aws: no report data for ${period} under ${where}`);
    return;
  }
  const { report, files } = chosen;
  const kind = report.layout === 'cur' ? 'legacy CUR' : 'Data Export';
  log(
    `aws: reading ${period} from ${kind} "${report.name}" (${files.length} file${files.length === 1 ? '' : 's'}) in ${where}`,
  );
  for (const file of files) {
    signal.throwIfAborted();
    yield* readFile(bucket, report, file, signal);
  }
}

/**
 * The report to read for `period`. A prefix normally holds one; when it holds several, the one with data for the
 * period is read, and more than one is an error (reading both would count the same costs twice).
 */
async function chooseReport(
  bucket: ReportBucket,
  prefix: string,
  period: string,
  signal: AbortSignal,
): Promise<{ report: Report; files: ReportFile[] } | null> {
  const reports = await findReports(bucket, prefix, signal);
  const withData: { report: Report; files: ReportFile[] }[] = [];
  for (const report of reports) {
    const files = await periodFiles(bucket, report, period, signal);
    if (files.length > 0) withData.push({ report, files });
  }
  if (withData.length > 1) {
    const roots = withData.map((r) => `${r.report.root} (${r.report.layout === 'cur' ? 'legacy CUR' : 'Data Export'})`);
    throw new Error(
      `s3://${bucket.name}/${prefix} holds ${withData.length} reports with data for ${period}: ${roots.join(', ')}. ` +
        'Set config.cur_prefix to the folder of the one to read.',
    );
  }
  return withData[0] ?? null;
}

async function* readFile(bucket: ReportBucket, report: Report, file: ReportFile, signal: AbortSignal): LineItemBatches {
  // Legacy CUR columns are spelled `lineItem/...` (CSV) or `line_item_...` (Parquet): the reader is told, not guessing.
  const options = report.layout === 'cur' ? { format: 'cur' as const } : {};
  let body: Readable | undefined;
  try {
    if (file.encoding === 'parquet') {
      yield* readParquetReport(await bucket.ranged(file.key, signal), options);
    } else {
      body = await bucket.stream(file.key, signal);
      // pipeline() carries a body or gunzip failure into the stream the reader iterates, so it surfaces there.
      const input = file.encoding === 'csv-gzip' ? pipeline(body, createGunzip(), () => {}) : body;
      yield* readCsvReport(input, options);
    }
  } catch (err) {
    if (isPassThrough(err)) throw err;
    throw new Error(`s3://${bucket.name}/${file.key}: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  } finally {
    body?.destroy();
  }
}
