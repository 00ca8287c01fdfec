import type { ChargeCategory, PricingCategory } from '../../model';
import { defineFormat } from './types';

/**
 * FOCUS 1.0 (FinOps Open Cost and Usage Specification), as AWS Data Exports, Azure cost exports and others write it.
 * The line-item model follows FOCUS, so columns map one to one. Text exports write `NULL` for null cells; `Tags` is a
 * JSON object (a MAP in Parquet). The 1.0-preview and 0.5 names of renamed columns are accepted too (`AmortizedCost`,
 * `ChargeType`, `Region`, `ResourceID`), with their older PricingCategory values (`On-Demand`, `Commitment-Based`).
 * Billing period: the UTC month of `BillingPeriodStart`.
 */
export const focusFormat = defineFormat('focus', true, (pick) => {
  const billed = pick.required('BilledCost');
  const effective = pick.required('EffectiveCost', 'AmortizedCost');
  const start = pick.required('ChargePeriodStart');
  const end = pick.required('ChargePeriodEnd');
  const period = pick.required('BillingPeriodStart');
  const currency = pick.required('BillingCurrency');
  const chargeColumn = pick.required('ChargeCategory', 'ChargeType');
  const service = pick.required('ServiceName');
  const resourceId = pick.optional('ResourceId', 'ResourceID');
  const resourceName = pick.optional('ResourceName');
  const serviceCategory = pick.optional('ServiceCategory');
  const region = pick.optional('RegionId', 'Region');
  const account = pick.optional('SubAccountId');
  const pricing = pick.optional('PricingCategory');
  const tags = pick.optional('Tags');
  return (cells) => {
    const charge = chargeOf(cells.text(chargeColumn));
    return {
      chargePeriodStartMs: cells.time(start),
      chargePeriodEndMs: cells.time(end),
      billingPeriod: cells.month(period),
      billedCost: cells.number(billed),
      effectiveCost: cells.number(effective),
      currency: cells.text(currency) ?? 'USD',
      resourceId: cells.text(resourceId),
      resourceName: cells.text(resourceName),
      serviceName: cells.text(service) ?? '',
      serviceCategory: cells.text(serviceCategory),
      region: cells.text(region),
      accountId: cells.text(account),
      chargeCategory: charge.category,
      chargeType: charge.type,
      pricingCategory: pricingCategory(cells.text(pricing)),
      tags: { ...cells.map(tags) },
    };
  };
});

const CHARGE_CATEGORIES: Record<string, ChargeCategory> = {
  usage: 'Usage',
  purchase: 'Purchase',
  tax: 'Tax',
  credit: 'Credit',
  adjustment: 'Adjustment',
};

/**
 * FOCUS allows exactly five values, which are also the charge type reports show; anything else still counts, at its
 * cost, as an adjustment, shown under the name the export gave it.
 */
function chargeOf(value: string | null): { category: ChargeCategory; type: string } {
  const category = value !== null ? CHARGE_CATEGORIES[value.toLowerCase()] : undefined;
  return category !== undefined ? { category, type: category } : { category: 'Adjustment', type: value ?? 'Unknown' };
}

const PRICING_CATEGORIES: Record<string, PricingCategory> = {
  standard: 'Standard',
  'on-demand': 'Standard',
  committed: 'Committed',
  'commitment-based': 'Committed',
  dynamic: 'Dynamic',
  other: 'Other',
};

function pricingCategory(value: string | null): PricingCategory | null {
  if (value === null) return null;
  return PRICING_CATEGORIES[value.toLowerCase()] ?? 'Other';
}
