import type { ChargeCategory, CostLineItem, PricingCategory } from '../../model';
import { gcpServiceCategory } from './service-category';

/**
 * One Cloud Billing export row (the columns query.ts selects, as the BigQuery client parses them: TIMESTAMPs as
 * `{ value: ISO string }`, FLOAT64 as numbers, REPEATED RECORDs as arrays of objects) to line items: the row's own
 * charge, and one line item per credit on it.
 *
 * - The row: billedCost = effectiveCost = `cost`, the charge before credits, as Google's own FOCUS view of the export
 *   maps BilledCost. chargeCategory from `cost_type`: regular → Usage, tax → Tax, adjustment and rounding_error →
 *   Adjustment; the charge type is `cost_type` itself (`Usage` for regular rows).
 * - Each credit (sustained-use and committed-use discounts, free tier, promotions; amounts are negative): a `Credit`
 *   of its `type` (`SUSTAINED_USAGE_DISCOUNT`, `PROMOTION`, ...) on the same resource and hour, effective cost the
 *   amount, billed cost 0 (billed cost is before credits). Apart from the row, so reports show credits as the console
 *   does, by type, rather than inside a service's usage or "Unattributed". Effective cost in all is still
 *   `cost` + the credits: the export has no amortization to apply.
 * - pricingCategory (usage only): Committed for commitment fees and usage a committed-use discount covered, Dynamic for
 *   Spot/preemptible SKUs, else Standard.
 * - tags: project labels, overridden by the resource's own labels of the same key.
 */
export function gcpLineItems(row: unknown, rowNumber: number): CostLineItem[] {
  const r = new RowReader(row, rowNumber);
  const cost = r.number('cost');
  const credits = r.records('credits').map((credit, i) => ({
    amount: r.numberIn(credit, `credits[${i}].amount`, 'amount'),
    type: typeof credit.type === 'string' && credit.type !== '' ? credit.type : 'Credit',
  }));
  const committedUse = credits.some((credit) => credit.type.startsWith('COMMITTED_USAGE_DISCOUNT'));
  const invoiceMonth = r.string('invoice_month');
  if (!/^\d{6}$/.test(invoiceMonth)) throw r.error('invoice_month', 'is not YYYYMM');
  const costType = r.string('cost_type');
  const chargeCategory = CHARGE_CATEGORY[costType] ?? 'Adjustment';
  const service = r.optionalString('service') ?? 'Unassigned';
  const sku = r.optionalString('sku') ?? '';
  const item: CostLineItem = {
    chargePeriodStartMs: r.timestamp('usage_start_time'),
    chargePeriodEndMs: r.timestamp('usage_end_time'),
    billingPeriod: `${invoiceMonth.slice(0, 4)}-${invoiceMonth.slice(4)}`,
    billedCost: cost,
    effectiveCost: cost,
    currency: r.string('currency'),
    resourceId: r.optionalString('resource_global_name'),
    resourceName: r.optionalString('resource_name'),
    serviceName: service,
    serviceCategory: gcpServiceCategory(service),
    region: r.optionalString('region'),
    accountId: r.optionalString('project_id'),
    chargeCategory,
    chargeType: chargeCategory === 'Usage' ? 'Usage' : costType,
    pricingCategory: chargeCategory === 'Usage' ? pricingCategory(sku, committedUse) : null,
    tags: { ...r.labels('project_labels'), ...r.labels('labels') },
  };
  const creditItems = credits.map(
    (credit): CostLineItem => ({
      ...item,
      billedCost: 0,
      effectiveCost: credit.amount,
      chargeCategory: 'Credit',
      chargeType: credit.type,
      pricingCategory: null,
    }),
  );
  return [item, ...creditItems];
}

/** Cloud Billing's `cost_type` values; anything newer is read as an adjustment until mapped. */
const CHARGE_CATEGORY: Record<string, ChargeCategory> = {
  regular: 'Usage',
  tax: 'Tax',
  adjustment: 'Adjustment',
  rounding_error: 'Adjustment',
};

function pricingCategory(sku: string, committedUse: boolean): PricingCategory {
  if (committedUse || /^Commitment\b/i.test(sku)) return 'Committed';
  if (/\b(?:Spot|Preemptible)\b/i.test(sku)) return 'Dynamic';
  return 'Standard';
}

type Fields = Record<string, unknown>;

/** Typed access to one row; a value of the wrong shape fails the sync naming the row and column. */
class RowReader {
  private readonly fields: Fields;

  constructor(
    row: unknown,
    private readonly rowNumber: number,
  ) {
    if (typeof row !== 'object' || row === null) throw new Error(`BigQuery row ${rowNumber} is not a record`);
    this.fields = row as Fields;
  }

  error(column: string, problem: string): Error {
    return new Error(`BigQuery row ${this.rowNumber}: ${column} ${problem}`);
  }

  number(column: string): number {
    return this.numberIn(this.fields, column, column);
  }

  numberIn(record: Fields, column: string, key: string): number {
    const v = record[key];
    if (typeof v !== 'number' || !Number.isFinite(v)) throw this.error(column, `is not a number (${String(v)})`);
    return v;
  }

  string(column: string): string {
    const v = this.fields[column];
    if (typeof v !== 'string' || v === '') throw this.error(column, 'is missing');
    return v;
  }

  optionalString(column: string): string | null {
    const v = this.fields[column];
    if (v === null || v === undefined || v === '') return null;
    if (typeof v !== 'string') throw this.error(column, 'is not a string');
    return v;
  }

  timestamp(column: string): number {
    const v = this.fields[column];
    const ms = typeof v === 'object' && v !== null && 'value' in v ? Date.parse(String(v.value)) : NaN;
    if (!Number.isFinite(ms)) throw this.error(column, 'is not a timestamp');
    return ms;
  }

  /** A REPEATED RECORD column: absent or NULL is empty. */
  records(column: string): Fields[] {
    const v = this.fields[column];
    if (v === null || v === undefined) return [];
    if (!Array.isArray(v) || !v.every((e) => typeof e === 'object' && e !== null))
      throw this.error(column, 'is not a list of records');
    return v as Fields[];
  }

  /** `ARRAY<STRUCT<key STRING, value STRING>>` as a map. */
  labels(column: string): Record<string, string> {
    const out: Record<string, string> = {};
    for (const label of this.records(column)) {
      if (typeof label.key === 'string') out[label.key] = typeof label.value === 'string' ? label.value : '';
    }
    return out;
  }
}
