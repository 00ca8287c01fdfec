import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip, createGzip, gzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import type { CostLineItem } from '../../server/src/cost/model';
import { CsvError, parseCsv } from '../../server/src/cost/readers/csv';
import {
  detectFormat,
  readCsvReport,
  readParquetReport,
  ReportFormatError,
  ReportRowError,
  type ExportFormat,
  type RandomAccessFile,
} from '../../server/src/cost/readers/index';
import { parseTimestamp } from '../../server/src/cost/readers/values';
import { csvReport, parquetReport, writeCsvReport, type SampleLineItem } from '../support/cost/report-files';

const FOCUS_SAMPLE = resolve(__dirname, '../../../shared/fixtures/cost/focus-1.0-sample.csv');

async function csvRecords(
  chunks: (string | Uint8Array)[],
  select?: (header: readonly string[]) => readonly number[],
): Promise<string[][]> {
  const out: string[][] = [];
  for await (const records of parseCsv(Readable.from(chunks), select ?? ((header) => header.map((_, i) => i))))
    out.push(...records);
  return out;
}

async function items(batches: AsyncIterable<CostLineItem[]>): Promise<CostLineItem[]> {
  const out: CostLineItem[] = [];
  for await (const batch of batches) out.push(...batch);
  return out;
}

/** A Parquet file in memory that records the byte ranges read from it, as ranged GETs would. */
function memoryFile(buffer: ArrayBuffer): RandomAccessFile & { reads: [number, number][] } {
  const reads: [number, number][] = [];
  return {
    byteLength: buffer.byteLength,
    reads,
    slice(start: number, end = buffer.byteLength) {
      reads.push([start, end]);
      return buffer.slice(start, end);
    },
  };
}

const readCsvText = (text: string, format?: ExportFormat) => items(readCsvReport(Readable.from([text]), { format }));

describe('CSV parser', () => {
  // Every RFC 4180 case in one small file: quoted commas, doubled quotes, a line break inside quotes, CRLF and LF
  // records, an empty quoted field, empty unquoted fields, non-ASCII text, and no line break after the last record.
  const TRICKY = '\uFEFFid,text,n\r\n1,"a, b",2\r\n2,"say ""hi""",\n3,"line\nbreak",""\n4,,€ 5\r\n\n5,é😀,"x"';
  const EXPECTED = [
    ['1', 'a, b', '2'],
    ['2', 'say "hi"', ''],
    ['3', 'line\nbreak', ''],
    ['4', '', '€ 5'],
    ['5', 'é😀', 'x'],
  ];

  it('reads quotes, doubled quotes, line breaks in quotes, CRLF and LF, a BOM, and a last line without a break', async () => {
    expect(await csvRecords([TRICKY])).toEqual(EXPECTED);
  });

  it('gives the same records whatever offset the text is split at', async () => {
    for (let i = 0; i <= TRICKY.length; i++) {
      expect(await csvRecords([TRICKY.slice(0, i), TRICKY.slice(i)]), `split at ${i}`).toEqual(EXPECTED);
    }
    expect(await csvRecords([...TRICKY])).toEqual(EXPECTED);
  });

  it('gives the same records whatever byte the UTF-8 input is split at, inside a character too', async () => {
    const bytes = Buffer.from(TRICKY, 'utf8');
    for (let i = 0; i <= bytes.length; i++) {
      expect(await csvRecords([bytes.subarray(0, i), bytes.subarray(i)]), `split at byte ${i}`).toEqual(EXPECTED);
    }
    expect(await csvRecords([...bytes].map((b) => Uint8Array.of(b)))).toEqual(EXPECTED);
  });

  it('returns only the selected columns, in the order asked', async () => {
    const records = await csvRecords([TRICKY], (header) => [header.indexOf('n'), header.indexOf('id')]);
    expect(records).toEqual(EXPECTED.map(([id, , n]) => [n, id]));
  });

  it.each([
    ['a,b\n1,"open\n', 'data row 1: a quoted field is not closed before the end of the report'],
    ['a,b\n1,"x"y\n', 'data row 1, field 2: unexpected text after a closing quote'],
    ['a,b\n1,2\n3\n', 'data row 2 has 1 fields, the header has 2'],
    ['a,b\n1,2,3\n', 'data row 1 has 3 fields, the header has 2'],
    ['', 'the report is empty: no header row'],
  ])('refuses broken CSV %j', async (text, message) => {
    await expect(csvRecords([text])).rejects.toThrow(new CsvError(message));
  });

  it('refuses gzip bytes instead of parsing them as text', async () => {
    await expect(csvRecords([gzipSync('a,b\n1,2\n')])).rejects.toThrow('gzip-compressed');
  });
});

