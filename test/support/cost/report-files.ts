import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { SchemaElement } from 'hyparquet';
import { parquetWriteBuffer, type ColumnSource } from 'hyparquet-writer';
import type { ExportFormat } from '../../../server/src/cost/readers/index';

/**
 * Billing export files as AWS writes them, made from neutral sample line items: legacy CUR (CSV headers
 * `lineItem/UnblendedCost`, Parquet `line_item_unblended_cost` with one column per tag), CUR 2.0 Data Exports (snake_case,
 * `resource_tags` and `product` maps) and FOCUS 1.0 (AWS's FOCUS export, with its `x_` columns). Column names and
 * value formats are the real ones (the legacy CUR header is a real report's, which has ~100 columns, most empty), so
 * parsing costs what it costs on real files.
 *
 * Written independently of the readers under test: nothing here imports reader code but the format name type.
 */

export type { ExportFormat };

export type SampleLineItemType =
  | 'Usage'
  | 'DiscountedUsage'
  | 'SavingsPlanCoveredUsage'
  | 'SavingsPlanNegation'
  | 'SavingsPlanRecurringFee'
  | 'SavingsPlanUpfrontFee'
  | 'RIFee'
  | 'Fee'
  | 'Tax'
  | 'Credit'
  | 'Refund'
  | 'EdpDiscount'
  | 'BundledDiscount';

export interface SampleLineItem {
  /** UTC day, `YYYY-MM-DD`; the billing period is its month. */
  day: string;
  /** UTC hour (0–23) of an hourly line item; absent: a line item covering the whole day. */
  hour?: number;
  resourceId: string | null;
  /** Written as the resource's `Name` tag (AWS has no resource name column). */
  resourceName?: string | null;
  /** AWS product code: `AmazonEC2`, `AmazonS3`, ... */
  productCode: string;
  /** Defaults to AWS's name for known codes (`Amazon Elastic Compute Cloud`), else the code. */
  productName?: string;
  /** `product/productFamily`, e.g. `Compute Instance`, `Storage`, `Data Transfer`. */
  productFamily?: string;
  region: string | null;
  accountId: string;
  type: SampleLineItemType;
  /** `pricing/term`: default `OnDemand` for Usage, `Reserved` for DiscountedUsage, empty otherwise. */
  pricingTerm?: 'OnDemand' | 'Reserved' | 'Spot' | '';
  usageType?: string;
  unblendedCost: number;
  /**
   * Amortized cost, default `unblendedCost`. For commitment line items the AWS writers put it where AWS's amortization
   * reads it (reservation/EffectiveCost, savingsPlan/SavingsPlanEffectiveCost, unused commitment, unused RI fee), and
   * refuse values AWS could not produce (e.g. a SavingsPlanNegation amortizes to 0).
   */
  effectiveCost?: number;
  /** FOCUS ServiceCategory for the FOCUS writer; default from the product code (EC2 → Compute, S3 → Storage, ...). */
  serviceCategory?: string;
  /** User tags (keys as set on the resource, without `user:`). */
  tags?: Record<string, string>;
  currency?: string;
}

export interface CsvReportOptions {
  /**
   * Legacy CUR only: the activated cost allocation tag keys, one column each. Default: the keys found in `rows` when it
   * is an array, else `DEFAULT_TAG_KEYS`; a row with another key is refused.
   */
  tagKeys?: string[];
}

export const DEFAULT_TAG_KEYS = ['Name', 'team', 'env', 'service', 'owner'];

export const PRODUCT_NAMES: Record<string, string> = {
  AmazonEC2: 'Amazon Elastic Compute Cloud',
  AmazonS3: 'Amazon Simple Storage Service',
  AmazonRDS: 'Amazon Relational Database Service',
  AmazonDynamoDB: 'Amazon DynamoDB',
  AWSLambda: 'AWS Lambda',
  AmazonECS: 'Amazon Elastic Container Service',
  AmazonEKS: 'Amazon Elastic Container Service for Kubernetes',
  AWSDataTransfer: 'AWS Data Transfer',
  AmazonCloudWatch: 'AmazonCloudWatch',
  AWSQueueService: 'Amazon Simple Queue Service',
  AmazonVPC: 'Amazon Virtual Private Cloud',
  AWSELB: 'Elastic Load Balancing',
  ComputeSavingsPlans: 'Savings Plans for AWS Compute usage',
};

const FOCUS_SERVICE_CATEGORIES: Record<string, string> = {
  AmazonEC2: 'Compute',
  AWSLambda: 'Compute',
  AmazonECS: 'Compute',
  AmazonEKS: 'Compute',
  AmazonS3: 'Storage',
  AmazonRDS: 'Databases',
  AmazonDynamoDB: 'Databases',
  AWSDataTransfer: 'Networking',
  AmazonVPC: 'Networking',
  AWSELB: 'Networking',
  AWSQueueService: 'Integration',
  AmazonCloudWatch: 'Management and Governance',
};

