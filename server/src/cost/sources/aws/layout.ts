import type { ListedObject, ReportBucket } from './bucket';

/**
 * Where AWS puts one billing period's report files, for the layouts AWS writes (docs: "Cost and Usage Report files in
 * Amazon S3" and Data Exports' "Understanding export delivery"):
 *
 * Legacy CUR (`layout: 'cur'`), under `<prefix><report-name>/`:
 * - `<YYYYMMDD-YYYYMMDD>/<report-name>-Manifest.json`: the current delivery of the period; its `reportKeys` name the
 *   files (`<YYYYMMDD-YYYYMMDD>/<assemblyId>/<report-name>-<n>.csv.gz` when reports are kept, one assembly per update:
 *   only the manifest's current one counts; `.snappy.parquet` for Parquet reports).
 * - Athena/overwrite: `<report-name>/year=YYYY/month=M/` holding the Parquet files and, per the docs, the manifest.
 *
 * Data Exports, CUR 2.0 and FOCUS alike (`layout: 'data-export'`), under `<prefix><export-name>/`:
 * - `metadata/BILLING_PERIOD=YYYY-MM/<export-name>-Manifest.json`, written after all data files, whose `dataFiles`
 *   lists `s3://bucket/key` URIs: used when present, so a half-written overwrite is never read.
 * - `data/BILLING_PERIOD=YYYY-MM/<export-name>-<n>.csv.gz|.snappy.parquet` (overwrite), or one
 *   `<timestamp>-<executionId>/` folder per delivery (create new): without a manifest, the newest delivery is read.
 *
 * Which of CUR 2.0 or FOCUS an export holds is decided by its columns (the readers' `detectFormat`), not by its path.
 */
export type ReportLayout = 'cur' | 'data-export';

export interface Report {
  /** Key prefix of the report's folder, ending in `/`. */
  root: string;
  /** The report or export name (the folder's name, which AWS also uses in file names). */
  name: string;
  layout: ReportLayout;
}

export type FileEncoding = 'csv-gzip' | 'csv' | 'parquet';

export interface ReportFile {
  key: string;
  encoding: FileEncoding;
}

const DATE_RANGE = /^\d{8}-\d{8}\/$/;
const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

/**
 * The reports under `prefix`: the prefix itself when it is a report's folder (a user may give `cur/my-report/` as well
 * as `cur/`), else each folder directly under it that holds one. A report is recognized by its folder shape, so other
 * folders in a shared bucket are ignored.
 */
export async function findReports(bucket: ReportBucket, prefix: string, signal: AbortSignal): Promise<Report[]> {
  // Two levels answer both questions: the prefix's own folders, and each child's.
  const children = new Map<string, string[]>();
  for (const folder of await bucket.folders(prefix, 2, signal)) {
    const child = folder.slice(0, folder.indexOf('/', prefix.length) + 1);
    const names = children.get(child);
    if (names) names.push(folder.slice(child.length));
    else children.set(child, [folder.slice(child.length)]);
  }
  const own = await layoutOf(
    bucket,
    prefix,
    [...children.keys()].map((c) => c.slice(prefix.length)),
    signal,
  );
  if (own) return [{ root: prefix, name: folderName(prefix), layout: own }];
  const reports: Report[] = [];
  for (const [child, grandchildren] of children) {
    const layout = await layoutOf(bucket, child, grandchildren, signal);
    if (layout) reports.push({ root: child, name: folderName(child), layout });
  }
  return reports;
}

/** What kind of report `root` is, from the names of the folders directly under it (`data/`, `20240301-20240401/`). */
async function layoutOf(
  bucket: ReportBucket,
  root: string,
  names: string[],
  signal: AbortSignal,
): Promise<ReportLayout | null> {
  // A report always lives in a folder named after it, never at the bucket root.
  if (root === '') return null;
  if (names.includes('data/') || names.includes('metadata/')) return 'data-export';
  if (names.some((n) => DATE_RANGE.test(n))) return 'cur';
  const name = folderName(root);
  if (names.includes(`${name}/`)) {
    // The Athena layout's `<name>/<name>/year=YYYY/`; a report that merely shares its parent folder's name has none.
    const years = await bucket.folders(`${root}${name}/`, 1, signal);
    if (years.some((y) => /\/year=\d{4}\/$/.test(y))) return 'cur';
  }
  return null;
}

/** The files holding `period` (`YYYY-MM`) as the report has it now, in delivery order; empty when there are none. */
export async function periodFiles(
  bucket: ReportBucket,
  report: Report,
  period: string,
  signal: AbortSignal,
): Promise<ReportFile[]> {
  const match = PERIOD.exec(period);
  if (!match) throw new Error(`billing period must be YYYY-MM, not "${period}"`);
  const [, year, month] = match as unknown as [string, string, string];
  return report.layout === 'cur'
    ? curFiles(bucket, report, year, month, signal)
    : exportFiles(bucket, report, period, signal);
}