describe('timestamps', () => {
  it.each([
    ['2024-03-05T03:00:00Z', Date.UTC(2024, 2, 5, 3)],
    ['2024-03-05T03:00:00.000Z', Date.UTC(2024, 2, 5, 3)],
    ['2024-03-05T03:00:00.5Z', Date.UTC(2024, 2, 5, 3, 0, 0, 500)],
    ['2024-09-18 22:00:00', Date.UTC(2024, 8, 18, 22)],
    ['2024-03-05T03:00Z', Date.UTC(2024, 2, 5, 3)],
    ['2024-03-05T05:30:00+02:30', Date.UTC(2024, 2, 5, 3)],
    ['2024-03-05T00:00:00-0100', Date.UTC(2024, 2, 5, 1)],
    ['2024-02-29', Date.UTC(2024, 1, 29)],
  ])('reads %s as UTC unless it says otherwise', (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
  });

  it.each([
    '',
    '2023-02-29',
    '2024-13-01',
    '2024-03-05T24:00:00Z',
    '2024-03-05T03:00:00Zulu',
    '05/03/2024',
    'yesterday',
  ])('refuses %j', (text) => {
    expect(parseTimestamp(text)).toBeNaN();
  });
});

describe('export formats round-trip', () => {
  const ACCOUNT = '123456789012';
  const samples: SampleLineItem[] = [
    {
      day: '2024-03-05',
      hour: 3,
      resourceId: 'i-0abc',
      resourceName: 'web-1',
      productCode: 'AmazonEC2',
      productFamily: 'Compute Instance',
      region: 'us-east-1',
      accountId: ACCOUNT,
      type: 'Usage',
      unblendedCost: 0.0416,
      tags: { team: 'web', env: 'prod' },
    },
    {
      day: '2024-03-05',
      resourceId: 'i-0def',
      productCode: 'AmazonEC2',
      productFamily: 'Compute Instance',
      region: 'us-east-1',
      accountId: ACCOUNT,
      type: 'SavingsPlanCoveredUsage',
      unblendedCost: 1.5,
      effectiveCost: 1.05,
    },
    {
      day: '2024-03-06',
      hour: 23,
      resourceId: 'i-0spot',
      productCode: 'AmazonEC2',
      productFamily: 'Compute Instance',
      region: 'eu-west-1',
      accountId: '210987654321',
      type: 'Usage',
      pricingTerm: 'Spot',
      unblendedCost: 0.012,
    },
    {
      day: '2024-03-01',
      resourceId: null,
      productCode: 'AmazonS3',
      region: null,
      accountId: ACCOUNT,
      type: 'Tax',
      unblendedCost: 3.2,
    },
  ];

  const ec2 = {
    serviceName: 'Amazon Elastic Compute Cloud',
    serviceCategory: 'Compute',
    currency: 'USD',
    billingPeriod: '2024-03',
  };
  /**
   * AWS writes tag keys lower-cased in Parquet and in CUR 2.0's map (`Name` → `name`); CSV CUR and FOCUS keep them. The
   * charge type is AWS's line item type in CURs, the charge category in FOCUS.
   */
  const expected = (nameKey: 'Name' | 'name', format: ExportFormat): CostLineItem[] => [
    {
      ...ec2,
      chargePeriodStartMs: Date.UTC(2024, 2, 5, 3),
      chargePeriodEndMs: Date.UTC(2024, 2, 5, 4),
      billedCost: 0.0416,
      effectiveCost: 0.0416,
      resourceId: 'i-0abc',
      resourceName: 'web-1',
      region: 'us-east-1',
      accountId: ACCOUNT,
      chargeCategory: 'Usage',
      chargeType: 'Usage',
      pricingCategory: 'Standard',
      tags: { [nameKey]: 'web-1', team: 'web', env: 'prod' },
    },
    {
      ...ec2,
      chargePeriodStartMs: Date.UTC(2024, 2, 5),
      chargePeriodEndMs: Date.UTC(2024, 2, 6),
      billedCost: 1.5,
      effectiveCost: 1.05,
      resourceId: 'i-0def',
      resourceName: null,
      region: 'us-east-1',
      accountId: ACCOUNT,
      chargeCategory: 'Usage',
      chargeType: format === 'focus' ? 'Usage' : 'SavingsPlanCoveredUsage',
      pricingCategory: 'Committed',
      tags: {},
    },
    {
      ...ec2,
      chargePeriodStartMs: Date.UTC(2024, 2, 6, 23),
      chargePeriodEndMs: Date.UTC(2024, 2, 7),
      billedCost: 0.012,
      effectiveCost: 0.012,
      resourceId: 'i-0spot',
      resourceName: null,
      region: 'eu-west-1',
      accountId: '210987654321',
      chargeCategory: 'Usage',
      chargeType: 'Usage',
      pricingCategory: 'Dynamic',
      tags: {},
    },
    {
      chargePeriodStartMs: Date.UTC(2024, 2, 1),
      chargePeriodEndMs: Date.UTC(2024, 2, 2),
      billingPeriod: '2024-03',
      billedCost: 3.2,
      effectiveCost: 3.2,
      currency: 'USD',
      resourceId: null,
      resourceName: null,
      serviceName: 'Amazon Simple Storage Service',
      serviceCategory: 'Storage',
      region: null,
      accountId: ACCOUNT,
      chargeCategory: 'Tax',
      chargeType: 'Tax',
      pricingCategory: null,
      tags: {},
    },
  ];

  it.each([
    ['cur', 'Name'],
    ['cur2', 'name'],
    ['focus', 'Name'],
  ] as const)('%s CSV', async (format, nameKey) => {
    const text = csvReport(format, samples);
    expect(await readCsvText(text)).toEqual(expected(nameKey, format));
    expect(await readCsvText(text, format)).toEqual(expected(nameKey, format));
  });

  it.each([
    ['cur', 'name'],
    ['cur2', 'name'],
    ['focus', 'Name'],
  ] as const)('%s Parquet', async (format, nameKey) => {
    const file = memoryFile(parquetReport(format, samples));
    expect(await items(readParquetReport(file))).toEqual(expected(nameKey, format));
    expect(await items(readParquetReport(file, { format }))).toEqual(expected(nameKey, format));
  });

  it('detects each format from its header', async () => {
    const header = (format: ExportFormat) => csvReport(format, samples).split('\n')[0]!.split(',');
    expect(detectFormat(header('cur'))).toBe('cur');
    expect(detectFormat(header('cur2'))).toBe('cur2');
    expect(detectFormat(header('focus'))).toBe('focus');
    expect(detectFormat(['date', 'amount'])).toBeNull();
  });

  it('reads a report streamed through gzip and gunzip, in batches of the size asked', async () => {
    const rows = Array.from({ length: 5 }, () => samples[0]!);
    const gzip = createGzip();
    const written = writeCsvReport('cur', rows, gzip);
    const batches: number[][] = [];
    for await (const batch of readCsvReport(gzip.pipe(createGunzip()), { batchSize: 2 }))
      batches.push(batch.map((item) => item.billedCost));
    await written;
    expect(batches).toEqual([[0.0416, 0.0416], [0.0416, 0.0416], [0.0416]]);
  });

  it('reads Parquet row group by row group, fetching only the columns it needs', async () => {
    const rows = Array.from({ length: 6000 }, (_, i) => ({ ...samples[0]!, hour: i % 24, unblendedCost: i / 100 }));
    const file = memoryFile(parquetReport('cur2', rows, { rowGroupSize: 2000 }));
    const read = await items(readParquetReport(file, { batchSize: 500 }));
    expect(read.map((item) => item.billedCost)).toEqual(rows.map((row) => row.unblendedCost));
    // After the footer (the first read: hyparquet fetches up to 512 KiB from the end), each row group's needed column
    // chunks are fetched: about a third of the file, as most of CUR 2.0's 104 columns are not needed.
    const [, ...chunkReads] = file.reads;
    expect(chunkReads.length).toBeGreaterThanOrEqual(3);
    expect(chunkReads.reduce((total, [start, end]) => total + end - start, 0)).toBeLessThan(file.byteLength / 2);
  });
});

