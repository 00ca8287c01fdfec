import type { BillingPeriod } from '../../model';
import type { GcpConfig } from './config';

/** A read-only, parameterized query for one invoice month of a Cloud Billing export table. */
export interface BillingQuery {
  query: string;
  params: { invoice_month: string; partition_from?: Date };
}

/** The columns read, as named in the export schema; `row.ts` maps them. */
const COLUMNS = [
  'usage_start_time',
  'usage_end_time',
  'invoice.month AS invoice_month',
  'cost',
  'currency',
  'cost_type',
  'service.description AS service',
  'sku.description AS sku',
  'project.id AS project_id',
  'location.region AS region',
  'labels',
  'project.labels AS project_labels',
  'credits',
];

/** Only the detailed export has `resource`; the standard one reads NULL there so both give the same columns. */
const RESOURCE_COLUMNS = {
  detailed: ['resource.name AS resource_name', 'resource.global_name AS resource_global_name'],
  standard: ['CAST(NULL AS STRING) AS resource_name', 'CAST(NULL AS STRING) AS resource_global_name'],
};

/** The tables Cloud Billing itself writes: ingestion-time partitioned by day, so `_PARTITIONTIME` exists. */
const NATIVE_EXPORT_TABLE = /^gcp_billing_export(?:_resource)?_v1_/;

const DAY_MS = 86_400_000;

/**
 * Every row of invoice month `period` (Cloud Billing's `invoice.month`, `YYYYMM`, which is what the invoice for that
 * month totals; late rows for earlier usage land in the month they are invoiced in). Values travel as query parameters;
 * only the validated table path is part of the text.
 *
 * On the tables Cloud Billing writes, partitions before the month are skipped (BigQuery bills by bytes scanned, and
 * the table holds every month since the export was enabled): a row of invoice month M cannot be exported before M
 * begins. The bound is one day early so that the Pacific-time invoice month and UTC partition days cannot disagree. A
 * copy or view of the export may have no `_PARTITIONTIME` and is read without that filter.
 */
export function billingQuery(config: GcpConfig, period: BillingPeriod): BillingQuery {
  const table = `\`${config.dataset_project_id}.${config.dataset}.${config.table}\``;
  const columns = [...COLUMNS, ...RESOURCE_COLUMNS[config.export_type]];
  const params: BillingQuery['params'] = { invoice_month: period.replace('-', '') };
  const where = ['invoice.month = @invoice_month'];
  if (NATIVE_EXPORT_TABLE.test(config.table)) {
    params.partition_from = new Date(Date.parse(`${period}-01T00:00:00Z`) - DAY_MS);
    where.push('_PARTITIONTIME >= @partition_from');
  }
  return { query: `SELECT ${columns.join(', ')} FROM ${table} WHERE ${where.join(' AND ')}`, params };
}
