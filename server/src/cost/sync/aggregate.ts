import { detach } from '../detach';
import { fromDayNumber } from '../reports/days';
import type { ChargeCategory, CostLineItem, PricingCategory } from '../model';

/** A billed resource as the sync saw it last in a period. */
export type ResourceSeen = Pick<
  CostLineItem,
  'resourceId' | 'resourceName' | 'serviceName' | 'serviceCategory' | 'region' | 'accountId' | 'tags'
> & { key: string };

export interface DailyCost {
  day: string;
  resourceKey: string;
  chargeCategory: string;
  chargeType: string;
  pricingCategory: string;
  currency: string;
  billedCost: number;
  effectiveCost: number;
  lineItems: number;
}

export interface PeriodAggregate {
  resources: Map<string, ResourceSeen>;
  daily: DailyCost[];
  lineItems: number;
}

const DAY_MS = 86_400_000;
const CHARGE_INDEX: Record<ChargeCategory, number> = { Usage: 0, Purchase: 1, Tax: 2, Credit: 3, Adjustment: 4 };
const PRICING_INDEX: Record<PricingCategory, number> = { Standard: 1, Committed: 2, Dynamic: 3, Other: 4 };
/** Currencies a period may hold: the cost key has 6 bits for them. */
const MAX_CURRENCIES = 64;
/** Charge types a period may hold (AWS has about 20 line item types, GCP a dozen credit types): 8 bits of the key. */
const MAX_CHARGE_TYPES = 256;

/**
 * Small integers for the few distinct values of a column (currencies, charge types), so the cost key is a number; the
 * names are kept detached (detach.ts), one copy each.
 */
function interner(what: string, max: number) {
  const indexes = new Map<string, number>();
  const names: string[] = [];
  return {
    names,
    index(value: string): number {
      let index = indexes.get(value);
      if (index === undefined) {
        if (names.length >= max) throw new Error(`a billing period with more than ${max} ${what}`);
        index = names.push(detach(value)) - 1;
        indexes.set(names[index]!, index);
      }
      return index;
    },
  };
}

/**
 * A resource's key: its id, or for charges without one (tax, support, an account's data transfer) the service, region,
 * account and tags, so mapping rules and reports still see them as something billed — and two differently tagged
 * charges (S3 requests of two applications in one account) stay apart instead of taking each other's attribution.
 */
export function resourceKeyOf(item: CostLineItem): string {
  if (item.resourceId !== null) return item.resourceId;
  // JSON, not a control-character separator: PostgreSQL text cannot hold U+0000.
  const tags = JSON.stringify(
    Object.keys(item.tags)
      .sort()
      .map((key) => [key, item.tags[key]]),
  );
  return `~${item.serviceName}|${item.region ?? ''}|${item.accountId ?? ''}|${tags}`;
}

/** A resource as first seen in a read, its strings detached from the chunk they were read from (detach.ts). */
export function resourceSeen(key: string, item: CostLineItem): ResourceSeen {
  const tags: Record<string, string> = {};
  for (const tag in item.tags) tags[detach(tag)] = detach(item.tags[tag]!);
  return {
    key: detach(key),
    resourceId: item.resourceId === null ? null : detach(item.resourceId),
    resourceName: item.resourceName === null ? null : detach(item.resourceName),
    serviceName: detach(item.serviceName),
    serviceCategory: item.serviceCategory,
    region: item.region === null ? null : detach(item.region),
    accountId: item.accountId === null ? null : detach(item.accountId),
    tags,
  };
}

/** What a later line item tells of a resource already seen: a newer name, a category, tags added during the month. */
export function updateSeen(seen: ResourceSeen, item: CostLineItem): void {
  if (item.resourceName !== null && item.resourceName !== seen.resourceName)
    seen.resourceName = detach(item.resourceName);
  if (seen.serviceCategory === null) seen.serviceCategory = item.serviceCategory;
  // Tags added during the month apply to the resource from then on; keep the union, newest value winning.
  for (const tag in item.tags) {
    const value = item.tags[tag]!;
    if (seen.tags[tag] !== value) seen.tags[detach(tag)] = detach(value);
  }
}

/** Day numbers as `YYYY-MM-DD`, remembered: formatting a date is costly per row, and a period has about 31 days. */
function dayNamer(): (index: number) => string {
  const names = new Map<number, string>();
  return (index) => {
    let name = names.get(index);
    if (name === undefined) {
      name = fromDayNumber(index);
      names.set(index, name);
    }
    return name;
  };
}

/**
 * Sums line items into cost per UTC day, resource and kind of charge while they stream in: memory grows with the
 * number of distinct (day, resource, charge) keys, not with the number of rows read (hourly CUR rows collapse 24:1).
 */
export function createAggregator() {
  const resources = new Map<string, { seen: ResourceSeen; costs: Map<number, DailyCost> }>();
  const currencies = interner('currencies', MAX_CURRENCIES);
  const chargeTypes = interner('charge types', MAX_CHARGE_TYPES);
  const dayName = dayNamer();
  let lineItems = 0;

  return {
    add(batch: readonly CostLineItem[]): void {
      for (const item of batch) {
        const resourceKey = resourceKeyOf(item);
        let entry = resources.get(resourceKey);
        if (entry === undefined) {
          entry = { seen: resourceSeen(resourceKey, item), costs: new Map<number, DailyCost>() };
          resources.set(entry.seen.key, entry);
        } else updateSeen(entry.seen, item);
        // One integer key per (day, charge category, pricing, currency, charge type) within the resource, under 2^53:
        // no string built per row.
        const day = Math.floor(item.chargePeriodStartMs / DAY_MS);
        const pricing = item.pricingCategory === null ? 0 : PRICING_INDEX[item.pricingCategory];
        const currency = currencies.index(item.currency);
        const chargeType = chargeTypes.index(item.chargeType);
        const key =
          (((day * 8 + CHARGE_INDEX[item.chargeCategory]) * 8 + pricing) * MAX_CURRENCIES + currency) *
            MAX_CHARGE_TYPES +
          chargeType;
        const cost = entry.costs.get(key);
        if (cost === undefined) {
          entry.costs.set(key, {
            day: dayName(day),
            resourceKey: entry.seen.key,
            chargeCategory: item.chargeCategory,
            chargeType: chargeTypes.names[chargeType]!,
            pricingCategory: item.pricingCategory ?? '',
            currency: currencies.names[currency]!,
            billedCost: item.billedCost,
            effectiveCost: item.effectiveCost,
            lineItems: 1,
          });
        } else {
          cost.billedCost += item.billedCost;
          cost.effectiveCost += item.effectiveCost;
          cost.lineItems += 1;
        }
      }
      lineItems += batch.length;
    },
    result: (): PeriodAggregate => ({
      resources: new Map([...resources.values()].map(({ seen }) => [seen.key, seen])),
      daily: [...resources.values()].flatMap(({ costs }) => [...costs.values()]),
      lineItems,
    }),
  };
}