describe('AWS amortization (effective cost)', () => {
  // One row per line item type, with the columns AWS fills for it; effective costs are computed by hand from AWS's
  // rules (see formats/aws.ts).
  const header =
    'bill/BillingPeriodStartDate,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/LineItemType,lineItem/ProductCode,' +
    'lineItem/UnblendedCost,pricing/term,reservation/EffectiveCost,reservation/ReservationARN,' +
    'reservation/UnusedAmortizedUpfrontFeeForBillingPeriod,reservation/UnusedRecurringFee,' +
    'savingsPlan/SavingsPlanEffectiveCost,savingsPlan/TotalCommitmentToDate,savingsPlan/UsedCommitment';
  const P = '2024-03-01T00:00:00Z';
  const H = '2024-03-05T10:00:00Z,2024-03-05T11:00:00Z';
  const M = '2024-03-01T00:00:00Z,2024-04-01T00:00:00Z';
  const ARN = 'arn:aws:ec2:us-east-1:111122223333:reserved-instances/abc';
  const cases: [string, string, number, number, string, string | null, string][] = [
    // [line item type, row after the type, billed, effective, charge category, pricing category, charge type]
    ['Usage', 'AmazonEC2,0.0416,OnDemand,,,,,,,', 0.0416, 0.0416, 'Usage', 'Standard', 'Usage'],
    ['DiscountedUsage', `AmazonEC2,0,Reserved,0.0262,${ARN},,,,,`, 0, 0.0262, 'Usage', 'Committed', 'DiscountedUsage'],
    // RI monthly fee: only the unused part of the reservation stays a cost of its own: 3.5 + 1.25.
    ['RIFee', `AmazonEC2,120,,,${ARN},3.5,1.25,,,`, 120, 4.75, 'Purchase', 'Committed', 'RIFee'],
    // RI upfront payment: spread over the reservation's DiscountedUsage instead.
    ['Fee', `AmazonEC2,1000,,,${ARN},,,,,`, 1000, 0, 'Purchase', 'Committed', 'Fee'],
    // A support plan's fee is told apart from other fees, as Cost Explorer's "Support fee" is.
    ['Fee', 'AWSSupportBusiness,29,,,,,,,,', 29, 29, 'Purchase', null, 'Support'],
    [
      'SavingsPlanCoveredUsage',
      'AmazonEC2,0.1,OnDemand,,,,,0.07,,',
      0.1,
      0.07,
      'Usage',
      'Committed',
      'SavingsPlanCoveredUsage',
    ],
    // It cancels the covered usage's on-demand charge: a reduction of the bill, not usage.
    ['SavingsPlanNegation', 'AmazonEC2,-0.1,,,,,,,,', -0.1, 0, 'Credit', 'Committed', 'SavingsPlanNegation'],
    // Unused commitment: 2.00 committed for the hour, 1.40 used.
    [
      'SavingsPlanRecurringFee',
      'ComputeSavingsPlans,2,,,,,,,2,1.4',
      2,
      0.6,
      'Purchase',
      'Committed',
      'SavingsPlanRecurringFee',
    ],
    [
      'SavingsPlanUpfrontFee',
      'ComputeSavingsPlans,8760,,,,,,,,',
      8760,
      0,
      'Purchase',
      'Committed',
      'SavingsPlanUpfrontFee',
    ],
    ['Tax', 'AmazonEC2,5.5,,,,,,,,', 5.5, 5.5, 'Tax', null, 'Tax'],
    ['Credit', 'AmazonEC2,-20,,,,,,,,', -20, -20, 'Credit', null, 'Credit'],
    ['Refund', 'AmazonEC2,-3,,,,,,,,', -3, -3, 'Adjustment', null, 'Refund'],
    ['EdpDiscount', 'AmazonEC2,-1.2,,,,,,,,', -1.2, -1.2, 'Credit', null, 'EdpDiscount'],
    ['BundledDiscount', 'AmazonEC2,-0.4,,,,,,,,', -0.4, -0.4, 'Credit', null, 'BundledDiscount'],
    ['SomeFutureType', 'AmazonEC2,7,,,,,,,,', 7, 7, 'Adjustment', null, 'SomeFutureType'],
  ];

  it.each(cases)('%s: %s', async (type, rest, billed, effective, chargeCategory, pricingCategory, chargeType) => {
    const period = ['Fee', 'RIFee', 'Tax', 'Credit', 'Refund', 'SavingsPlanUpfrontFee', 'SomeFutureType'].includes(type)
      ? M
      : H;
    const [item] = await readCsvText(`${header}\n${P},${period},${type},${rest}\n`);
    expect(item!.billedCost).toBe(billed);
    expect(item!.effectiveCost).toBeCloseTo(effective, 12);
    expect(item!.chargeCategory).toBe(chargeCategory);
    expect(item!.pricingCategory).toBe(pricingCategory);
    expect(item!.chargeType).toBe(chargeType);
  });

  it('amortizes CUR 2.0 rows by the same rules', async () => {
    const cur2Header =
      'bill_billing_period_start_date,line_item_usage_start_date,line_item_usage_end_date,line_item_line_item_type,' +
      'line_item_product_code,line_item_unblended_cost,reservation_effective_cost,savings_plan_total_commitment_to_date,' +
      'savings_plan_used_commitment,resource_tags,product';
    const text =
      `${cur2Header}\n` +
      `${P},${H},DiscountedUsage,AmazonRDS,0,0.31,,,"{""user_team"":""db""}","{""product_name"":""Amazon Relational Database Service""}"\n` +
      `${P},${H},SavingsPlanRecurringFee,ComputeSavingsPlans,5,,5,4.25,,\n`;
    const read = await readCsvText(text);
    expect(read.map((i) => [i.effectiveCost, i.serviceName, i.serviceCategory, i.tags])).toEqual([
      [0.31, 'Amazon Relational Database Service', 'Databases', { team: 'db' }],
      [0.75, 'ComputeSavingsPlans', null, {}],
    ]);
  });

  it('fails a commitment line item whose amortization column the report lacks, naming row and column', async () => {
    const text =
      'bill/BillingPeriodStartDate,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/LineItemType,' +
      `lineItem/ProductCode,lineItem/UnblendedCost\n${P},${H},Usage,AmazonEC2,1\n${P},${H},DiscountedUsage,AmazonEC2,0\n`;
    const error = await readCsvText(text).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ReportRowError);
    expect(error).toMatchObject({ row: 2, column: 'reservation/EffectiveCost' });
  });
});