async function curFiles(
  bucket: ReportBucket,
  report: Report,
  year: string,
  month: string,
  signal: AbortSignal,
): Promise<ReportFile[]> {
  // The period's folder is `<first day>-<first day of the next period>`; listed rather than assumed.
  const ranges = (await bucket.folders(`${report.root}${year}${month}01-`, 1, signal)).filter((f) =>
    DATE_RANGE.test(f.slice(report.root.length)),
  );
  for (const range of ranges) {
    const manifestKey = `${range}${report.name}-Manifest.json`;
    const manifest = await bucket.text(manifestKey, signal);
    if (manifest !== null) return manifestFiles(bucket, manifestKey, manifest, 'reportKeys');
  }
  if (ranges.length > 0) {
    // Syncing nothing would replace stored data with an empty period: fail (and be retried) instead.
    throw new Error(
      `s3://${bucket.name}/${ranges[0]} has no ${report.name}-Manifest.json, so its current report files are unknown`,
    );
  }
  // AWS writes `month=1`; its docs show `month=mm`: look for both.
  for (const m of new Set([String(Number(month)), month])) {
    const folder = `${report.root}${report.name}/year=${year}/month=${m}/`;
    const objects = await bucket.objects(folder, signal);
    const manifestKey = `${folder}${report.name}-Manifest.json`;
    if (objects.some((o) => o.key === manifestKey)) {
      const manifest = await bucket.text(manifestKey, signal);
      if (manifest !== null) return manifestFiles(bucket, manifestKey, manifest, 'reportKeys');
    }
    const files = dataFiles(objects.filter((o) => o.key.lastIndexOf('/') === folder.length - 1));
    if (files.length > 0) return files;
  }
  return [];
}

async function exportFiles(
  bucket: ReportBucket,
  report: Report,
  period: string,
  signal: AbortSignal,
): Promise<ReportFile[]> {
  const partition = `BILLING_PERIOD=${period}/`;
  const manifests = (await bucket.objects(`${report.root}metadata/${partition}`, signal)).filter((o) =>
    o.key.endsWith('Manifest.json'),
  );
  const newestManifest = newest(manifests);
  if (newestManifest) {
    const manifest = await bucket.text(newestManifest.key, signal);
    if (manifest !== null) return manifestFiles(bucket, newestManifest.key, manifest, 'dataFiles');
  }
  const objects = (await bucket.objects(`${report.root}data/${partition}`, signal)).filter(
    (o) => encodingOf(o.key) !== null,
  );
  // Overwrite puts the files in the partition itself; create-new puts each delivery in its own folder.
  const deliveries = new Map<string, ListedObject[]>();
  for (const o of objects) {
    const folder = o.key.slice(0, o.key.lastIndexOf('/') + 1);
    const delivery = deliveries.get(folder);
    if (delivery) delivery.push(o);
    else deliveries.set(folder, [o]);
  }
  const latest = newest(
    [...deliveries].map(([folder, files]) => ({
      key: folder,
      lastModifiedMs: Math.max(...files.map((f) => f.lastModifiedMs)),
    })),
  );
  return dataFiles(latest ? (deliveries.get(latest.key) ?? []) : []);
}

/** The newest object: latest write, then the greatest key (delivery folders start with an ISO timestamp). */
function newest<T extends { key: string; lastModifiedMs: number }>(objects: T[]): T | undefined {
  return objects.reduce<T | undefined>(
    (best, o) =>
      !best || o.lastModifiedMs > best.lastModifiedMs || (o.lastModifiedMs === best.lastModifiedMs && o.key > best.key)
        ? o
        : best,
    undefined,
  );
}

/**
 * The files a manifest lists. Legacy `reportKeys` are keys; Data Exports' `dataFiles` are `s3://bucket/key` URIs. Only
 * the configured bucket is read: a listed file is looked up there by its key.
 */
function manifestFiles(
  bucket: ReportBucket,
  manifestKey: string,
  text: string,
  field: 'reportKeys' | 'dataFiles',
): ReportFile[] {
  const where = `s3://${bucket.name}/${manifestKey}`;
  let listed: unknown;
  try {
    listed = (JSON.parse(text) as Record<string, unknown> | null)?.[field];
  } catch (err) {
    throw new Error(`${where} is not JSON (${(err as Error).message})`, { cause: err });
  }
  if (listed === undefined) listed = [];
  if (!Array.isArray(listed) || !listed.every((k): k is string => typeof k === 'string')) {
    throw new Error(`${where}: "${field}" must be an array of strings`);
  }
  return listed.map((entry) => {
    const key = entry.startsWith('s3://') ? entry.slice(entry.indexOf('/', 5) + 1) : entry.replace(/^\/+/, '');
    const encoding = encodingOf(key);
    if (!encoding) {
      throw new Error(
        `${where} lists ${entry}, which is neither gzip CSV nor Parquet${/\.zip$/i.test(key) ? ' (ZIP-compressed reports are not supported: choose GZIP or Parquet compression)' : ''}`,
      );
    }
    return { key, encoding };
  });
}

function dataFiles(objects: ListedObject[]): ReportFile[] {
  return objects
    .map((o) => ({ key: o.key, encoding: encodingOf(o.key) }))
    .filter((f): f is ReportFile => f.encoding !== null)
    .sort((a, b) => (a.key < b.key ? -1 : 1));
}

function encodingOf(key: string): FileEncoding | null {
  if (/\.gz$/i.test(key)) return 'csv-gzip';
  if (/\.parquet$/i.test(key)) return 'parquet';
  if (/\.csv$/i.test(key)) return 'csv';
  return null;
}

function folderName(root: string): string {
  const trimmed = root.replace(/\/+$/, '');
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}
