import type { BillingPeriod, ChargeCategory, CostLineItem, PricingCategory } from '../../model';
import type { CostRow } from './result';
import { azureServiceCategory } from './service-category';

const DAY_MS = 86_400_000;

/**
 * One (day, resource, service, location, charge type, pricing model, subscription) group to the line-item model:
 * billedCost from the ActualCost query, effectiveCost from the AmortizedCost one (so a reservation purchase is billed
 * but has no effective cost, and the usage it covers has effective cost but is not billed).
 *
 * - chargeCategory from `ChargeType` as Microsoft's FOCUS export maps it (Usage → Usage; Purchase and Refund → Purchase;
 *   Tax, Credit; RoundingAdjustment and anything else → Adjustment), except that UnusedReservation and
 *   UnusedSavingsPlan are Purchase rather than Usage: like AWS's unused RIFee, they are the commitment no resource
 *   used, so reports show them with the other non-usage charges instead of in "Unattributed". The charge type is
 *   `ChargeType` as Cost Management names it.
 * - pricingCategory from `PricingModel`: OnDemand → Standard, Reservation and SavingsPlan → Committed, Spot → Dynamic.
 * - Empty and `Unassigned` dimension values are null; the resource name is the last segment of the resource id.
 */
export function azureLineItem(
  row: CostRow,
  billedCost: number,
  effectiveCost: number,
  period: BillingPeriod,
): CostLineItem {
  const d = row.dimensions;
  const start = Date.parse(`${row.day}T00:00:00Z`);
  const resourceId = present(d.ResourceId);
  const serviceName = present(d.ServiceName) ?? 'Unassigned';
  const chargeType = present(d.ChargeType) ?? 'Unknown';
  return {
    chargePeriodStartMs: start,
    chargePeriodEndMs: start + DAY_MS,
    billingPeriod: period,
    billedCost,
    effectiveCost,
    currency: row.currency,
    resourceId,
    resourceName: resourceId ? resourceId.slice(resourceId.lastIndexOf('/') + 1) || null : null,
    serviceName,
    serviceCategory: azureServiceCategory(serviceName),
    region: present(d.ResourceLocation),
    accountId: present(d.SubscriptionId),
    chargeCategory: CHARGE_CATEGORY[chargeType.toLowerCase()] ?? 'Adjustment',
    chargeType,
    pricingCategory: pricingCategory(d.PricingModel),
    tags: row.tags,
  };
}

const CHARGE_CATEGORY: Record<string, ChargeCategory> = {
  usage: 'Usage',
  unusedreservation: 'Purchase',
  unusedsavingsplan: 'Purchase',
  purchase: 'Purchase',
  refund: 'Purchase',
  tax: 'Tax',
  credit: 'Credit',
};

function pricingCategory(model: string | undefined): PricingCategory | null {
  switch (present(model)?.toLowerCase()) {
    case undefined:
      return null;
    case 'ondemand':
      return 'Standard';
    case 'reservation':
    case 'savingsplan':
      return 'Committed';
    case 'spot':
      return 'Dynamic';
    default:
      return 'Other';
  }
}

function present(v: string | undefined): string | null {
  return v === undefined || v === '' || v.toLowerCase() === 'unassigned' ? null : v;
}