describe('AWS service category', () => {
  it.each([
    ['AmazonEC2', 'Compute Instance', 'Compute'],
    // EC2's product code also bills volumes, snapshots and network things; only instance hours are Compute.
    ['AmazonEC2', 'Storage', 'Storage'],
    ['AmazonEC2', 'Storage Snapshot', 'Storage'],
    ['AmazonEC2', 'NAT Gateway', 'Networking'],
    ['AmazonS3', 'Data Transfer', 'Networking'],
    ['AmazonS3', 'Storage', 'Storage'],
    ['AWSLambda', 'Serverless', 'Compute'],
    ['AmazonDynamoDB', 'Database Storage', 'Databases'],
    ['AWSSupportBusiness', 'AWS Support', null],
  ])('%s / %s → %s', async (productCode, productFamily, category) => {
    const text =
      'bill/BillingPeriodStartDate,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/LineItemType,' +
      'lineItem/ProductCode,lineItem/UnblendedCost,product/productFamily\n' +
      `2024-03-01T00:00:00Z,2024-03-05T10:00:00Z,2024-03-05T11:00:00Z,Usage,${productCode},1,${productFamily}\n`;
    const [item] = await readCsvText(text);
    expect(item!.serviceCategory).toBe(category);
  });
});

describe('report errors', () => {
  const header =
    'bill/BillingPeriodStartDate,lineItem/UsageStartDate,lineItem/UsageEndDate,lineItem/LineItemType,' +
    'lineItem/ProductCode,lineItem/UnblendedCost';
  const P = '2024-03-01T00:00:00Z';
  const H = '2024-03-05T10:00:00Z,2024-03-05T11:00:00Z';

  it('reads empty cost cells as 0', async () => {
    const [item] = await readCsvText(`${header}\n${P},${H},Usage,AmazonEC2,\n`);
    expect(item).toMatchObject({ billedCost: 0, effectiveCost: 0 });
  });

  it.each([
    [
      `${P},${H},Usage,AmazonEC2,"1,5"`,
      'lineItem/UnblendedCost',
      'data row 2, column lineItem/UnblendedCost: "1,5" is not a number',
    ],
    [
      `${P},2024-03-05 10h,2024-03-05T11:00:00Z,Usage,AmazonEC2,1`,
      'lineItem/UsageStartDate',
      'data row 2, column lineItem/UsageStartDate: "2024-03-05 10h" is not a date-time',
    ],
    [
      `,${H},Usage,AmazonEC2,1`,
      'bill/BillingPeriodStartDate',
      'data row 2, column bill/BillingPeriodStartDate: is empty',
    ],
  ])('fails a malformed row, naming row and column: %s', async (row, column, message) => {
    const error = await readCsvText(`${header}\n${P},${H},Usage,AmazonEC2,1\n${row}\n`).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ReportRowError);
    expect(error).toMatchObject({ row: 2, column, message });
  });

  it('names the columns a header lacks for the closest format', async () => {
    const error = await readCsvText(
      'BilledCost,ChargePeriodStart,ChargePeriodEnd,BillingCurrency,ServiceName\n1,2,3,4,5\n',
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReportFormatError);
    expect((error as ReportFormatError).missingColumns).toEqual([
      'EffectiveCost',
      'BillingPeriodStart',
      'ChargeCategory',
    ]);
    expect((error as Error).message).toContain(
      'closest is FOCUS 1.0, which lacks EffectiveCost, BillingPeriodStart, ChargeCategory',
    );
  });

  it('names the columns missing for the format asked for', async () => {
    await expect(readCsvText(`${header}\n`, 'cur2')).rejects.toThrow(
      /not a complete AWS CUR 2.0 \(Data Exports\): missing columns line_item_usage_start_date/,
    );
  });
});

