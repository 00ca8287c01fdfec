import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { refusalOf } from '../../server/src/http/errors';
import type { CostLineItem } from '../../server/src/cost/model';
import { gcpProvider } from '../../server/src/cost/sources/gcp/index';
import {
  DETAILED_EXPORT_SCHEMA,
  STANDARD_EXPORT_SCHEMA,
  fakeBigQuery,
  type FakeBigQuery,
  type ServiceAccountKeyFile,
} from '../support/cost/fake-bigquery';

const PROJECT = 'svc-billing-reader';
const DATASET = 'billing_export';
const DETAILED = 'gcp_billing_export_resource_v1_0A1B2C_3D4E5F_6A7B8C';
const STANDARD = 'gcp_billing_export_v1_0A1B2C_3D4E5F_6A7B8C';
const READER = 'cost-reader@svc-billing-reader.iam.gserviceaccount.com';

interface Row {
  start: string;
  hours?: number;
  invoice?: string;
  service: string;
  sku: string;
  cost: number;
  costType?: string;
  credits?: { amount: number; type: string }[];
  labels?: Record<string, string>;
  projectLabels?: Record<string, string>;
  resource?: { name: string; global_name: string };
  region?: string | null;
  partition?: string;
}

/** An export row as Cloud Billing loads it, with the columns the source does not read filled in too. */
function exportRow(r: Row): Record<string, unknown> {
  const start = Date.parse(r.start);
  const pairs = (o: Record<string, string> = {}) => Object.entries(o).map(([key, value]) => ({ key, value }));
  return {
    _PARTITIONTIME: Date.parse(r.partition ?? r.start.slice(0, 10)),
    billing_account_id: '0A1B2C-3D4E5F-6A7B8C',
    service: { id: '6F81-5844-456A', description: r.service },
    sku: { id: 'CP-COMPUTEENGINE-VMIMAGE', description: r.sku },
    usage_start_time: new Date(start).toISOString(),
    usage_end_time: new Date(start + (r.hours ?? 1) * 3_600_000).toISOString(),
    project: {
      id: 'shop-prod',
      number: '918273645',
      name: 'Shop production',
      labels: pairs(r.projectLabels),
      ancestry_numbers: '/1/918273645/',
    },
    labels: pairs(r.labels),
    system_labels: [{ key: 'compute.googleapis.com/machine_spec', value: 'n2-standard-4' }],
    location: {
      location: 'us-central1',
      country: 'US',
      region: r.region === undefined ? 'us-central1' : r.region,
      zone: 'us-central1-a',
    },
    export_time: new Date(start + 5 * 3_600_000).toISOString(),
    cost: r.cost,
    currency: 'USD',
    currency_conversion_rate: 1,
    usage: { amount: 3600, unit: 'seconds', amount_in_pricing_units: 1, pricing_unit: 'hour' },
    credits: (r.credits ?? []).map((c, i) => ({
      name: `credit ${i}`,
      amount: c.amount,
      full_name: null,
      id: `c${i}`,
      type: c.type,
    })),
    invoice: { month: r.invoice ?? '202405' },
    cost_type: r.costType ?? 'regular',
    adjustment_info: null,
    ...(r.resource ? { resource: r.resource } : {}),
  };
}

const VM = {
  name: 'checkout-vm-1',
  global_name: '//compute.googleapis.com/projects/shop-prod/zones/us-central1-a/instances/4711',
};
const BUCKET = { name: 'shop-assets', global_name: '//storage.googleapis.com/projects/_/buckets/shop-assets' };

