import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { refusalOf } from '../../server/src/http/errors';
import type { CostLineItem } from '../../server/src/cost/model';
import { azureProvider } from '../../server/src/cost/sources/azure/index';
import { azureBillingSource } from '../../server/src/cost/sources/azure/source';
import { fakeAzure, type CostRecord, type FakeAzure } from '../support/cost/fake-azure';

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '3f0d1a4e-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const SECRET = 'Qx8~cost-reader-secret.value';
const SUBSCRIPTION = '8b2f6a3c-1d4e-4f5a-9b6c-7d8e9f0a1b2c';
const SCOPE = `/subscriptions/${SUBSCRIPTION}`;
const BILLING_SCOPE = '/providers/Microsoft.Billing/billingAccounts/8611537';
const RG = `${SCOPE}/resourcegroups/shop`;
const CHECKOUT_VM = `${RG}/providers/microsoft.compute/virtualmachines/checkout-vm`;
const DB_VM = `${RG}/providers/microsoft.compute/virtualmachines/db-vm`;
const BATCH_VM = `${RG}/providers/microsoft.compute/virtualmachines/batch-spot-1`;
const ASSETS = `${RG}/providers/microsoft.storage/storageaccounts/shopassets`;

function record(r: Partial<CostRecord> & Pick<CostRecord, 'date' | 'actual' | 'amortized'>): CostRecord {
  return {
    resourceId: CHECKOUT_VM,
    serviceName: 'Virtual Machines',
    location: 'eastus',
    chargeType: 'Usage',
    pricingModel: 'OnDemand',
    subscriptionId: SUBSCRIPTION,
    tags: {},
    currency: 'USD',
    ...r,
  };
}

const MAY: CostRecord[] = [
  // Two meters of one VM on one day (compute and its OS disk) make one group: 3 + 1.
  record({ date: '2024-05-01', actual: 3, amortized: 3, tags: { team: 'payments', env: 'prod' } }),
  record({ date: '2024-05-01', actual: 1, amortized: 1, tags: { team: 'payments', env: 'prod' } }),
  // Usage a reservation covers: not billed (the purchase was), amortized at the reservation's rate.
  record({
    date: '2024-05-01',
    resourceId: DB_VM,
    pricingModel: 'Reservation',
    actual: 0,
    amortized: 2.5,
    tags: { team: 'data' },
  }),
  // The reservation purchase itself: billed, and spread over usage in the amortized view.
  record({
    date: '2024-05-01',
    resourceId: '',
    location: '',
    chargeType: 'Purchase',
    pricingModel: 'Reservation',
    actual: 876,
    amortized: null,
  }),
  record({
    date: '2024-05-02',
    resourceId: '',
    location: '',
    chargeType: 'UnusedReservation',
    pricingModel: 'Reservation',
    actual: null,
    amortized: 0.3,
  }),
  record({
    date: '2024-05-02',
    resourceId: ASSETS,
    serviceName: 'Storage',
    location: 'westeurope',
    actual: 0.25,
    amortized: 0.25,
    tags: { team: 'web', 'cost center': 'CC 12' },
  }),
  record({ date: '2024-05-03', resourceId: BATCH_VM, pricingModel: 'Spot', actual: 0.4, amortized: 0.4 }),
  record({
    date: '2024-05-15',
    resourceId: '',
    location: '',
    chargeType: 'Refund',
    pricingModel: 'Reservation',
    actual: -10,
    amortized: null,
  }),
];
const APRIL = record({ date: '2024-04-30', actual: 50, amortized: 50 });

const day = (d: string) => ({
  chargePeriodStartMs: Date.parse(`${d}T00:00:00Z`),
  chargePeriodEndMs: Date.parse(`${d}T00:00:00Z`) + 86_400_000,
});
const base = {
  billingPeriod: '2024-05',
  currency: 'USD',
  accountId: SUBSCRIPTION,
  region: 'eastus',
  serviceName: 'Virtual Machines',
  serviceCategory: 'Compute',
};
const reservation = {
  ...base,
  region: null,
  resourceId: null,
  resourceName: null,
  pricingCategory: 'Committed',
  tags: {},
} as const;