describe('FOCUS 1.0 sample data (FinOps Foundation)', () => {
  // Totals computed independently: csv-parse and plain sums over the raw columns.
  const raw: Record<string, string>[] = parse(readFileSync(FOCUS_SAMPLE), { columns: true, bom: true });
  const sum = (rows: Record<string, string>[], column: string) =>
    rows.reduce((total, row) => total + Number(row[column]), 0);
  const groups = (column: string) => [...new Set(raw.map((row) => row[column]!))];

  it('reads every row, with billed and effective totals overall, per charge category and per service', async () => {
    const read = await items(readCsvReport(Readable.from(readFileSync(FOCUS_SAMPLE)), { batchSize: 100 }));
    expect(read).toHaveLength(raw.length);
    const total = (list: CostLineItem[], key: 'billedCost' | 'effectiveCost') =>
      list.reduce((t, item) => t + item[key], 0);
    expect(total(read, 'billedCost')).toBeCloseTo(sum(raw, 'BilledCost'), 9);
    expect(total(read, 'effectiveCost')).toBeCloseTo(sum(raw, 'EffectiveCost'), 9);
    expect(groups('ChargeCategory').sort()).toEqual(['Adjustment', 'Credit', 'Usage']);
    for (const category of groups('ChargeCategory')) {
      const mine = read.filter((item) => item.chargeCategory === category);
      const theirs = raw.filter((row) => row.ChargeCategory === category);
      expect(mine.length, category).toBe(theirs.length);
      expect(total(mine, 'billedCost'), category).toBeCloseTo(sum(theirs, 'BilledCost'), 9);
      expect(total(mine, 'effectiveCost'), category).toBeCloseTo(sum(theirs, 'EffectiveCost'), 9);
    }
    for (const service of groups('ServiceName')) {
      const mine = read.filter((item) => item.serviceName === service);
      const theirs = raw.filter((row) => row.ServiceName === service);
      expect(total(mine, 'billedCost'), service).toBeCloseTo(sum(theirs, 'BilledCost'), 9);
      expect(total(mine, 'effectiveCost'), service).toBeCloseTo(sum(theirs, 'EffectiveCost'), 9);
    }
    // NULL cells are null, not the text "NULL"; tags are the JSON objects.
    const nullNames = raw.filter((row) => row.ResourceName === 'NULL' || row.ResourceName === '');
    expect(read.filter((item) => item.resourceName === null)).toHaveLength(nullNames.length);
    expect(read.filter((item) => item.tags.application !== undefined)).toHaveLength(
      raw.filter((row) => row.Tags!.includes('"application"')).length,
    );
  });

  it('maps a row as it reads in the file', async () => {
    const read = await items(readCsvReport(Readable.from(readFileSync(FOCUS_SAMPLE))));
    // Row 2 of the file: an Elastic Load Balancing usage charge, 2024-09-30 22:00–23:00.
    expect(read[1]).toEqual({
      chargePeriodStartMs: Date.UTC(2024, 8, 30, 22),
      chargePeriodEndMs: Date.UTC(2024, 8, 30, 23),
      billingPeriod: '2024-09',
      billedCost: 0.0000160599,
      effectiveCost: 0,
      currency: 'USD',
      resourceId:
        'arn:ats:emastilmoalfamanling:us-test-2:586597448978:moalfamanler/app/tungsten-lonbmuenle-amf/l365455f461l4e4a',
      resourceName: null,
      serviceName: 'Elastic Load Balancing',
      serviceCategory: 'Networking',
      region: 'us-west-2',
      accountId: '43883916739',
      chargeCategory: 'Usage',
      chargeType: 'Usage',
      pricingCategory: 'Standard',
      tags: { application: 'BrightLensMatrix', environment: 'dev', business_unit: 'ViennaAI' },
    });
  });
});