/**
 * Streams a CSV report of `rows` into `out` (honouring backpressure, so a million rows cost no more memory than a few)
 * and ends `out`; on a bad sample row, destroys `out` with the error.
 */
export async function writeCsvReport(
  format: ExportFormat,
  rows: Iterable<SampleLineItem>,
  out: Writable,
  options: CsvReportOptions = {},
): Promise<void> {
  try {
    const layout = csvLayout(format, rows, options);
    let chunk = layout.header;
    for (const row of rows) {
      chunk += layout.row(row);
      if (chunk.length >= 64 * 1024) {
        if (!out.write(chunk)) await once(out, 'drain');
        chunk = '';
      }
    }
    out.end(chunk);
  } catch (err) {
    // A reader on the other end must see the failure, not wait for an end that never comes.
    out.destroy(err as Error);
    throw err;
  }
  await finished(out, { readable: false });
}

/** A whole CSV report as text (small inputs). */
export function csvReport(format: ExportFormat, rows: SampleLineItem[], options: CsvReportOptions = {}): string {
  const layout = csvLayout(format, rows, options);
  return layout.header + rows.map((row) => layout.row(row)).join('');
}

/** A Parquet report (snappy, as AWS writes them), with the types AWS uses: DOUBLE costs, timestamps, MAP columns. */
export function parquetReport(
  format: ExportFormat,
  rows: SampleLineItem[],
  options: { rowGroupSize?: number } = {},
): ArrayBuffer {
  const columns = parquetColumns(format, rows);
  const schema: SchemaElement[] = [{ name: 'root', num_children: columns.length }];
  const columnData: ColumnSource[] = [];
  for (const column of columns) {
    if (column.type === 'MAP') {
      schema.push(
        { name: column.name, repetition_type: 'OPTIONAL', converted_type: 'MAP', num_children: 1 },
        { name: 'key_value', repetition_type: 'REPEATED', num_children: 2 },
        { name: 'key', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'REQUIRED' },
        { name: 'value', type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' },
      );
    } else if (column.type === 'DOUBLE') {
      schema.push({ name: column.name, type: 'DOUBLE', repetition_type: 'OPTIONAL' });
    } else if (column.type === 'TIMESTAMP') {
      schema.push({
        name: column.name,
        type: 'INT64',
        converted_type: 'TIMESTAMP_MILLIS',
        repetition_type: 'OPTIONAL',
      });
    } else {
      schema.push({ name: column.name, type: 'BYTE_ARRAY', converted_type: 'UTF8', repetition_type: 'OPTIONAL' });
    }
    columnData.push({ name: column.name, data: column.values as never });
  }
  return parquetWriteBuffer({ columnData, schema, rowGroupSize: options.rowGroupSize ?? 100_000 });
}

// ---------------------------------------------------------------------------------------------------------------------
// Derived fields, shared by every format.

interface Derived extends Times {
  productName: string;
  term: string;
  effective: number;
  tags: Record<string, string>;
  /** Amortization columns, as AWS fills them for the line item type. */
  riEffectiveCost: number | null;
  riArn: string | null;
  riUnusedUpfront: number | null;
  riUnusedRecurring: number | null;
  spEffectiveCost: number | null;
  spArn: string | null;
  spTotalCommitment: number | null;
  spUsedCommitment: number | null;
}

const HOUR = 3_600_000;
const RI_ARN = 'arn:aws:ec2:us-east-1:111122223333:reserved-instances/8f5b1c2a-1111-4b5c-9d3e-0a1b2c3d4e5f';
const SP_ARN = 'arn:aws:savingsplans::111122223333:savingsplan/3f2a6a3e-2222-4f7e-8c1d-9e8f7a6b5c4d';

interface Times {
  /** identity/TimeInterval: the line item's day, `2024-03-01T00:00:00Z/2024-03-02T00:00:00Z`. */
  interval: string;
  start: string;
  end: string;
  startMs: number;
  endMs: number;
  periodStart: string;
  periodEnd: string;
  periodStartMs: number;
  periodEndMs: number;
}

/** Date text is the slow part of writing a row, and a month has only 744 distinct hours. */
const timesCache = new Map<string, Times>();

function times(day: string, hour: number | undefined): Times {
  const key = hour === undefined ? day : `${day}|${hour}`;
  let t = timesCache.get(key);
  if (t === undefined) {
    const dayMs = Date.parse(`${day}T00:00:00Z`);
    if (Number.isNaN(dayMs)) throw new Error(`sample line item day ${day} is not YYYY-MM-DD`);
    const startMs = hour === undefined ? dayMs : dayMs + hour * HOUR;
    const endMs = hour === undefined ? dayMs + 24 * HOUR : startMs + HOUR;
    const date = new Date(dayMs);
    const periodStartMs = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
    const periodEndMs = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
    const intervalStart = iso(dayMs).replace('.000Z', 'Z');
    const intervalEnd = iso(dayMs + 24 * HOUR).replace('.000Z', 'Z');
    t = {
      interval: `${intervalStart}/${intervalEnd}`,
      start: iso(startMs),
      end: iso(endMs),
      startMs,
      endMs,
      periodStart: iso(periodStartMs),
      periodEnd: iso(periodEndMs),
      periodStartMs,
      periodEndMs,
    };
    timesCache.set(key, t);
  }
  return t;
}

function derive(row: SampleLineItem): Derived {
  const effective = row.effectiveCost ?? row.unblendedCost;
  const t = times(row.day, row.hour);
  const d: Derived = {
    interval: t.interval,
    start: t.start,
    end: t.end,
    startMs: t.startMs,
    endMs: t.endMs,
    periodStart: t.periodStart,
    periodEnd: t.periodEnd,
    periodStartMs: t.periodStartMs,
    periodEndMs: t.periodEndMs,
    productName: row.productName ?? PRODUCT_NAMES[row.productCode] ?? row.productCode,
    term: row.pricingTerm ?? (row.type === 'Usage' ? 'OnDemand' : row.type === 'DiscountedUsage' ? 'Reserved' : ''),
    effective,
    tags: row.resourceName ? { Name: row.resourceName, ...row.tags } : (row.tags ?? {}),
    riEffectiveCost: null,
    riArn: null,
    riUnusedUpfront: null,
    riUnusedRecurring: null,
    spEffectiveCost: null,
    spArn: null,
    spTotalCommitment: null,
    spUsedCommitment: null,
  };
  switch (row.type) {
    case 'DiscountedUsage':
      d.riEffectiveCost = effective;
      d.riArn = RI_ARN;
      break;
    case 'RIFee':
      d.riUnusedUpfront = 0;
      d.riUnusedRecurring = effective;
      d.riArn = RI_ARN;
      break;
    case 'SavingsPlanCoveredUsage':
      d.spEffectiveCost = effective;
      d.spArn = SP_ARN;
      break;
    case 'SavingsPlanRecurringFee':
      d.spTotalCommitment = row.unblendedCost;
      d.spUsedCommitment = row.unblendedCost - effective;
      d.spArn = SP_ARN;
      break;
    case 'SavingsPlanNegation':
    case 'SavingsPlanUpfrontFee':
      if (effective !== 0) refuse(row, 'AWS amortizes it to 0');
      d.spArn = SP_ARN;
      break;
    case 'Fee':
      // An RI's upfront fee amortizes to 0; any other fee to what it charges.
      if (effective === 0 && row.unblendedCost !== 0) d.riArn = RI_ARN;
      else if (effective !== row.unblendedCost)
        refuse(row, 'a fee amortizes to its unblended cost, or to 0 for an RI upfront fee');
      break;
    default:
      if (effective !== row.unblendedCost) refuse(row, 'it amortizes to its unblended cost');
  }
  return d;
}

function refuse(row: SampleLineItem, why: string): never {
  throw new Error(`sample ${row.type} line item on ${row.day}: ${why}`);
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** AWS's number text: `1.81E-8`, `0.0116`, `12.5`. */
function num(value: number | null): string {
  if (value === null) return '';
  const text = String(value);
  return text.includes('e') ? text.replace('e', 'E') : text;
}

/** Tag key as AWS writes it in Parquet columns and CUR 2.0 map keys: lower case, other characters `_`. */
function snakeTagKey(key: string): string {
  return key.toLowerCase().replace(/[^a-z0-9]/g, '_');
}

// ---------------------------------------------------------------------------------------------------------------------
// CSV

/** A format's CSV text: the header line and each row's line, newline included. */
interface CsvLayout {
  header: string;
  row(row: SampleLineItem): string;
}

function field(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function line(fields: string[]): string {
  return `${fields.map(field).join(',')}\n`;
}

function csvLayout(format: ExportFormat, rows: Iterable<SampleLineItem>, options: CsvReportOptions): CsvLayout {
  if (format === 'cur') return legacyCurCsv(tagKeysFor(rows, options));
  if (format === 'cur2') return cur2Csv();
  return focusCsv();
}

function tagKeysFor(rows: Iterable<SampleLineItem>, options: CsvReportOptions): string[] {
  if (options.tagKeys) return options.tagKeys;
  if (!Array.isArray(rows)) return DEFAULT_TAG_KEYS;
  const keys = new Set<string>();
  for (const row of rows as SampleLineItem[]) {
    if (row.resourceName) keys.add('Name');
    for (const key of Object.keys(row.tags ?? {})) keys.add(key);
  }
  return [...keys].sort();
}

/** A real legacy CUR header (FinOps Foundation FOCUS converter test data) plus resource id and instance columns. */
const LEGACY_CUR_COLUMNS = (
  'identity/LineItemId,identity/TimeInterval,bill/InvoiceId,bill/InvoicingEntity,bill/BillingEntity,bill/BillType,' +
  'bill/PayerAccountId,bill/BillingPeriodStartDate,bill/BillingPeriodEndDate,lineItem/UsageAccountId,' +
  'lineItem/LineItemType,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/ProductCode,lineItem/UsageType,' +
  'lineItem/Operation,lineItem/AvailabilityZone,lineItem/ResourceId,lineItem/UsageAmount,lineItem/NormalizationFactor,' +
  'lineItem/NormalizedUsageAmount,lineItem/CurrencyCode,lineItem/UnblendedRate,lineItem/UnblendedCost,' +
  'lineItem/BlendedRate,lineItem/BlendedCost,lineItem/LineItemDescription,lineItem/TaxType,lineItem/LegalEntity,' +
  'product/ProductName,product/availability,product/durability,product/eventType,product/feeCode,' +
  'product/feeDescription,product/fromLocation,product/fromLocationType,product/fromRegionCode,product/group,' +
  'product/groupDescription,product/instanceFamily,product/instanceType,product/location,product/locationType,' +
  'product/memory,product/messageDeliveryFrequency,product/messageDeliveryOrder,product/operatingSystem,' +
  'product/operation,product/overhead,product/productFamily,product/productType,product/queueType,product/region,' +
  'product/regionCode,product/servicecode,product/servicename,product/sku,product/storageClass,product/storageMedia,' +
  'product/tenancy,product/toLocation,product/toLocationType,product/toRegionCode,product/transferType,' +
  'product/usagetype,product/vcpu,product/version,product/volumeType,pricing/RateCode,pricing/RateId,pricing/currency,' +
  'pricing/publicOnDemandCost,pricing/publicOnDemandRate,pricing/term,pricing/unit,' +
  'reservation/AmortizedUpfrontCostForUsage,reservation/AmortizedUpfrontFeeForBillingPeriod,reservation/EffectiveCost,' +
  'reservation/EndTime,reservation/ModificationStatus,reservation/NormalizedUnitsPerReservation,' +
  'reservation/NumberOfReservations,reservation/RecurringFeeForUsage,reservation/ReservationARN,reservation/StartTime,' +
  'reservation/SubscriptionId,reservation/TotalReservedNormalizedUnits,reservation/TotalReservedUnits,' +
  'reservation/UnitsPerReservation,reservation/UnusedAmortizedUpfrontFeeForBillingPeriod,' +
  'reservation/UnusedNormalizedUnitQuantity,reservation/UnusedQuantity,reservation/UnusedRecurringFee,' +
  'reservation/UpfrontValue,savingsPlan/TotalCommitmentToDate,savingsPlan/SavingsPlanARN,savingsPlan/SavingsPlanRate,' +
  'savingsPlan/UsedCommitment,savingsPlan/SavingsPlanEffectiveCost,' +
  'savingsPlan/AmortizedUpfrontCommitmentForBillingPeriod,savingsPlan/RecurringCommitmentForBillingPeriod'
).split(',');

/** Legacy CUR columns with the same value on every row. */
const LEGACY_CUR_CONSTANTS: Record<string, string> = {
  'bill/InvoicingEntity': 'Amazon Web Services, Inc.',
  'bill/BillingEntity': 'AWS',
  'bill/BillType': 'Anniversary',
  'bill/PayerAccountId': '111122223333',
  'lineItem/UsageAmount': '1.0',
  'lineItem/LegalEntity': 'Amazon Web Services, Inc.',
  'pricing/currency': 'USD',
};

/**
 * What a line item puts in each legacy CUR column it fills (CSV-escaped where the value is free text); every other
 * column stays empty, as most of a real CUR row is.
 */
const LEGACY_CUR_CELLS: Record<string, (row: SampleLineItem, d: Derived, sequence: number) => string> = {
  'identity/LineItemId': (_row, _d, sequence) => lineItemId(sequence),
  'identity/TimeInterval': (_row, d) => d.interval,
  'bill/BillingPeriodStartDate': (_row, d) => d.periodStart,
  'bill/BillingPeriodEndDate': (_row, d) => d.periodEnd,
  'lineItem/UsageAccountId': (row) => row.accountId,
  'lineItem/LineItemType': (row) => row.type,
  'lineItem/UsageStartDate': (_row, d) => d.start,
  'lineItem/UsageEndDate': (_row, d) => d.end,
  'lineItem/ProductCode': (row) => row.productCode,
  'lineItem/UsageType': (row) => field(row.usageType ?? ''),
  'lineItem/ResourceId': (row) => field(row.resourceId ?? ''),
  'lineItem/CurrencyCode': (row) => row.currency ?? 'USD',
  'lineItem/UnblendedRate': (row) => num(row.unblendedCost),
  'lineItem/UnblendedCost': (row) => num(row.unblendedCost),
  'lineItem/BlendedRate': (row) => num(row.unblendedCost),
  'lineItem/BlendedCost': (row) => num(row.unblendedCost),
  'lineItem/LineItemDescription': (row, d) => field(`${row.type} of ${d.productName}`),
  'product/ProductName': (_row, d) => field(d.productName),
  'product/productFamily': (row) => field(row.productFamily ?? ''),
  'product/region': (row) => row.region ?? '',
  'product/regionCode': (row) => row.region ?? '',
  'product/servicecode': (row) => row.productCode,
  'pricing/publicOnDemandCost': (row) => num(row.unblendedCost),
  'pricing/term': (_row, d) => d.term,
  'reservation/EffectiveCost': (_row, d) => num(d.riEffectiveCost),
  'reservation/ReservationARN': (_row, d) => d.riArn ?? '',
  'reservation/UnusedAmortizedUpfrontFeeForBillingPeriod': (_row, d) => num(d.riUnusedUpfront),
  'reservation/UnusedRecurringFee': (_row, d) => num(d.riUnusedRecurring),
  'savingsPlan/SavingsPlanEffectiveCost': (_row, d) => num(d.spEffectiveCost),
  'savingsPlan/SavingsPlanARN': (_row, d) => d.spArn ?? '',
  'savingsPlan/TotalCommitmentToDate': (_row, d) => num(d.spTotalCommitment),
  'savingsPlan/UsedCommitment': (_row, d) => num(d.spUsedCommitment),
};

/**
 * A legacy CUR row is ~100 columns of which a line item fills ~40: the row is built as the constant text between
 * filled columns (`parts`) interleaved with the filled values, which is what lets the bench write a million rows fast.
 */
function legacyCurCsv(tagKeys: string[]): CsvLayout {
  const tagCells = Object.fromEntries(
    tagKeys.map((key) => [`resourceTags/user:${key}`, (_row: SampleLineItem, d: Derived) => field(d.tags[key] ?? '')]),
  );
  const header = [...LEGACY_CUR_COLUMNS, ...Object.keys(tagCells)];
  const dynamic = { ...LEGACY_CUR_CELLS, ...tagCells };
  const parts: string[] = [];
  const cells: ((row: SampleLineItem, d: Derived, sequence: number) => string)[] = [];
  let text = '';
  header.forEach((name, i) => {
    if (i > 0) text += ',';
    const cell = dynamic[name];
    if (cell) {
      parts.push(text);
      cells.push(cell);
      text = '';
    } else {
      text += field(LEGACY_CUR_CONSTANTS[name] ?? '');
    }
  });
  parts.push(`${text}\n`);
  const declared = new Set(tagKeys);
  let sequence = 0;
  return {
    header: line(header),
    row(row) {
      const d = derive(row);
      sequence += 1;
      for (const key in d.tags) {
        if (!declared.has(key))
          throw new Error(`report-files: tag ${key} is not among tagKeys (${tagKeys.join(', ')})`);
      }
      let out = parts[0]!;
      for (let i = 0; i < cells.length; i++) out += cells[i]!(row, d, sequence) + parts[i + 1]!;
      return out;
    },
  };
}

function lineItemId(n: number): string {
  return `${n.toString(32).padStart(8, 'a')}abcdabcdabcdabcdabcdabcdabcdabcdabcdabcdabc`.slice(0, 51);
}

/** CUR 2.0 columns (table COST_AND_USAGE_REPORT, a typical selection); `product` and `resource_tags` are maps. */
const CUR2_COLUMNS = (
  'bill_bill_type,bill_billing_entity,bill_billing_period_end_date,bill_billing_period_start_date,bill_invoice_id,' +
  'bill_invoicing_entity,bill_payer_account_id,bill_payer_account_name,cost_category,discount,discount_bundled_discount,' +
  'discount_total_discount,identity_line_item_id,identity_time_interval,line_item_availability_zone,' +
  'line_item_blended_cost,line_item_blended_rate,line_item_currency_code,line_item_legal_entity,' +
  'line_item_line_item_description,line_item_line_item_type,line_item_net_unblended_cost,line_item_net_unblended_rate,' +
  'line_item_normalization_factor,line_item_normalized_usage_amount,line_item_operation,line_item_product_code,' +
  'line_item_resource_id,line_item_tax_type,line_item_unblended_cost,line_item_unblended_rate,' +
  'line_item_usage_account_id,line_item_usage_account_name,line_item_usage_amount,line_item_usage_end_date,' +
  'line_item_usage_start_date,line_item_usage_type,pricing_currency,pricing_lease_contract_length,' +
  'pricing_offering_class,pricing_public_on_demand_cost,pricing_public_on_demand_rate,pricing_purchase_option,' +
  'pricing_rate_code,pricing_rate_id,pricing_term,pricing_unit,product,product_comment,product_fee_code,' +
  'product_fee_description,product_from_location,product_from_location_type,product_from_region_code,' +
  'product_instance_family,product_instance_type,product_instancesku,product_location,product_location_type,' +
  'product_operation,product_pricing_unit,product_product_family,product_region_code,product_servicecode,product_sku,' +
  'product_to_location,product_to_location_type,product_to_region_code,product_usagetype,' +
  'reservation_amortized_upfront_cost_for_usage,reservation_amortized_upfront_fee_for_billing_period,' +
  'reservation_availability_zone,reservation_effective_cost,reservation_end_time,reservation_modification_status,' +
  'reservation_net_effective_cost,reservation_normalized_units_per_reservation,reservation_number_of_reservations,' +
  'reservation_recurring_fee_for_usage,reservation_reservation_a_r_n,reservation_start_time,' +
  'reservation_subscription_id,reservation_total_reserved_normalized_units,reservation_total_reserved_units,' +
  'reservation_units_per_reservation,reservation_unused_amortized_upfront_fee_for_billing_period,' +
  'reservation_unused_normalized_unit_quantity,reservation_unused_quantity,reservation_unused_recurring_fee,' +
  'reservation_upfront_value,resource_tags,savings_plan_amortized_upfront_commitment_for_billing_period,' +
  'savings_plan_end_time,savings_plan_offering_type,savings_plan_payment_option,savings_plan_purchase_term,' +
  'savings_plan_recurring_commitment_for_billing_period,savings_plan_region,savings_plan_savings_plan_a_r_n,' +
  'savings_plan_savings_plan_effective_cost,savings_plan_savings_plan_rate,savings_plan_start_time,' +
  'savings_plan_total_commitment_to_date,savings_plan_used_commitment'
).split(',');

/** The CUR 2.0 cells of a line item, typed (numbers, epoch-ms dates, maps); the CSV writer renders them as text. */
function cur2Values(
  row: SampleLineItem,
  sequence: number,
): Record<string, string | number | Record<string, string> | null> {
  const d = derive(row);
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries(d.tags)) tags[`user_${snakeTagKey(key)}`] = value;
  return {
    bill_bill_type: 'Anniversary',
    bill_billing_entity: 'AWS',
    bill_billing_period_start_date: d.periodStartMs,
    bill_billing_period_end_date: d.periodEndMs,
    bill_invoicing_entity: 'Amazon Web Services, Inc.',
    bill_payer_account_id: '111122223333',
    bill_payer_account_name: 'Example Payer',
    cost_category: {},
    discount: {},
    identity_line_item_id: lineItemId(sequence),
    identity_time_interval: d.interval,
    line_item_blended_cost: row.unblendedCost,
    line_item_currency_code: row.currency ?? 'USD',
    line_item_legal_entity: 'Amazon Web Services, Inc.',
    line_item_line_item_description: `${row.type} of ${d.productName}`,
    line_item_line_item_type: row.type,
    line_item_net_unblended_cost: row.unblendedCost,
    line_item_product_code: row.productCode,
    line_item_resource_id: row.resourceId,
    line_item_unblended_cost: row.unblendedCost,
    line_item_unblended_rate: row.unblendedCost,
    line_item_usage_account_id: row.accountId,
    line_item_usage_amount: 1,
    line_item_usage_end_date: d.endMs,
    line_item_usage_start_date: d.startMs,
    line_item_usage_type: row.usageType ?? null,
    pricing_currency: 'USD',
    pricing_public_on_demand_cost: row.unblendedCost,
    pricing_term: d.term || null,
    product: {
      product_name: d.productName,
      servicecode: row.productCode,
      ...(row.region ? { region: row.region } : {}),
    },
    product_product_family: row.productFamily ?? null,
    product_region_code: row.region,
    product_servicecode: row.productCode,
    reservation_effective_cost: d.riEffectiveCost,
    reservation_reservation_a_r_n: d.riArn,
    reservation_unused_amortized_upfront_fee_for_billing_period: d.riUnusedUpfront,
    reservation_unused_recurring_fee: d.riUnusedRecurring,
    resource_tags: tags,
    savings_plan_savings_plan_a_r_n: d.spArn,
    savings_plan_savings_plan_effective_cost: d.spEffectiveCost,
    savings_plan_total_commitment_to_date: d.spTotalCommitment,
    savings_plan_used_commitment: d.spUsedCommitment,
  };
}

const CUR2_TIMESTAMPS = new Set([
  'bill_billing_period_start_date',
  'bill_billing_period_end_date',
  'line_item_usage_start_date',
  'line_item_usage_end_date',
]);
const CUR2_MAPS = new Set(['cost_category', 'discount', 'product', 'resource_tags']);

function cur2Csv(): CsvLayout {
  let sequence = 0;
  return {
    header: line(CUR2_COLUMNS),
    row(row) {
      sequence += 1;
      const values = cur2Values(row, sequence);
      return line(
        CUR2_COLUMNS.map((name) => {
          const v = values[name];
          if (v === null || v === undefined) return '';
          if (CUR2_TIMESTAMPS.has(name)) return iso(v as number);
          if (typeof v === 'object') return JSON.stringify(v);
          return typeof v === 'number' ? num(v) : v;
        }),
      );
    },
  };
}

/** AWS's FOCUS 1.0 export columns: the FOCUS 1.0 columns plus AWS's `x_` ones. */
const FOCUS_COLUMNS = (
  'AvailabilityZone,BilledCost,BillingAccountId,BillingAccountName,BillingCurrency,BillingPeriodEnd,BillingPeriodStart,' +
  'ChargeCategory,ChargeClass,ChargeDescription,ChargeFrequency,ChargePeriodEnd,ChargePeriodStart,' +
  'CommitmentDiscountCategory,CommitmentDiscountId,CommitmentDiscountName,CommitmentDiscountStatus,' +
  'CommitmentDiscountType,ConsumedQuantity,ConsumedUnit,ContractedCost,ContractedUnitPrice,EffectiveCost,' +
  'InvoiceIssuerName,ListCost,ListUnitPrice,PricingCategory,PricingQuantity,PricingUnit,ProviderName,PublisherName,' +
  'RegionId,RegionName,ResourceId,ResourceName,ResourceType,ServiceCategory,ServiceName,SkuId,SkuPriceId,' +
  'SubAccountId,SubAccountName,Tags,x_CostCategories,x_Discounts,x_Operation,x_ServiceCode,x_UsageType'
).split(',');

const COMMITMENT_TYPES: SampleLineItemType[] = [
  'DiscountedUsage',
  'SavingsPlanCoveredUsage',
  'SavingsPlanNegation',
  'RIFee',
  'SavingsPlanRecurringFee',
  'SavingsPlanUpfrontFee',
];

const FOCUS_CHARGE_CATEGORY: Record<SampleLineItemType, string> = {
  Usage: 'Usage',
  DiscountedUsage: 'Usage',
  SavingsPlanCoveredUsage: 'Usage',
  SavingsPlanNegation: 'Usage',
  SavingsPlanRecurringFee: 'Purchase',
  SavingsPlanUpfrontFee: 'Purchase',
  RIFee: 'Purchase',
  Fee: 'Purchase',
  Tax: 'Tax',
  Credit: 'Credit',
  Refund: 'Adjustment',
  EdpDiscount: 'Credit',
  BundledDiscount: 'Credit',
};

function focusValues(row: SampleLineItem): Record<string, string | number | Record<string, string> | null> {
  const d = derive(row);
  const pricing = COMMITMENT_TYPES.includes(row.type)
    ? 'Committed'
    : row.type !== 'Usage'
      ? null
      : d.term === 'Spot'
        ? 'Dynamic'
        : d.term === 'OnDemand'
          ? 'Standard'
          : null;
  return {
    AvailabilityZone: null,
    BilledCost: row.unblendedCost,
    BillingAccountId: '111122223333',
    BillingAccountName: 'Example Payer',
    BillingCurrency: row.currency ?? 'USD',
    BillingPeriodEnd: d.periodEndMs,
    BillingPeriodStart: d.periodStartMs,
    ChargeCategory: FOCUS_CHARGE_CATEGORY[row.type],
    ChargeDescription: `${row.type} of ${d.productName}`,
    ChargeFrequency: row.type === 'Usage' ? 'Usage-Based' : 'Recurring',
    ChargePeriodEnd: d.endMs,
    ChargePeriodStart: d.startMs,
    CommitmentDiscountId: d.riArn ?? d.spArn,
    EffectiveCost: d.effective,
    InvoiceIssuerName: 'Amazon Web Services, Inc.',
    ListCost: row.unblendedCost,
    PricingCategory: pricing,
    ProviderName: 'AWS',
    PublisherName: 'Amazon Web Services, Inc.',
    RegionId: row.region,
    ResourceId: row.resourceId,
    ResourceName: row.resourceName ?? null,
    ServiceCategory: row.serviceCategory ?? FOCUS_SERVICE_CATEGORIES[row.productCode] ?? 'Other',
    ServiceName: d.productName,
    SubAccountId: row.accountId,
    Tags: d.tags,
    x_ServiceCode: row.productCode,
    x_UsageType: row.usageType ?? null,
  };
}

const FOCUS_TIMESTAMPS = new Set(['BillingPeriodEnd', 'BillingPeriodStart', 'ChargePeriodEnd', 'ChargePeriodStart']);
const FOCUS_MAPS = new Set(['Tags', 'x_CostCategories', 'x_Discounts']);

function focusCsv(): CsvLayout {
  return {
    header: line(FOCUS_COLUMNS),
    row(row) {
      const values = focusValues(row);
      return line(
        FOCUS_COLUMNS.map((name) => {
          const v = values[name];
          if (v === null || v === undefined) return '';
          if (FOCUS_TIMESTAMPS.has(name)) return iso(v as number).replace('.000Z', 'Z');
          if (typeof v === 'object') return JSON.stringify(v);
          return typeof v === 'number' ? num(v) : v;
        }),
      );
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------------
// Parquet

interface ParquetColumn {
  name: string;
  type: 'STRING' | 'DOUBLE' | 'TIMESTAMP' | 'MAP';
  values: unknown[];
}

function parquetColumns(format: ExportFormat, rows: SampleLineItem[]): ParquetColumn[] {
  if (format === 'cur') return legacyCurParquet(rows);
  const names = format === 'cur2' ? CUR2_COLUMNS : FOCUS_COLUMNS;
  const timestamps = format === 'cur2' ? CUR2_TIMESTAMPS : FOCUS_TIMESTAMPS;
  const maps = format === 'cur2' ? CUR2_MAPS : FOCUS_MAPS;
  const records = rows.map((row, i) => (format === 'cur2' ? cur2Values(row, i + 1) : focusValues(row)));
  return names.map((name) => {
    const values = records.map((record) => record[name] ?? null);
    const type = timestamps.has(name) ? 'TIMESTAMP' : maps.has(name) ? 'MAP' : isNumeric(values) ? 'DOUBLE' : 'STRING';
    return {
      name,
      type,
      values: type === 'TIMESTAMP' ? values.map((v) => (v === null ? null : new Date(v as number))) : values,
    };
  });
}

/** Costs, amounts and rates are DOUBLE in AWS's Parquet; a column with no value at all is written as text. */
function isNumeric(values: unknown[]): boolean {
  return values.some((v) => typeof v === 'number') && values.every((v) => v === null || typeof v === 'number');
}

/** Legacy CUR in Parquet: the CSV columns in Athena spelling, one `resource_tags_user_*` column per tag. */
function legacyCurParquet(rows: SampleLineItem[]): ParquetColumn[] {
  const cur2 = rows.map((row, i) => cur2Values(row, i + 1));
  const tagKeys = [...new Set(rows.flatMap((row) => Object.keys(derive(row).tags).map(snakeTagKey)))].sort();
  const shared = CUR2_COLUMNS.filter((name) => !CUR2_MAPS.has(name));
  const columns: ParquetColumn[] = shared.map((name) => {
    const values = cur2.map((record) => record[name] ?? null);
    const type = CUR2_TIMESTAMPS.has(name) ? 'TIMESTAMP' : isNumeric(values) ? 'DOUBLE' : 'STRING';
    return {
      name,
      type,
      values: type === 'TIMESTAMP' ? values.map((v) => (v === null ? null : new Date(v as number))) : values,
    };
  });
  const productNames = cur2.map((record) => (record.product as Record<string, string>).product_name);
  columns.push({ name: 'product_product_name', type: 'STRING', values: productNames });
  columns.push({ name: 'product_region', type: 'STRING', values: rows.map((row) => row.region) });
  for (const key of tagKeys) {
    columns.push({
      name: `resource_tags_user_${key}`,
      type: 'STRING',
      values: cur2.map((record) => (record.resource_tags as Record<string, string>)[`user_${key}`] ?? null),
    });
  }
  return columns;
}
