import type { SampleLineItem } from '../../test/support/cost/report-files';
import { prng } from '../harness';

/**
 * The generated month of hourly legacy CUR line items bench:cost syncs: `resources` resources × 24 hours × every day of
 * the period, hour by hour (as an hourly CUR lists them), cut at `rows`. Deterministic (a seeded PRNG), so runs compare.
 *
 * A fleet shaped like a mid-sized account: 40 services in three environments across three accounts and regions;
 * EC2 instances (on demand, reserved, Savings Plans, spot), EBS volumes, RDS, S3, Lambda, DynamoDB, load balancers,
 * CloudWatch and resource-less data transfer, with prices and usage types as AWS bills them. Most resources carry the
 * cost allocation tags `Name`, `service`, `env`, `team`, `owner`; one in eight carries none (Unattributed cost). One
 * service's spend triples on one day, so the estimate has an anomaly to flag.
 */
export interface MonthShape {
  period: string;
  rows: number;
}

export const HOURS_PER_DAY = 24;

const ACCOUNTS = ['111122223333', '444455556666', '777788889999'];
const REGIONS = ['us-east-1', 'us-west-2', 'eu-west-1'];
const ENVS = ['production', 'production', 'staging', 'dev'];
const TEAMS = ['payments', 'search', 'growth', 'platform', 'data', 'mobile', 'identity', 'ops'];
const SERVICES = [
  'checkout',
  'cart',
  'catalog',
  'search',
  'recommendations',
  'payments',
  'fraud',
  'ledger',
  'invoices',
  'shipping',
  'inventory',
  'pricing',
  'promotions',
  'reviews',
  'notifications',
  'email',
  'sms',
  'auth',
  'accounts',
  'profile',
  'sessions',
  'gateway',
  'edge',
  'media',
  'thumbnails',
  'uploads',
  'exports',
  'reports',
  'analytics',
  'etl',
  'warehouse',
  'ml-serving',
  'ml-training',
  'feature-store',
  'scheduler',
  'queue-workers',
  'webhooks',
  'audit',
  'support',
  'admin',
];
/** The service whose cost triples on SPIKE_DAY. */
const SPIKE_SERVICE = 'etl';
const SPIKE_DAY = 19;

const EC2_TYPES: [string, number][] = [
  ['t3.medium', 0.0416],
  ['m5.large', 0.096],
  ['m5.xlarge', 0.192],
  ['c5.2xlarge', 0.34],
  ['r5.large', 0.126],
  ['m6g.xlarge', 0.154],
];

interface Resource {
  item: Omit<SampleLineItem, 'day' | 'hour' | 'unblendedCost' | 'effectiveCost'>;
  service: string;
  /** Price of one hour at full usage. */
  hourly: number;
  /** Amortized share of the on-demand price (reserved, Savings Plans), 1 for anything else. */
  effectiveShare: number;
  /** Usage varies by hour of day (serverless, storage requests, transfer) rather than being a flat instance-hour. */
  diurnal: boolean;
}

function pick<T>(random: () => number, values: readonly T[]): T {
  return values[Math.floor(random() * values.length)]!;
}

const round = (n: number) => Math.round(n * 1e8) / 1e8;