/** May worked out by hand from MAY: billed from ActualCost, effective from AmortizedCost, by day and group. */
const EXPECTED_MAY: CostLineItem[] = [
  {
    ...day('2024-05-01'),
    ...base,
    resourceId: CHECKOUT_VM,
    resourceName: 'checkout-vm',
    billedCost: 4,
    effectiveCost: 4,
    chargeCategory: 'Usage',
    chargeType: 'Usage',
    pricingCategory: 'Standard',
    tags: { team: 'payments', env: 'prod' },
  },
  {
    ...day('2024-05-01'),
    ...base,
    resourceId: DB_VM,
    resourceName: 'db-vm',
    billedCost: 0,
    effectiveCost: 2.5,
    chargeCategory: 'Usage',
    chargeType: 'Usage',
    pricingCategory: 'Committed',
    tags: { team: 'data' },
  },
  {
    ...day('2024-05-01'),
    ...reservation,
    billedCost: 876,
    effectiveCost: 0,
    chargeCategory: 'Purchase',
    chargeType: 'Purchase',
  },
  // The reservation's unused hours: no resource's usage (like AWS's unused RIFee), a charge of its own.
  {
    ...day('2024-05-02'),
    ...reservation,
    billedCost: 0,
    effectiveCost: 0.3,
    chargeCategory: 'Purchase',
    chargeType: 'UnusedReservation',
  },
  {
    ...day('2024-05-02'),
    ...base,
    region: 'westeurope',
    serviceName: 'Storage',
    serviceCategory: 'Storage',
    resourceId: ASSETS,
    resourceName: 'shopassets',
    billedCost: 0.25,
    effectiveCost: 0.25,
    chargeCategory: 'Usage',
    chargeType: 'Usage',
    pricingCategory: 'Standard',
    tags: { team: 'web', 'cost center': 'CC 12' },
  },
  {
    ...day('2024-05-03'),
    ...base,
    resourceId: BATCH_VM,
    resourceName: 'batch-spot-1',
    billedCost: 0.4,
    effectiveCost: 0.4,
    chargeCategory: 'Usage',
    chargeType: 'Usage',
    pricingCategory: 'Dynamic',
    tags: {},
  },
  {
    ...day('2024-05-15'),
    ...reservation,
    billedCost: -10,
    effectiveCost: 0,
    chargeCategory: 'Purchase',
    chargeType: 'Refund',
  },
];

const order = (items: CostLineItem[]) =>
  [...items].sort(
    (a, b) =>
      a.chargePeriodStartMs - b.chargePeriodStartMs ||
      String(a.resourceId).localeCompare(String(b.resourceId)) ||
      a.billedCost - b.billedCost,
  );

describe('azure config', () => {
  const valid = { scope: SCOPE, tenant_id: TENANT, client_id: CLIENT, client_secret: SECRET };

  function rejection(config: unknown) {
    try {
      azureProvider.parse(config);
    } catch (error) {
      const refused = refusalOf(error);
      if (!refused) throw error;
      return { status: refused.status, field: (refused.details as { field: string }).field };
    }
    throw new Error('parse accepted the config');
  }

  it('names each bad field', () => {
    expect(rejection('scope')).toEqual({ status: 400, field: 'config' });
    expect(rejection({ ...valid, subscription: SUBSCRIPTION })).toEqual({ status: 400, field: 'config.subscription' });
    for (const scope of [
      undefined,
      '',
      'subscriptions',
      `/subscriptions/not-a-guid`,
      `${SCOPE}/resourceGroups`,
      `${SCOPE}/resourceGroups/a.`,
      '/providers/Microsoft.Compute/virtualMachines/x',
      `${BILLING_SCOPE}/invoiceSections/x`,
    ]) {
      expect(rejection({ ...valid, scope })).toEqual({ status: 400, field: 'config.scope' });
    }
    for (const field of ['tenant_id', 'client_id']) {
      expect(rejection({ ...valid, [field]: 'contoso.onmicrosoft.com' })).toEqual({
        status: 400,
        field: `config.${field}`,
      });
      expect(rejection({ ...valid, [field]: undefined })).toEqual({ status: 400, field: `config.${field}` });
    }
    expect(rejection({ ...valid, client_secret: '' })).toEqual({ status: 400, field: 'config.client_secret' });
    expect(rejection({ ...valid, client_secret: 42 })).toEqual({ status: 400, field: 'config.client_secret' });
  });

  it('accepts every Cost Management scope as users paste it, in canonical form', () => {
    const cases: [string, string][] = [
      [`subscriptions/${SUBSCRIPTION.toUpperCase()}/`, SCOPE],
      [`${SCOPE}/resourcegroups/Shop-RG_(eu)`, `${SCOPE}/resourceGroups/Shop-RG_(eu)`],
      [
        '/providers/microsoft.management/managementgroups/platform',
        '/providers/Microsoft.Management/managementGroups/platform',
      ],
      [BILLING_SCOPE, BILLING_SCOPE],
      [`${BILLING_SCOPE}/departments/42`, `${BILLING_SCOPE}/departments/42`],
      [`${BILLING_SCOPE}/enrollmentaccounts/7`, `${BILLING_SCOPE}/enrollmentAccounts/7`],
      [
        '/providers/Microsoft.Billing/billingAccounts/a1b2c3d4-0000-0000-0000-000000000000:e5f6a7b8-0000-0000-0000-000000000000_2019-05-31/billingProfiles/AB12-CD34-EF5-GH6/invoiceSections/XY78-ZW90-ABC-DEF',
        '/providers/Microsoft.Billing/billingAccounts/a1b2c3d4-0000-0000-0000-000000000000:e5f6a7b8-0000-0000-0000-000000000000_2019-05-31/billingProfiles/AB12-CD34-EF5-GH6/invoiceSections/XY78-ZW90-ABC-DEF',
      ],
      [`${BILLING_SCOPE}/customers/c-9`, `${BILLING_SCOPE}/customers/c-9`],
    ];
    for (const [scope, canonical] of cases)
      expect(azureProvider.parse({ ...valid, scope }).config.scope).toBe(canonical);
  });

  it('shows the scope only: never the app, its tenant or its secret', () => {
    const parsed = azureProvider.parse(valid);
    expect(azureProvider.publicConfig(parsed.config)).toEqual({ scope: SCOPE });
    expect(parsed.secrets).toEqual({ tenant_id: TENANT, client_id: CLIENT, client_secret: SECRET });
  });
});