const MAY_ROWS: Row[] = [
  {
    start: '2024-05-01T00:00:00Z',
    service: 'Compute Engine',
    sku: 'N2 Instance Core running in Americas',
    cost: 10,
    credits: [{ amount: -1.5, type: 'SUSTAINED_USAGE_DISCOUNT' }],
    labels: { team: 'payments', env: 'prod' },
    projectLabels: { team: 'platform', 'cost-center': 'cc-7' },
    resource: VM,
  },
  {
    start: '2024-05-01T01:00:00Z',
    service: 'Compute Engine',
    sku: 'N2 Instance Core running in Americas',
    cost: 4,
    credits: [{ amount: -4, type: 'COMMITTED_USAGE_DISCOUNT' }],
    labels: { team: 'payments' },
    resource: VM,
  },
  {
    start: '2024-05-02T00:00:00Z',
    service: 'Compute Engine',
    sku: 'Spot Preemptible N2 Instance Core running in Americas',
    cost: 0.8,
    resource: VM,
  },
  // Usage in the last hour of April (UTC) that Cloud Billing invoices in May (its invoice months are Pacific time).
  {
    start: '2024-04-30T23:00:00Z',
    partition: '2024-05-01',
    service: 'Cloud Storage',
    sku: 'Standard Storage US Multi-region',
    cost: 2,
    resource: BUCKET,
  },
  {
    start: '2024-05-03T00:00:00Z',
    service: 'Cloud Storage',
    sku: 'Standard Storage US Multi-region',
    cost: 0.1,
    resource: BUCKET,
    hours: 24,
  },
  { start: '2024-05-31T00:00:00Z', service: 'Cloud Storage', sku: 'Tax', cost: 1.2, costType: 'tax', region: null },
];

const APRIL_ROW: Row = {
  start: '2024-04-20T00:00:00Z',
  invoice: '202404',
  service: 'Compute Engine',
  sku: 'N2 Instance Core running in Americas',
  cost: 99,
  resource: VM,
};

const hour = (iso: string, hours = 1) => ({
  chargePeriodStartMs: Date.parse(iso),
  chargePeriodEndMs: Date.parse(iso) + hours * 3_600_000,
});
const vm = {
  resourceId: VM.global_name,
  resourceName: VM.name,
  serviceName: 'Compute Engine',
  serviceCategory: 'Compute',
};
const bucket = {
  resourceId: BUCKET.global_name,
  resourceName: BUCKET.name,
  serviceName: 'Cloud Storage',
  serviceCategory: 'Storage',
};
const common = { billingPeriod: '2024-05', currency: 'USD', region: 'us-central1', accountId: 'shop-prod' };

/**
 * May as the source must read it, worked out by hand from MAY_ROWS: each row's cost (billed and effective), then each of
 * its credits as a line item of its own (effective cost the credit, billed 0), so effective = cost + credits in all.
 */
const EXPECTED_MAY: CostLineItem[] = [
  {
    ...hour('2024-05-01T00:00:00Z'),
    ...common,
    ...vm,
    billedCost: 10,
    effectiveCost: 10,
    chargeCategory: 'Usage',
    chargeType: 'Usage',
    pricingCategory: 'Standard',
    // The resource's own labels win over the project's labels of the same key.
    tags: { team: 'payments', 'cost-center': 'cc-7', env: 'prod' },
  },
  {
    ...hour('2024-05-01T00:00:00Z'),
    ...common,
    ...vm,
    billedCost: 0,
    effectiveCost: -1.5,
    chargeCategory: 'Credit',
    chargeType: 'SUSTAINED_USAGE_DISCOUNT',
    pricingCategory: null,
    tags: { team: 'payments', 'cost-center': 'cc-7', env: 'prod' },
  },
  {
    ...hour('2024-05-01T01:00:00Z'),
    ...common,
    ...vm,
    billedCost: 4,
    effectiveCost: 4,
    chargeCategory: 'Usage',
    chargeType: 'Usage',
    pricingCategory: 'Committed',
    tags: { team: 'payments' },
  },
  {
    ...hour('2024-05-01T01:00:00Z'),
    ...common,
    ...vm,
    billedCost: 0,
    effectiveCost: -4,
    chargeCategory: 'Credit',
    chargeType: 'COMMITTED_USAGE_DISCOUNT',
    pricingCategory: null,
    tags: { team: 'payments' },
  },
  {
    ...hour('2024-05-02T00:00:00Z'),
    ...common,
    ...vm,
    billedCost: 0.8,
    effectiveCost: 0.8,
    chargeCategory: 'Usage',
    chargeType: 'Usage',
    pricingCategory: 'Dynamic',
    tags: {},
  },
  {
    ...hour('2024-04-30T23:00:00Z'),
    ...common,
    ...bucket,
    billedCost: 2,
    effectiveCost: 2,
    chargeCategory: 'Usage',
    chargeType: 'Usage',
    pricingCategory: 'Standard',
    tags: {},
  },
  {
    ...hour('2024-05-03T00:00:00Z', 24),
    ...common,
    ...bucket,
    billedCost: 0.1,
    effectiveCost: 0.1,
    chargeCategory: 'Usage',
    chargeType: 'Usage',
    pricingCategory: 'Standard',
    tags: {},
  },
  {
    ...hour('2024-05-31T00:00:00Z'),
    ...common,
    region: null,
    resourceId: null,
    resourceName: null,
    serviceName: 'Cloud Storage',
    serviceCategory: 'Storage',
    billedCost: 1.2,
    effectiveCost: 1.2,
    chargeCategory: 'Tax',
    chargeType: 'tax',
    pricingCategory: null,
    tags: {},
  },
];

