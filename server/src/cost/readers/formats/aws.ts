import type { ChargeCategory, CostLineItem } from '../../model';
import type { Cells } from '../cells';
import { bindEffectiveCost, bindPricingCategory, commitmentColumns } from './aws-commitments';
import type { ColumnPicker } from './types';

/**
 * The AWS cost and usage line item, shared by the legacy CUR (CSV and Parquet spellings) and CUR 2.0 readers: both
 * carry the same fields under names that differ only in spelling, so the column names are written here once in the
 * CSV spelling (`lineItem/UnblendedCost`) and `spell` turns them into a format's own.
 *
 * Effective (amortized) cost and the pricing category follow reservations and savings plans (aws-commitments.ts).
 * Billed cost is always lineItem/UnblendedCost, what the invoice charges.
 */

/** AWS's Athena/Parquet and CUR 2.0 spelling of a CSV column name: `reservation/ReservationARN` → `reservation_reservation_a_r_n`. */
export function athenaName(csvName: string): string {
  return csvName
    .replace(/[/:]/g, '_')
    .replace(/(?<=[^_])([A-Z])/g, '_$1')
    .toLowerCase();
}

/**
 * FOCUS ChargeCategory of each AWS line item type. Only usage of a resource is `Usage`: discounts and the Savings Plan
 * negation are reductions of the bill (`Credit`), fees and commitments `Purchase`, so reports show them apart from the
 * services' usage by their line item type, as Cost Explorer's "Charge type" does, instead of inside "Unattributed".
 */
const CHARGE_CATEGORY: Record<string, ChargeCategory> = {
  Usage: 'Usage',
  DiscountedUsage: 'Usage',
  SavingsPlanCoveredUsage: 'Usage',
  // It cancels the covered usage's on-demand charge (billed cost only: it amortizes to 0).
  SavingsPlanNegation: 'Credit',
  BundledDiscount: 'Credit',
  Discount: 'Credit',
  EdpDiscount: 'Credit',
  PrivateRateDiscount: 'Credit',
  RiVolumeDiscount: 'Credit',
  Fee: 'Purchase',
  RIFee: 'Purchase',
  SavingsPlanRecurringFee: 'Purchase',
  SavingsPlanUpfrontFee: 'Purchase',
  Tax: 'Tax',
  Credit: 'Credit',
  Refund: 'Adjustment',
};

/** AWS Support plans (AWSSupportBusiness, AWSSupportEnterprise, AWSDeveloperSupport, ...) bill as fees of their own. */
const SUPPORT_PRODUCT = /Support/;

/**
 * The charge type reports show: the line item type, except that a support plan's fee (or usage) is `Support`, as Cost
 * Explorer's "Support fee" is told apart from other fees. Support is never a resource's usage.
 */
function chargeTypeOf(lineItemType: string, productCode: string): { type: string; category: ChargeCategory } {
  if ((lineItemType === 'Fee' || lineItemType === 'Usage') && SUPPORT_PRODUCT.test(productCode))
    return { type: 'Support', category: 'Purchase' };
  // A line item type AWS adds later still counts, at its unblended cost, as an adjustment.
  return {
    type: lineItemType === '' ? 'Unknown' : lineItemType,
    category: CHARGE_CATEGORY[lineItemType] ?? 'Adjustment',
  };
}

/** FOCUS ServiceCategory by product code, mostly as the FinOps Foundation's AWS mapping has it; unlisted products get null. */
const SERVICE_CATEGORY: Record<string, string> = {
  ...category('Compute', 'AmazonEC2 AWSLambda AmazonECS AmazonEKS AmazonECR AmazonLightsail AWSAppRunner AWSOutposts'),
  ...category('Compute', 'AmazonAppStream'),
  ...category(
    'Storage',
    'AmazonS3 AmazonEFS AmazonFSx AmazonGlacier AmazonS3GlacierDeepArchive AWSBackup AWSStorageGateway',
  ),
  ...category('Databases', 'AmazonRDS AmazonDynamoDB AmazonElastiCache AmazonRedshift AmazonDocDB AmazonNeptune'),
  ...category('Databases', 'AmazonMemoryDB AmazonTimestream AmazonMCS'),
  ...category('Networking', 'AWSDataTransfer AmazonCloudFront AmazonRoute53 AmazonVPC AWSELB AWSDirectConnect'),
  ...category('Networking', 'AWSGlobalAccelerator AmazonApiGateway AWSCloudMap AWSNetworkFirewall'),
  ...category('Integration', 'AWSQueueService AmazonSNS AmazonMQ AmazonStates AmazonMWAA AWSEvents AppFlow'),
  ...category(
    'Analytics',
    'AmazonAthena AWSGlue AmazonKinesis AmazonKinesisFirehose AmazonES AmazonMSK AmazonQuickSight',
  ),
  ...category('Analytics', 'ElasticMapReduce'),
  ...category(
    'Management and Governance',
    'AmazonCloudWatch AWSCloudTrail AWSConfig AWSSystemsManager AWSCloudFormation',
  ),
  ...category('Management and Governance', 'AWSCostExplorer AmazonGrafana AmazonPrometheus'),
  ...category(
    'Security',
    'awskms AWSSecretsManager awswaf AmazonGuardDuty AWSSecurityHub AWSShield AWSCertificateManager',
  ),
  ...category('Security', 'AmazonInspectorV2 AmazonMacie'),
  ...category('Identity', 'AmazonCognito AWSDirectoryService'),
  ...category('AI and Machine Learning', 'AmazonSageMaker AmazonBedrock AmazonRekognition AmazonTextract AmazonPolly'),
  ...category('AI and Machine Learning', 'comprehend transcribe translate'),
  ...category('Developer Tools', 'CodeBuild AWSCodePipeline AWSCodeCommit AWSCodeArtifact AWSCodeDeploy AWSAmplify'),
  ...category('Business Applications', 'AmazonSES AmazonPinpoint AmazonWorkMail AmazonChime'),
};