describe('azure source against Entra ID and Cost Management', () => {
  let azure: FakeAzure;
  const log: string[] = [];

  beforeAll(async () => {
    azure = await fakeAzure();
    azure.app({ tenant: TENANT, clientId: CLIENT, secret: SECRET });
    azure.grant(CLIENT, SCOPE);
    azure.grant(CLIENT, BILLING_SCOPE);
    azure.setCosts(SCOPE, [APRIL, ...MAY]);
    azure.setCosts(BILLING_SCOPE, MAY);
  });
  afterAll(() => azure.close());
  beforeEach(() => {
    azure.tokenRequests.length = 0;
    azure.managementRequests.length = 0;
    azure.throttle.length = 0;
    azure.pageRows = 1000;
    log.length = 0;
  });

  function source(config: Record<string, unknown> = {}) {
    const parsed = azureProvider.parse({
      scope: SCOPE,
      tenant_id: TENANT,
      client_id: CLIENT,
      client_secret: SECRET,
      ...config,
    });
    const env = {
      endpoints: { azureManagement: azure.management, azureAuthorityHost: azure.authority },
      log: (l: string) => log.push(l),
    };
    return azureBillingSource(parsed.config, parsed.secrets, env, { agent: azure.agent });
  }

  async function read(config: Record<string, unknown> = {}, period = '2024-05') {
    const batches: CostLineItem[][] = [];
    for await (const batch of source(config).read(period, new AbortController().signal)) batches.push(batch);
    return batches;
  }

  it('joins billed (ActualCost) and effective (AmortizedCost) daily groups into line items, following nextLink', async () => {
    azure.pageRows = 2;
    const batches = await read();
    expect(order(batches.flat())).toEqual(order(EXPECTED_MAY));
    expect(batches.every((b) => b.length > 0 && b.length <= 2)).toBe(true);

    // One token for the whole sync: client credentials for Resource Manager.
    expect(azure.tokenRequests).toEqual([
      { tenant: TENANT, grantType: 'client_credentials', clientId: CLIENT, scope: `${azure.management}/.default` },
    ]);

    // Only the Query API: 6 ActualCost groups and 5 AmortizedCost groups, two per page.
    const requests = azure.managementRequests;
    expect(
      requests.every(
        (r) =>
          r.method === 'POST' &&
          r.path === `${SCOPE}/providers/Microsoft.CostManagement/query` &&
          r.query['api-version'],
      ),
    ).toBe(true);
    expect(
      requests.map((r) => [(r.body as { type: string }).type, r.query.$skiptoken === undefined ? 'first' : 'next']),
    ).toEqual([
      ['ActualCost', 'first'],
      ['ActualCost', 'next'],
      ['ActualCost', 'next'],
      ['AmortizedCost', 'first'],
      ['AmortizedCost', 'next'],
      ['AmortizedCost', 'next'],
    ]);
    expect(requests[0]!.body).toEqual({
      type: 'ActualCost',
      timeframe: 'Custom',
      timePeriod: { from: '2024-05-01T00:00:00Z', to: '2024-05-31T23:59:59Z' },
      dataset: {
        granularity: 'Daily',
        aggregation: { totalCost: { name: 'Cost', function: 'Sum' } },
        grouping: ['ResourceId', 'SubscriptionId', 'ServiceName', 'ResourceLocation', 'ChargeType', 'PricingModel'].map(
          (name) => ({ type: 'Dimension', name }),
        ),
        include: ['Tags'],
      },
    });
    expect(requests[1]!.body).toEqual(requests[0]!.body);
  });

  it('totals the month as invoiced and as amortized', async () => {
    const items = (await read()).flat();
    const sum = (f: (i: CostLineItem) => number) => Math.round(items.reduce((s, i) => s + f(i), 0) * 100) / 100;
    // 4 + 0 + 876 + 0.25 + 0.4 - 10, and 4 + 2.5 + 0.3 + 0.25 + 0.4.
    expect(sum((i) => i.billedCost)).toBe(870.65);
    expect(sum((i) => i.effectiveCost)).toBe(7.45);
  });

  it('reads a billing scope without resources, which the Query API only groups below subscriptions', async () => {
    const items = (await read({ scope: BILLING_SCOPE })).flat();
    const grouping = (
      azure.managementRequests[0]!.body as { dataset: { grouping: { name: string }[] } }
    ).dataset.grouping.map((g) => g.name);
    expect(grouping).toEqual(['SubscriptionId', 'ServiceName', 'ResourceLocation', 'ChargeType', 'PricingModel']);
    expect(items.every((i) => i.resourceId === null && i.resourceName === null)).toBe(true);
    // The 1 May on-demand VM usage of checkout-vm (4) and the reserved db-vm (0 billed, 2.5 effective) stay apart by pricing model.
    const may1Usage = items.filter(
      (i) => i.chargePeriodStartMs === Date.parse('2024-05-01T00:00:00Z') && i.chargeCategory === 'Usage',
    );
    expect(may1Usage.map((i) => [i.pricingCategory, i.billedCost, i.effectiveCost]).sort()).toEqual([
      ['Committed', 0, 2.5],
      ['Standard', 4, 4],
    ]);
  });

  it('waits as long as Cost Management asks when throttled, then goes on', async () => {
    azure.throttle.push({
      'x-ms-ratelimit-microsoft.costmanagement-qpu-retry-after': '1',
      'x-ms-ratelimit-microsoft.costmanagement-entity-retry-after': '0',
    });
    expect(order((await read()).flat())).toEqual(order(EXPECTED_MAY));
    expect(azure.managementRequests).toHaveLength(3);
  });

  it('fails the sync, saying so, when Cost Management asks for a longer wait than a sync should hold', async () => {
    azure.throttle.push({ 'x-ms-ratelimit-microsoft.costmanagement-tenant-retry-after': '600' });
    await expect(read()).rejects.toThrow(
      /ActualCost query failed with HTTP 429 .*throttled, Cost Management asks to wait 600 s/,
    );
    expect(azure.managementRequests).toHaveLength(1);
  });

  it('yields nothing for a month without costs', async () => {
    expect(await read({}, '2024-07')).toEqual([]);
  });

  it('reports a refused client secret', async () => {
    await expect(read({ client_secret: 'wrong' })).rejects.toThrow(/AADSTS7000215: Invalid client secret/);
    expect(azure.managementRequests).toEqual([]);
  });

  it('reports a scope the app has no role on', async () => {
    const other = `/subscriptions/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}`;
    await expect(read({ scope: other })).rejects.toThrow(
      /HTTP 403 \(AuthorizationFailed: .*\); the app needs the Cost Management Reader role on the scope/,
    );
  });

  it('stops between pages when the sync is cancelled', async () => {
    azure.pageRows = 2;
    const controller = new AbortController();
    const reading = (async () => {
      for await (const _ of source().read('2024-05', controller.signal)) controller.abort();
    })();
    // The ActualCost pages are read before anything is yielded; the first AmortizedCost page is the first batch.
    await expect(reading).rejects.toThrow(/abort/i);
    expect(azure.managementRequests.map((r) => (r.body as { type: string }).type)).toEqual([
      'ActualCost',
      'ActualCost',
      'ActualCost',
      'AmortizedCost',
    ]);
  });
});