describe('gcp config', () => {
  const valid = { project_id: PROJECT, dataset: DATASET, table: DETAILED };

  function rejection(config: unknown) {
    try {
      gcpProvider.parse(config);
    } catch (error) {
      const refused = refusalOf(error);
      if (!refused) throw error;
      return { status: refused.status, field: (refused.details as { field: string }).field, message: refused.message };
    }
    throw new Error('parse accepted the config');
  }

  it('names each bad field', () => {
    expect(rejection(null).field).toBe('config');
    expect(rejection({ ...valid, bucket: 'x' }).field).toBe('config.bucket');
    expect(rejection({ ...valid, project_id: undefined }).field).toBe('config.project_id');
    for (const project_id of ['Shop', 'ab', 'my_project', 'project-', 'a'.repeat(31)])
      expect(rejection({ ...valid, project_id }).field).toBe('config.project_id');
    expect(rejection({ ...valid, dataset_project_id: 'X' }).field).toBe('config.dataset_project_id');
    for (const dataset of ['', 'billing-export', 'a.b', 7])
      expect(rejection({ ...valid, dataset }).field).toBe('config.dataset');
    for (const table of ['a`b', 'x y', 'a.b']) expect(rejection({ ...valid, table }).field).toBe('config.table');
    expect(rejection({ ...valid, location: 'moon' }).field).toBe('config.location');
    expect(rejection({ ...valid, export_type: 'focus' }).field).toBe('config.export_type');
    // A table not named like Cloud Billing's needs to say which export it copies: the two have different columns.
    expect(rejection({ ...valid, table: 'billing_copy' })).toMatchObject({ status: 400, field: 'config.export_type' });
  });

  it('accepts a service account key as JSON or text, and rejects other credentials', () => {
    const key = {
      type: 'service_account',
      client_email: READER,
      private_key: keyPem(),
      private_key_id: 'abc',
      project_id: PROJECT,
    };
    const parsed = gcpProvider.parse({ ...valid, credentials: JSON.stringify(key) });
    expect(parsed.secrets.credentials).toEqual({
      client_email: READER,
      private_key: key.private_key,
      private_key_id: 'abc',
    });
    expect(rejection({ ...valid, credentials: 'not json' }).field).toBe('config.credentials');
    expect(rejection({ ...valid, credentials: { ...key, type: 'authorized_user' } }).field).toBe(
      'config.credentials.type',
    );
    expect(rejection({ ...valid, credentials: { ...key, client_email: 'nobody' } }).field).toBe(
      'config.credentials.client_email',
    );
    expect(
      rejection({
        ...valid,
        credentials: { ...key, private_key: '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----' },
      }).field,
    ).toBe('config.credentials.private_key');
    expect(rejection({ ...valid, credentials: { ...key, universe_domain: 'example.com' } }).field).toBe(
      'config.credentials.universe_domain',
    );
  });

  it('shows where the export is and how it is read, never the key', () => {
    const key = { type: 'service_account', client_email: READER, private_key: keyPem() };
    const parsed = gcpProvider.parse({ ...valid, location: 'US', credentials: key });
    const shown = gcpProvider.publicConfig(parsed.config);
    expect(shown).toEqual({
      project_id: PROJECT,
      dataset_project_id: PROJECT,
      dataset: DATASET,
      table: DETAILED,
      location: 'US',
      export_type: 'detailed',
      auth: 'service_account_key',
    });
    expect(JSON.stringify(shown)).not.toContain('cost-reader');
    expect(gcpProvider.parse({ ...valid, table: STANDARD }).config).toMatchObject({
      export_type: 'standard',
      auth: 'application_default',
      location: null,
    });
  });
});

