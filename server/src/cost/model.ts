/**
 * The one line-item model every billing reader produces, whatever the cloud or export format. It follows FOCUS 1.0
 * (FinOps Open Cost and Usage Specification) column meanings, so the AWS, GCP and Azure readers each map their own
 * columns onto it and nothing downstream knows where a row came from.
 */
export interface CostLineItem {
  /** Start of the charge period (FOCUS `ChargePeriodStart`), epoch ms, UTC. Reports bucket cost by its UTC day. */
  chargePeriodStartMs: number;
  /** End of the charge period (exclusive), epoch ms. */
  chargePeriodEndMs: number;
  /** Billing period the row belongs to, `YYYY-MM` (FOCUS `BillingPeriodStart`'s month). */
  billingPeriod: string;
  /** What the invoice charges (FOCUS `BilledCost`). */
  billedCost: number;
  /** Amortized cost after discounts and commitments (FOCUS `EffectiveCost`): what reports allocate. */
  effectiveCost: number;
  /** ISO 4217, e.g. `USD` (FOCUS `BillingCurrency`). */
  currency: string;
  /** Provider resource id (ARN, instance id, Azure resource id, GCP resource global name), or null for charges with none. */
  resourceId: string | null;
  resourceName: string | null;
  /** Cloud service as the provider names it (FOCUS `ServiceName`, e.g. `Amazon Elastic Compute Cloud`, `AmazonEC2`). */
  serviceName: string;
  /** FOCUS `ServiceCategory` (`Compute`, `Storage`, `Databases`, `Networking`, ...), or null when the export has none. */
  serviceCategory: string | null;
  /** Region id, e.g. `us-east-1`, or null. */
  region: string | null;
  /** The account/subscription/project that used the resource (FOCUS `SubAccountId`), or null. */
  accountId: string | null;
  /**
   * FOCUS `ChargeCategory`. Only `Usage` is the use of a resource; every other category (purchases and fees, tax,
   * credits and discounts, refunds and other adjustments) is a charge of its own, which reports keep apart from the
   * services' usage (reports/charges.ts).
   */
  chargeCategory: ChargeCategory;
  /**
   * The provider's own name of the kind of charge, what its console groups by (AWS `lineItem/LineItemType` such as
   * `EdpDiscount` or `RIFee`, a GCP `cost_type` or credit type, an Azure `ChargeType`): reports break the non-usage
   * charges down by it, as Cost Explorer's "Charge type" does.
   */
  chargeType: string;
  /** FOCUS `PricingCategory`: `Standard` is on-demand, `Committed` reserved or savings plan, `Dynamic` spot; null if unknown. */
  pricingCategory: PricingCategory | null;
  /** Resource tags/labels, user tags without a provider prefix (`resourceTags/user:team` → `team`). */
  tags: Record<string, string>;
}

export type ChargeCategory = 'Usage' | 'Purchase' | 'Tax' | 'Credit' | 'Adjustment';
export type PricingCategory = 'Standard' | 'Committed' | 'Dynamic' | 'Other';

/** Line items in batches: one promise per batch rather than per row keeps readers fast (bench:cost). */
export type LineItemBatches = AsyncIterable<CostLineItem[]>;

/** A billing period as `YYYY-MM`. */
export type BillingPeriod = string;

/**
 * Where one provider connection's billing data comes from. `read` yields every line item of one billing period as the
 * provider has it now (a sync replaces the stored period with what this yields, so it must be complete). Read-only: an
 * implementation never calls anything that creates or changes a resource in the cloud.
 */
export interface BillingSource {
  read(period: BillingPeriod, signal: AbortSignal): LineItemBatches;
}