function makeResource(index: number, random: () => number): Resource {
  const service = SERVICES[index % SERVICES.length]!;
  const env = pick(random, ENVS);
  const accountId = ACCOUNTS[index % ACCOUNTS.length]!;
  const region = pick(random, REGIONS);
  const tagged = random() >= 0.125;
  const tags = tagged
    ? { service, env, team: pick(random, TEAMS), owner: `${pick(random, TEAMS)}@example.com` }
    : undefined;
  const hex = (index + 0x10000).toString(16).padStart(8, '0');
  const name = tagged ? `${service}-${env}-${index}` : null;
  const base = { accountId, region, tags, resourceName: name };
  const kind = random();
  if (kind < 0.4) {
    const [size, price] = pick(random, EC2_TYPES);
    const commitment = random();
    const type =
      commitment < 0.7
        ? 'Usage'
        : commitment < 0.85
          ? 'DiscountedUsage'
          : commitment < 0.95
            ? 'SavingsPlanCoveredUsage'
            : 'Usage';
    const spot = commitment >= 0.95;
    return {
      service,
      hourly: spot ? round(price * 0.31) : price,
      effectiveShare: type === 'DiscountedUsage' ? 0.62 : type === 'SavingsPlanCoveredUsage' ? 0.72 : 1,
      diurnal: false,
      item: {
        ...base,
        resourceId: `i-0${hex}${hex.slice(0, 8)}`,
        productCode: 'AmazonEC2',
        productFamily: 'Compute Instance',
        type,
        ...(spot ? { pricingTerm: 'Spot' as const } : {}),
        usageType: `${spot ? 'SpotUsage' : 'BoxUsage'}:${size}`,
      },
    };
  }
  const flat = (
    hourly: number,
    item: Partial<SampleLineItem> & Pick<SampleLineItem, 'productCode' | 'resourceId'>,
    diurnal = false,
  ): Resource => ({
    service,
    hourly,
    effectiveShare: 1,
    diurnal,
    item: { ...base, type: 'Usage', ...item },
  });
  if (kind < 0.6)
    return flat(0.0109, {
      productCode: 'AmazonEC2',
      productFamily: 'Storage',
      resourceId: `vol-0${hex}${hex}`,
      usageType: 'EBS:VolumeUsage.gp3',
    });
  if (kind < 0.68)
    return flat(pick(random, [0.017, 0.068, 0.171, 0.342]), {
      productCode: 'AmazonRDS',
      productFamily: 'Database Instance',
      resourceId: `arn:aws:rds:${region}:${accountId}:db:${service}-${index}`,
      usageType: 'InstanceUsage:db.m5.large',
    });
  if (kind < 0.76)
    return flat(
      0.0031,
      {
        productCode: 'AmazonS3',
        productFamily: 'Storage',
        resourceId: `${service}-${env}-assets-${index}`,
        usageType: 'TimedStorage-ByteHrs',
      },
      true,
    );
  if (kind < 0.84)
    return flat(
      0.0021,
      {
        productCode: 'AWSLambda',
        productFamily: 'Serverless',
        resourceId: `arn:aws:lambda:${region}:${accountId}:function:${service}-${index}`,
        usageType: 'Lambda-GB-Second',
      },
      true,
    );
  if (kind < 0.89)
    return flat(
      0.0052,
      {
        productCode: 'AmazonDynamoDB',
        productFamily: 'Amazon DynamoDB PayPerRequest Throughput',
        resourceId: `arn:aws:dynamodb:${region}:${accountId}:table/${service}-${index}`,
        usageType: 'PayPerRequestThroughput',
      },
      true,
    );
  if (kind < 0.94)
    return flat(0.0225, {
      productCode: 'AWSELB',
      productFamily: 'Load Balancer-Application',
      resourceId: `arn:aws:elasticloadbalancing:${region}:${accountId}:loadbalancer/app/${service}/${hex}`,
      usageType: 'LoadBalancerUsage',
    });
  if (kind < 0.97)
    return flat(
      0.0014,
      {
        productCode: 'AmazonCloudWatch',
        productFamily: 'Metric',
        resourceId: `arn:aws:logs:${region}:${accountId}:log-group:/${service}/${index}`,
        usageType: 'CW:MetricMonitorUsage',
      },
      true,
    );
  // Data transfer out of a region: billed to the account, without a resource.
  return flat(
    0.009,
    {
      productCode: 'AWSDataTransfer',
      productFamily: 'Data Transfer',
      resourceId: null,
      resourceName: null,
      usageType: `${region.toUpperCase()}-DataTransfer-Out-Bytes`,
    },
    true,
  );
}

function daysIn(period: string): string[] {
  const [year, month] = period.split('-').map(Number) as [number, number];
  const count = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return Array.from({ length: count }, (_, i) => `${period}-${String(i + 1).padStart(2, '0')}`);
}

/** How many resources the month needs for `rows` hourly line items. */
export function resourcesFor(shape: MonthShape): number {
  return Math.ceil(shape.rows / (daysIn(shape.period).length * HOURS_PER_DAY));
}

/** The month's line items, generated as they are iterated (nothing is kept). */
export function* monthOfLineItems(shape: MonthShape): Generator<SampleLineItem> {
  const random = prng(6);
  const resources = Array.from({ length: resourcesFor(shape) }, (_, i) => makeResource(i, random));
  let left = shape.rows;
  for (const day of daysIn(shape.period)) {
    const spike = Number(day.slice(8)) === SPIKE_DAY;
    for (let hour = 0; hour < HOURS_PER_DAY; hour++) {
      // Traffic follows the day: a trough at 04:00 UTC, a peak at 16:00.
      const load = 0.6 + 0.4 * Math.sin(((hour - 10) / 24) * 2 * Math.PI);
      for (const r of resources) {
        if (left-- <= 0) return;
        const usage = r.diurnal ? load * (0.8 + 0.4 * random()) : 1;
        const cost = round(r.hourly * usage * (spike && r.service === SPIKE_SERVICE ? 3 : 1));
        yield {
          ...r.item,
          day,
          hour,
          unblendedCost: cost,
          effectiveCost: r.effectiveShare === 1 ? cost : round(cost * r.effectiveShare),
        };
      }
    }
  }
}