/**
 * EC2's product code also bills EBS volumes, snapshots, elastic IPs, NAT gateways and load balancers; their product
 * family says what they are, so instance hours alone count as Compute (what the idle and reserved-instance
 * recommendations look at). Data transfer is Networking whichever product bills it.
 */
const FAMILY_CATEGORY: Record<string, string> = {
  'Data Transfer': 'Networking',
};
const EC2_FAMILY_CATEGORY: Record<string, string> = {
  Storage: 'Storage',
  'Storage Snapshot': 'Storage',
  'System Operation': 'Storage',
  'Provisioned Throughput': 'Storage',
  'IP Address': 'Networking',
  'NAT Gateway': 'Networking',
  'Load Balancer': 'Networking',
  'Load Balancer-Application': 'Networking',
  'Load Balancer-Network': 'Networking',
  'Load Balancer-Gateway': 'Networking',
  VpcEndpoint: 'Networking',
};

function category(name: string, codes: string): Record<string, string> {
  return Object.fromEntries(codes.split(' ').map((code) => [code, name]));
}

export function serviceCategory(productCode: string, productFamily: string | null): string | null {
  if (productFamily !== null) {
    const byFamily =
      FAMILY_CATEGORY[productFamily] ?? (productCode === 'AmazonEC2' ? EC2_FAMILY_CATEGORY[productFamily] : undefined);
    if (byFamily !== undefined) return byFamily;
  }
  return SERVICE_CATEGORY[productCode] ?? null;
}

/** Where a format keeps what the shared columns do not cover. */
export interface AwsExtras {
  /** The row's resource tags, user tags without their `user:` / `user_` prefix. */
  tags(cells: Cells): Record<string, string>;
  /** The product's name (`Amazon Elastic Compute Cloud`), when the report has it. */
  productName(cells: Cells): string | null;
}

/** Tags held one per column (legacy CUR): `suffix` is the column name after `resourceTags/` or `resource_tags_`. */
export function tagColumns(columns: { slot: number; suffix: string }[], userPrefix: string): AwsExtras['tags'] {
  const tags = columns.map(({ slot, suffix }) => ({
    slot,
    key: suffix.startsWith(userPrefix) ? suffix.slice(userPrefix.length) : suffix,
  }));
  return (cells) => {
    const out: Record<string, string> = {};
    for (const { slot, key } of tags) {
      const value = cells.text(slot);
      if (value !== null) out[key] = value;
    }
    return out;
  };
}

/** Binds the shared AWS columns; returns the row mapping, or records missing required columns on `pick`. */
export function bindAwsLineItem(
  pick: ColumnPicker,
  spell: (csvName: string) => string,
  extras: AwsExtras,
): (cells: Cells) => CostLineItem {
  const col = (...names: string[]) => pick.optional(...names.map(spell));
  const start = pick.required(spell('lineItem/UsageStartDate'));
  const end = pick.required(spell('lineItem/UsageEndDate'));
  const period = pick.required(spell('bill/BillingPeriodStartDate'));
  const type = pick.required(spell('lineItem/LineItemType'));
  const unblended = pick.required(spell('lineItem/UnblendedCost'));
  const productCode = pick.required(spell('lineItem/ProductCode'));
  const currency = col('lineItem/CurrencyCode');
  const resourceId = col('lineItem/ResourceId');
  const productFamily = col('product/productFamily');
  const region = col('product/regionCode', 'product/region');
  const account = col('lineItem/UsageAccountId');
  const term = col('pricing/term');
  const usageType = col('lineItem/UsageType');
  const commitments = commitmentColumns(col);
  const effectiveCost = bindEffectiveCost(commitments, spell);
  const pricingCategory = bindPricingCategory(commitments.riArn, term, usageType);

  return (cells) => {
    const lineItemType = cells.text(type) ?? '';
    const billed = cells.number(unblended);
    const code = cells.text(productCode) ?? '';
    const tags = extras.tags(cells);
    const charge = chargeTypeOf(lineItemType, code);
    return {
      chargePeriodStartMs: cells.time(start),
      chargePeriodEndMs: cells.time(end),
      billingPeriod: cells.month(period),
      billedCost: billed,
      effectiveCost: effectiveCost(cells, lineItemType, billed),
      currency: cells.text(currency) ?? 'USD',
      resourceId: cells.text(resourceId),
      resourceName: tags.Name ?? tags.name ?? null,
      serviceName: extras.productName(cells) ?? code,
      serviceCategory: serviceCategory(code, cells.text(productFamily)),
      region: cells.text(region),
      accountId: cells.text(account),
      chargeCategory: charge.category,
      chargeType: charge.type,
      pricingCategory: pricingCategory(cells, lineItemType),
      tags,
    };
  };
}