describe('gcp source against a BigQuery server', () => {
  let bigquery: FakeBigQuery;
  let key: ServiceAccountKeyFile;
  const log: string[] = [];

  beforeAll(async () => {
    bigquery = await fakeBigQuery();
    key = bigquery.serviceAccount(READER);
    bigquery.addTable(`${PROJECT}.${DATASET}.${DETAILED}`, {
      schema: DETAILED_EXPORT_SCHEMA,
      rows: [APRIL_ROW, ...MAY_ROWS].map(exportRow),
    });
    bigquery.addTable(`${PROJECT}.${DATASET}.${STANDARD}`, {
      schema: STANDARD_EXPORT_SCHEMA,
      rows: [APRIL_ROW, ...MAY_ROWS].map((r) => exportRow({ ...r, resource: undefined })),
    });
    bigquery.addTable(`${PROJECT}.${DATASET}.billing_copy`, {
      schema: STANDARD_EXPORT_SCHEMA,
      rows: MAY_ROWS.map((r) => exportRow({ ...r, resource: undefined })),
    });
  });
  afterAll(() => bigquery.close());
  beforeEach(() => {
    bigquery.requests.length = 0;
    bigquery.queries.length = 0;
    bigquery.pageRows = 10_000;
    bigquery.pendingPolls = 0;
    bigquery.denied.clear();
    log.length = 0;
  });

  function source(config: Record<string, unknown>, credentials: unknown = key) {
    const parsed = gcpProvider.parse({
      project_id: PROJECT,
      dataset: DATASET,
      table: DETAILED,
      ...config,
      credentials,
    });
    return gcpProvider.source(parsed.config, parsed.secrets, {
      endpoints: { bigquery: bigquery.origin },
      log: (l) => log.push(l),
    });
  }

  async function read(config: Record<string, unknown> = {}, period = '2024-05') {
    const batches: CostLineItem[][] = [];
    for await (const batch of source(config).read(period, new AbortController().signal)) batches.push(batch);
    return batches;
  }

  it('reads the invoice month from the detailed export, page by page, with one parameterized SELECT', async () => {
    bigquery.pageRows = 2;
    const batches = await read({ location: 'US' });

    // Pages of two rows; the first two rows carry a credit each.
    expect(batches.map((b) => b.length)).toEqual([4, 2, 2]);
    expect(batches.flat()).toEqual(EXPECTED_MAY);

    expect(bigquery.queries).toHaveLength(1);
    const [query] = bigquery.queries;
    expect(query!.query).toMatch(
      new RegExp(
        `^SELECT .+ FROM \`${PROJECT}\\.${DATASET}\\.${DETAILED}\` WHERE invoice\\.month = @invoice_month AND _PARTITIONTIME >= @partition_from$`,
      ),
    );
    expect(query!.query).toContain('resource.global_name AS resource_global_name');
    expect(query!.params.invoice_month).toBe('202405');
    // Partitions from the day before the month: none of the months before it are scanned.
    expect(Date.parse(query!.params.partition_from!.replace(' ', 'T'))).toBe(Date.parse('2024-04-30T00:00:00Z'));
    expect(query!.location).toBe('US');

    // jobs.query, then getQueryResults for each further page; nothing else.
    expect(bigquery.requests.map((r) => `${r.method} ${r.path.replace(/job_\w+/, '{job}')}`)).toEqual([
      `POST /bigquery/v2/projects/${PROJECT}/queries`,
      `GET /bigquery/v2/projects/${PROJECT}/queries/{job}`,
      `GET /bigquery/v2/projects/${PROJECT}/queries/{job}`,
    ]);
    expect(bigquery.requests.slice(1).map((r) => r.query.pageToken)).toEqual([expect.any(String), expect.any(String)]);
  });

  it('totals the month as billed before credits and effective after them', async () => {
    const items = (await read()).flat();
    const sum = (f: (i: CostLineItem) => number) => Math.round(items.reduce((s, i) => s + f(i), 0) * 100) / 100;
    expect(sum((i) => i.billedCost)).toBe(18.1);
    expect(sum((i) => i.effectiveCost)).toBe(12.6);
    expect(items.every((i) => i.billingPeriod === '2024-05')).toBe(true);
  });

  it('reads the standard export, which has no resources, and a copy of it without partition filter', async () => {
    const standard = (await read({ table: STANDARD })).flat();
    expect(standard).toEqual(EXPECTED_MAY.map((item) => ({ ...item, resourceId: null, resourceName: null })));
    expect(bigquery.queries[0]!.query).toContain('CAST(NULL AS STRING) AS resource_global_name');

    const copy = (await read({ table: 'billing_copy', export_type: 'standard' })).flat();
    // Every row, and a line item for each of its two credits.
    expect(copy).toHaveLength(MAY_ROWS.length + 2);
    expect(bigquery.queries[1]!.query).not.toContain('_PARTITIONTIME');
    expect(bigquery.queries[1]!.params).toEqual({ invoice_month: '202405' });
  });

  it('waits for a query job that is still running', async () => {
    bigquery.pendingPolls = 2;
    expect((await read()).flat()).toEqual(EXPECTED_MAY);
    expect(bigquery.requests.filter((r) => r.method === 'GET')).toHaveLength(2);
  });

  it('yields nothing for a month without rows', async () => {
    expect(await read({}, '2024-07')).toEqual([]);
  });

  it('signs its requests with the key: an unknown key is refused', async () => {
    await read();
    const [header, payload] = bigquery.requests[0]!.authorization!.replace('Bearer ', '').split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toMatchObject({
      alg: 'RS256',
      kid: key.private_key_id,
    });
    expect(JSON.parse(Buffer.from(payload!, 'base64url').toString())).toMatchObject({
      iss: READER,
      sub: READER,
      scope: 'https://www.googleapis.com/auth/bigquery',
    });

    const stranger = { ...key, client_email: 'stranger@elsewhere.iam.gserviceaccount.com' };
    const failure = readAll(source({}, stranger));
    await expect(failure).rejects.toThrow(
      /BigQuery query of svc-billing-reader\.billing_export\.gcp_billing_export_resource_v1_\S+ failed: .*invalid authentication credentials.*check config\.credentials/,
    );
  });

  it('says which roles are missing when the account may not read the table', async () => {
    bigquery.denied.add(READER);
    await expect(readAll(source({}))).rejects.toThrow(
      /Access Denied: Table .*roles\/bigquery\.jobUser on project svc-billing-reader and roles\/bigquery\.dataViewer on the dataset/,
    );
  });

  it('names the table that does not exist', async () => {
    await expect(readAll(source({ table: 'gcp_billing_export_v1_000000_000000_000000' }))).rejects.toThrow(
      /svc-billing-reader\.billing_export\.gcp_billing_export_v1_000000_000000_000000 failed: Not found: Table/,
    );
  });

  it('stops between pages when the sync is cancelled', async () => {
    bigquery.pageRows = 2;
    const controller = new AbortController();
    const seen: number[] = [];
    const reading = (async () => {
      for await (const batch of source({}).read('2024-05', controller.signal)) {
        seen.push(batch.length);
        controller.abort();
      }
    })();
    await expect(reading).rejects.toThrow(/abort/i);
    // The first page: two rows and their two credits.
    expect(seen).toEqual([4]);
    expect(bigquery.requests).toHaveLength(1);
  });
});

async function readAll(source: {
  read(period: string, signal: AbortSignal): AsyncIterable<CostLineItem[]>;
}): Promise<void> {
  for await (const _ of source.read('2024-05', new AbortController().signal)) {
    // drain
  }
}

function keyPem(): string {
  return generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
}
