import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../support/child-env';
import { fakeAzure, type CostRecord, type FakeAzure } from '../support/cost/fake-azure';
import {
  DETAILED_EXPORT_SCHEMA,
  fakeBigQuery,
  type FakeBigQuery,
  type ServiceAccountKeyFile,
} from '../support/cost/fake-bigquery';
import { controlPlane as baseControlPlane } from '../support/cost/aws-server';
import type { ServerChildOptions } from '../support/cost/server-child';
import { createTempDatabase, databaseKinds, type TempDatabase } from '../support/databases';
import { startTestServer, type TestServer } from '../support/server';
import { eventually } from '../support/until';

/**
 * GCP and Azure cost tracking end to end through the real server over HTTP, on SQLite and PostgreSQL: a connection is
 * made with `POST /control-plane/cost/providers` (a service account key for GCP; an app's tenant, client id and secret
 * and a scope for Azure), its sync runs in the server's worker and reads both clouds' wire formats through the
 * official clients, and `/cost/summary` and `/cost/by-service` show totals worked out by hand, attributed by tag
 * (GCP labels, Azure tags). The connection never shows its credentials. A failing sync (revoked BigQuery access, a
 * rotated Azure secret, a missing export table) shows in `GET .../sync` as `retrying` with the cause, and the data of
 * the last good sync stays until the next one replaces it.
 *
 * GCP's server runs in this process. Azure's runs in a child process (test/support/cost/server-child.ts) started with
 * NODE_EXTRA_CA_CERTS holding the local Azure's certificate: the Azure SDK sends bearer tokens over HTTPS only, and
 * Node reads extra CAs once at start, as an operator's server trusting a private CA does.
 *
 * The server's clock stands still at 2024-05-20 12:00 UTC, so the first sync reads April and May (the previous month
 * too, as nothing was read before) and later ones May only. Syncs are triggered over HTTP and waited for by polling
 * their status.
 */
const kinds = await databaseKinds();
const NOW = Date.UTC(2024, 4, 20, 12, 0, 0);
const DUE_NOW = new Date(NOW).toISOString();
const MINUTE = 60_000;
const DAY = 86_400_000;
/** The `data` of a report while every connection synced at NOW. */
const fresh = (providers: Json[]) => ({
  status: 'fresh',
  message: 'Every connection synced in the last 36 hours.',
  stale_after_hours: 36,
  providers,
});
const freshProvider = (id: string, provider: string, name: string | null) => ({
  id,
  provider,
  name,
  status: 'fresh',
  last_success_at: DUE_NOW,
  last_error: null,
  consecutive_failures: 0,
  next_sync_at: new Date(NOW + DAY).toISOString(),
});
const SERVER_CHILD = fileURLToPath(new URL('../support/cost/server-child.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Attribution by tag, which is what GCP labels and Azure tags become: the service and env tags name both. */
const RULES = [
  { match: { tag: 'service', pattern: '*' }, attribute_to: 'service' },
  { match: { tag: 'env', pattern: '*' }, attribute_to: 'env' },
];

type Json = Record<string, unknown>;

interface SyncStatus {
  state: string;
  next_run_at: string | null;
  last_success_at: string | null;
  consecutive_failures: number;
  last_run: { status: string; line_items: number | null; periods: string[] | null; error: string | null } | null;
}

/** The control plane of a running server, over HTTP, with waits for the syncs it starts. */
function controlPlane(server: { url: string; controlKey: string }) {
  const { call, get } = baseControlPlane(server);

  /**
   * Waits for a connection's due sync to have run. With the clock standing still, a due sync (new, or triggered) has
   * `next_run_at` = now; a finished run moves it on (a day after a success, minutes after a failure). The test's
   * timeout bounds the wait; a sync that never runs ends the test with its last status.
   */
  const waitForSync = (id: string): Promise<SyncStatus> => {
    let last: SyncStatus | undefined;
    return eventually(
      () => `the sync of ${id} to finish (last status ${JSON.stringify(last)})`,
      async () => {
        last = (await call('GET', `/cost/providers/${id}/sync`)).body as unknown as SyncStatus;
        return last.state !== 'due' && last.state !== 'running' ? last : undefined;
      },
    );
  };

  return {
    call,
    get,
    waitForSync,
    /** Triggers a connection's sync (`POST .../sync`) and waits for its result. */
    async syncNow(id: string): Promise<SyncStatus> {
      const triggered = await call('POST', `/cost/providers/${id}/sync`);
      expect(triggered.status, JSON.stringify(triggered.body)).toBe(202);
      return waitForSync(id);
    },
  };
}

type ControlPlane = ReturnType<typeof controlPlane>;

/** What a provider's JSON must never contain: any part of its credentials. */
function expectNoSecrets(body: unknown, secrets: string[]): void {
  const text = JSON.stringify(body);
  for (const secret of secrets) expect(text).not.toContain(secret);
}

// GCP ---------------------------------------------------------------------------------------------------------------

const PROJECT = 'svc-billing-reader';
const DATASET = 'billing_export';
const TABLE = 'gcp_billing_export_resource_v1_0A1B2C_3D4E5F_6A7B8C';
const READER = 'cost-reader@svc-billing-reader.iam.gserviceaccount.com';
const CHECKOUT_VM = {
  name: 'checkout-vm-1',
  global_name: '//compute.googleapis.com/projects/shop-prod/zones/us-central1-a/instances/4711',
};
const BATCH_VM = {
  name: 'batch-vm-1',
  global_name: '//compute.googleapis.com/projects/shop-prod/zones/us-central1-a/instances/4712',
};
const BUCKET = { name: 'shop-assets', global_name: '//storage.googleapis.com/projects/_/buckets/shop-assets' };

interface GcpRow {
  start: string;
  invoice: string;
  service: string;
  cost: number;
  credits?: { amount: number; type: string }[];
  costType?: string;
  labels?: Record<string, string>;
  resource?: { name: string; global_name: string };
}

/** A detailed usage cost export row as Cloud Billing loads it: an hour of usage, partitioned by the day it was exported. */
function gcpRow(r: GcpRow): Record<string, unknown> {
  const start = Date.parse(r.start);
  return {
    _PARTITIONTIME: Date.parse(r.start.slice(0, 10)),
    billing_account_id: '0A1B2C-3D4E5F-6A7B8C',
    service: { id: '6F81-5844-456A', description: r.service },
    sku: { id: 'CP-COMPUTEENGINE-VMIMAGE', description: `${r.service} SKU` },
    usage_start_time: new Date(start).toISOString(),
    usage_end_time: new Date(start + 3_600_000).toISOString(),
    project: {
      id: 'shop-prod',
      number: '918273645',
      name: 'Shop production',
      labels: [],
      ancestry_numbers: '/1/918273645/',
    },
    labels: Object.entries(r.labels ?? {}).map(([key, value]) => ({ key, value })),
    location: {
      location: 'us-central1',
      country: 'US',
      region: r.costType === 'tax' ? null : 'us-central1',
      zone: null,
    },
    export_time: new Date(start + 5 * 3_600_000).toISOString(),
    cost: r.cost,
    currency: 'USD',
    currency_conversion_rate: 1,
    credits: (r.credits ?? []).map((c, i) => ({
      name: `credit ${i}`,
      amount: c.amount,
      full_name: null,
      id: `c${i}`,
      type: c.type,
    })),
    invoice: { month: r.invoice },
    cost_type: r.costType ?? 'regular',
    ...(r.resource ? { resource: r.resource } : {}),
  };
}

const checkoutLabels = { service: 'checkout', env: 'production' };
const sustainedUse = [{ amount: -1.5, type: 'SUSTAINED_USAGE_DISCOUNT' }];

/**
 * The export (effective = cost + credits):
 * - April, invoiced in April: checkout 30.
 * - May: checkout 10 − 1.5 twice (billed 20, effective 17); batch 6 − 2 committed use (billed 6, effective 4); the
 *   assets bucket 2.5, used in April's last UTC hour but invoiced in May (Cloud Billing's invoice months are Pacific
 *   time), unlabeled; tax 1.2, no resource. Total 24.7 effective, 29.7 billed. Usage is 28.5, of which the labeled VMs
 *   are 26; the credits (−3 sustained use, −2 committed use) and the tax are charges of their own.
 */
const GCP_EXPORT = [
  gcpRow({
    start: '2024-04-15T00:00:00Z',
    invoice: '202404',
    service: 'Compute Engine',
    cost: 30,
    labels: checkoutLabels,
    resource: CHECKOUT_VM,
  }),
  gcpRow({
    start: '2024-05-01T00:00:00Z',
    invoice: '202405',
    service: 'Compute Engine',
    cost: 10,
    credits: sustainedUse,
    labels: checkoutLabels,
    resource: CHECKOUT_VM,
  }),
  gcpRow({
    start: '2024-05-10T00:00:00Z',
    invoice: '202405',
    service: 'Compute Engine',
    cost: 10,
    credits: sustainedUse,
    labels: checkoutLabels,
    resource: CHECKOUT_VM,
  }),
  gcpRow({
    start: '2024-05-02T00:00:00Z',
    invoice: '202405',
    service: 'Compute Engine',
    cost: 6,
    credits: [{ amount: -2, type: 'COMMITTED_USAGE_DISCOUNT' }],
    labels: { service: 'batch', env: 'staging' },
    resource: BATCH_VM,
  }),
  gcpRow({ start: '2024-04-30T23:00:00Z', invoice: '202405', service: 'Cloud Storage', cost: 2.5, resource: BUCKET }),
  gcpRow({ start: '2024-05-15T00:00:00Z', invoice: '202405', service: 'Cloud Storage', cost: 1.2, costType: 'tax' }),
];

// Azure -------------------------------------------------------------------------------------------------------------

const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const CLIENT = '3f0d1a4e-5b6c-4d7e-8f90-a1b2c3d4e5f6';
const SECRET = 'Qx8~cost-reader-secret.value';
const SUBSCRIPTION = '8b2f6a3c-1d4e-4f5a-9b6c-7d8e9f0a1b2c';
const SCOPE = `/subscriptions/${SUBSCRIPTION}`;
const RG = `${SCOPE}/resourcegroups/shop`;

function azureRecord(r: Partial<CostRecord> & Pick<CostRecord, 'date' | 'actual' | 'amortized'>): CostRecord {
  return {
    resourceId: `${RG}/providers/microsoft.compute/virtualmachines/checkout-vm`,
    serviceName: 'Virtual Machines',
    location: 'eastus',
    chargeType: 'Usage',
    pricingModel: 'OnDemand',
    subscriptionId: SUBSCRIPTION,
    tags: { service: 'checkout', env: 'production' },
    currency: 'USD',
    ...r,
  };
}

const reservation = { resourceId: '', location: '', pricingModel: 'Reservation', tags: {} };

/**
 * Cost Management's records (billed = ActualCost, effective = AmortizedCost):
 * - April: checkout 50.
 * - May: checkout 3 + 1 (two meters, one day) and 4: 8 both ways; the orders database VM, which a reservation covers:
 *   billed 0, effective 2.5; the reservation's monthly payment: billed 73, effective 0 (spread over the usage it
 *   covers); its unused hours: effective 0.3; a storage account tagged only with a team: 0.25. Total 11.05 effective,
 *   81.25 billed; the service-tagged VMs are 10.5 of it.
 */
const AZURE_COSTS: CostRecord[] = [
  azureRecord({ date: '2024-04-30', actual: 50, amortized: 50 }),
  azureRecord({ date: '2024-05-01', actual: 3, amortized: 3 }),
  azureRecord({ date: '2024-05-01', actual: 1, amortized: 1 }),
  azureRecord({ date: '2024-05-10', actual: 4, amortized: 4 }),
  azureRecord({
    date: '2024-05-01',
    resourceId: `${RG}/providers/microsoft.compute/virtualmachines/orders-db`,
    pricingModel: 'Reservation',
    actual: 0,
    amortized: 2.5,
    tags: { service: 'orders', env: 'production' },
  }),
  azureRecord({ date: '2024-05-01', ...reservation, chargeType: 'Purchase', actual: 73, amortized: null }),
  azureRecord({ date: '2024-05-02', ...reservation, chargeType: 'UnusedReservation', actual: null, amortized: 0.3 }),
  azureRecord({
    date: '2024-05-02',
    resourceId: `${RG}/providers/microsoft.storage/storageaccounts/shopassets`,
    serviceName: 'Storage',
    actual: 0.25,
    amortized: 0.25,
    tags: { team: 'web' },
  }),
];

// -------------------------------------------------------------------------------------------------------------------

describe.each(kinds)('GCP and Azure cost through the server on %s', (kind) => {
  describe('GCP: the BigQuery billing export, server in this process', () => {
    let bigquery: FakeBigQuery;
    let key: ServiceAccountKeyFile;
    let t: TestServer;
    let api: ControlPlane;
    let providerId = '';

    beforeAll(async () => {
      bigquery = await fakeBigQuery();
      key = bigquery.serviceAccount(READER);
      bigquery.addTable(`${PROJECT}.${DATASET}.${TABLE}`, { schema: DETAILED_EXPORT_SCHEMA, rows: GCP_EXPORT });
      t = await startTestServer(kind, {
        clock: { now: () => NOW },
        detection: false,
        cost: { endpoints: { bigquery: bigquery.origin } },
      });
      api = controlPlane(t);
    });

    afterAll(async () => {
      await t?.close();
      await bigquery?.close();
    });

    it('connects with a service account key, syncs April and May with BigQuery query jobs only, and never shows the key', async () => {
      expect((await api.call('POST', '/cost/mappings', { rules: RULES })).status).toBe(200);
      const created = await api.call('POST', '/cost/providers', {
        provider: 'gcp',
        name: 'billing account',
        config: { project_id: PROJECT, dataset: DATASET, table: TABLE, credentials: JSON.stringify(key) },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      providerId = created.body.id as string;
      expect(created.body).toMatchObject({
        provider: 'gcp',
        name: 'billing account',
        config: {
          project_id: PROJECT,
          dataset_project_id: PROJECT,
          dataset: DATASET,
          table: TABLE,
          location: null,
          export_type: 'detailed',
          auth: 'service_account_key',
        },
      });

      expect(await api.waitForSync(providerId)).toEqual({
        state: 'scheduled',
        next_run_at: new Date(NOW + DAY).toISOString(),
        last_success_at: DUE_NOW,
        consecutive_failures: 0,
        // April's one row and May's five, and a line item for each of May's three credits.
        last_run: {
          started_at: DUE_NOW,
          finished_at: DUE_NOW,
          status: 'succeeded',
          line_items: 9,
          periods: ['2024-04', '2024-05'],
          error: null,
        },
      });
      // One parameterized query job (jobs.query, a SELECT) per invoice month, signed with the key (the local BigQuery
      // refuses anything else), each month's rows in its first page: no call that creates or changes anything.
      expect(bigquery.queries.map((q) => q.params.invoice_month)).toEqual(['202404', '202405']);
      const jobsQuery = `POST /bigquery/v2/projects/${PROJECT}/queries`;
      expect(bigquery.requests.map((r) => `${r.method} ${r.path}`)).toEqual([jobsQuery, jobsQuery]);

      const secrets = [READER, key.private_key_id, key.private_key.split('\n')[1]!, 'private_key', 'credentials'];
      expectNoSecrets(created.body, secrets);
      expectNoSecrets((await api.get(`/cost/providers/${providerId}`)).body, secrets);
      const listed = await api.get('/cost/providers');
      expect((listed.body.data as Json[]).map((p) => p.id)).toEqual([providerId]);
      expectNoSecrets(listed.body, secrets);
    });

    it('reports May: usage per service from the labels, and the credits and tax apart by type', async () => {
      // Billed before credits, which have no billed cost of their own; effective after them.
      const charges = {
        cost: -3.8,
        billed_cost: 1.2,
        by_type: [
          { charge_type: 'SUSTAINED_USAGE_DISCOUNT', charge_category: 'Credit', cost: -3, billed_cost: 0 },
          { charge_type: 'COMMITTED_USAGE_DISCOUNT', charge_category: 'Credit', cost: -2, billed_cost: 0 },
          { charge_type: 'tax', charge_category: 'Tax', cost: 1.2, billed_cost: 1.2 },
        ],
      };
      const summary = await api.get('/cost/summary');
      expect(summary.body).toEqual({
        period: '2024-05',
        currency: 'USD',
        period_total: 24.7,
        month_to_date: 24.7,
        billed_total: 29.7,
        usage_total: 28.5,
        // 26 / 28.5 and 2.5 / 28.5: the unlabeled bucket only, not the tax or the credits.
        attributed: { cost: 26, share: 0.912281 },
        unattributed: { cost: 2.5, share: 0.087719 },
        charges,
        other_currencies: [],
        providers: [
          {
            id: providerId,
            provider: 'gcp',
            name: 'billing account',
            last_successful_sync_at: DUE_NOW,
            last_sync_status: 'succeeded',
            last_sync_error: null,
          },
        ],
        data: fresh([freshProvider(providerId, 'gcp', 'billing account')]),
      });
      expect((await api.get('/cost/summary?period=2024-04')).body).toMatchObject({
        period: '2024-04',
        period_total: 30,
        billed_total: 30,
        attributed: { cost: 30, share: 1 },
      });

      const byService = await api.get('/cost/by-service');
      expect(byService.body).toEqual({
        period: '2024-05',
        currency: 'USD',
        total: 24.7,
        usage_total: 28.5,
        services: [
          {
            service: 'checkout',
            cost: 20,
            billed_cost: 20,
            share: 0.701754,
            envs: [{ env: 'production', cost: 20, billed_cost: 20 }],
          },
          {
            service: 'batch',
            cost: 6,
            billed_cost: 6,
            share: 0.210526,
            envs: [{ env: 'staging', cost: 6, billed_cost: 6 }],
          },
          {
            service: 'Unattributed',
            cost: 2.5,
            billed_cost: 2.5,
            share: 0.087719,
            envs: [{ env: 'Unattributed', cost: 2.5, billed_cost: 2.5 }],
          },
        ],
        charges,
        other_currencies: [],
        data: fresh([freshProvider(providerId, 'gcp', 'billing account')]),
      });
    });

    it('keeps May when BigQuery access is revoked, says which roles are missing, and recovers on the next sync', async () => {
      const summary = (await api.get('/cost/summary')).body;
      const byService = (await api.get('/cost/by-service')).body;
      bigquery.denied.add(READER);
      try {
        const failed = await api.syncNow(providerId);
        expect(failed).toMatchObject({
          state: 'retrying',
          next_run_at: new Date(NOW + 5 * MINUTE).toISOString(),
          last_success_at: DUE_NOW,
          consecutive_failures: 1,
          last_run: { status: 'failed', line_items: null, periods: null },
        });
        expect(failed.last_run!.error).toMatch(
          new RegExp(
            `^BigQuery query of ${PROJECT}\\.${DATASET}\\.${TABLE} failed: Access Denied: .*roles/bigquery\\.jobUser on project ${PROJECT} and roles/bigquery\\.dataViewer on the dataset`,
          ),
        );
        // The data is still the day's (fresh), and the error shows beside it in every report.
        const data = fresh([
          {
            ...freshProvider(providerId, 'gcp', 'billing account'),
            last_error: { message: failed.last_run!.error, at: DUE_NOW },
            consecutive_failures: 1,
            next_sync_at: failed.next_run_at,
          },
        ]);
        expect((await api.get('/cost/summary')).body).toEqual({
          ...summary,
          providers: [
            expect.objectContaining({
              last_successful_sync_at: DUE_NOW,
              last_sync_status: 'failed',
              last_sync_error: failed.last_run!.error,
            }),
          ],
          data,
        });
        expect((await api.get('/cost/by-service')).body).toEqual({ ...byService, data });
      } finally {
        bigquery.denied.delete(READER);
      }

      // Access restored: May (the only month a later sync reads) again, the same totals as before (idempotent).
      expect(await api.syncNow(providerId)).toMatchObject({
        state: 'scheduled',
        consecutive_failures: 0,
        last_run: { status: 'succeeded', line_items: 8, periods: ['2024-05'], error: null },
      });
      expect((await api.get('/cost/summary')).body).toEqual(summary);
      expect((await api.get('/cost/by-service')).body).toEqual(byService);
    });

    it('names a missing export table in the sync status of a new connection, and reports nothing from it', async () => {
      const summary = (await api.get('/cost/summary')).body;
      const missing = 'gcp_billing_export_resource_v1_000000_000000_000000';
      const created = await api.call('POST', '/cost/providers', {
        provider: 'gcp',
        config: { project_id: PROJECT, dataset: DATASET, table: missing, credentials: key },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const status = await api.waitForSync(id);
      expect(status).toMatchObject({
        state: 'retrying',
        last_success_at: null,
        consecutive_failures: 1,
        last_run: { status: 'failed' },
      });
      expect(status.last_run!.error).toMatch(
        new RegExp(`^BigQuery query of ${PROJECT}\\.${DATASET}\\.${missing} failed: Not found: Table`),
      );

      const after = (await api.get('/cost/summary')).body;
      // Both connections were made at the same (fixed) time: the lists are in id order then.
      const byId = (list: unknown) => [...(list as { id: string }[])].sort((a, b) => a.id.localeCompare(b.id));
      const summaryData = summary.data as { providers: Json[] };
      expect({
        ...after,
        providers: byId(after.providers),
        data: { ...(after.data as Json), providers: byId((after.data as Json).providers) },
      }).toEqual({
        ...summary,
        providers: byId([
          ...(summary.providers as Json[]),
          {
            id,
            provider: 'gcp',
            name: null,
            last_successful_sync_at: null,
            last_sync_status: 'failed',
            last_sync_error: status.last_run!.error,
          },
        ]),
        // One of the two connections has no data: the report is incomplete.
        data: {
          status: 'stale',
          message: 'The data of 1 of 2 connections is older than 36 hours or missing: see providers.',
          stale_after_hours: 36,
          providers: byId([
            ...summaryData.providers,
            {
              id,
              provider: 'gcp',
              name: null,
              status: 'no_data',
              last_success_at: null,
              last_error: { message: status.last_run!.error, at: DUE_NOW },
              consecutive_failures: 1,
              next_sync_at: status.next_run_at,
            },
          ]),
        },
      });
      expect((await api.call('DELETE', `/cost/providers/${id}`)).status).toBe(204);
      expect((await api.get('/cost/summary')).body).toEqual(summary);
    });
  });

  describe('Azure: the Cost Management Query API, server in a child process trusting the local Azure', () => {
    let azure: FakeAzure;
    let caDir: string;
    let database: TempDatabase;
    let child: ServerChild;
    let api: ControlPlane;
    let providerId = '';

    beforeAll(async () => {
      azure = await fakeAzure();
      azure.app({ tenant: TENANT, clientId: CLIENT, secret: SECRET });
      azure.grant(CLIENT, SCOPE);
      azure.setCosts(SCOPE, AZURE_COSTS);
      caDir = mkdtempSync(join(tmpdir(), 'svc-azure-ca-'));
      writeFileSync(join(caDir, 'ca.pem'), azure.ca);
      database = await createTempDatabase(kind);
      child = await startServerChild(
        {
          databaseUrl: database.url,
          nowMs: NOW,
          endpoints: { azureManagement: azure.management, azureAuthorityHost: azure.authority },
        },
        { NODE_EXTRA_CA_CERTS: join(caDir, 'ca.pem') },
      );
      api = controlPlane(child);
    });

    afterAll(async () => {
      await child?.stop();
      await database?.drop();
      await azure?.close();
      if (caDir) rmSync(caDir, { recursive: true, force: true });
    });

    it('connects an app to a subscription, syncs April and May with Query API calls only, and never shows the app', async () => {
      expect((await api.call('POST', '/cost/mappings', { rules: RULES })).status).toBe(200);
      const created = await api.call('POST', '/cost/providers', {
        provider: 'azure',
        name: 'shop subscription',
        config: { scope: SCOPE, tenant_id: TENANT, client_id: CLIENT, client_secret: SECRET },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      providerId = created.body.id as string;
      expect(created.body).toMatchObject({ provider: 'azure', name: 'shop subscription', config: { scope: SCOPE } });

      expect(await api.waitForSync(providerId)).toEqual({
        state: 'scheduled',
        next_run_at: new Date(NOW + DAY).toISOString(),
        last_success_at: DUE_NOW,
        consecutive_failures: 0,
        // April's one group; May's five AmortizedCost groups and the purchase, which only ActualCost has.
        last_run: {
          started_at: DUE_NOW,
          finished_at: DUE_NOW,
          status: 'succeeded',
          line_items: 7,
          periods: ['2024-04', '2024-05'],
          error: null,
        },
      });
      // One token for the run (the app's client credentials, for Resource Manager), then only the Query API: billed and
      // amortized cost of each month.
      expect(azure.tokenRequests).toEqual([
        { tenant: TENANT, grantType: 'client_credentials', clientId: CLIENT, scope: `${azure.management}/.default` },
      ]);
      const query = `POST ${SCOPE}/providers/Microsoft.CostManagement/query`;
      expect(azure.managementRequests.map((r) => `${r.method} ${r.path}`)).toEqual([query, query, query, query]);
      expect(
        azure.managementRequests
          .map((r) => r.body as { type: string; timePeriod: { from: string } })
          .map((q) => [q.type, q.timePeriod.from]),
      ).toEqual([
        ['ActualCost', '2024-04-01T00:00:00Z'],
        ['AmortizedCost', '2024-04-01T00:00:00Z'],
        ['ActualCost', '2024-05-01T00:00:00Z'],
        ['AmortizedCost', '2024-05-01T00:00:00Z'],
      ]);

      const secrets = [TENANT, CLIENT, SECRET, 'client_secret'];
      expectNoSecrets(created.body, secrets);
      expectNoSecrets((await api.get(`/cost/providers/${providerId}`)).body, secrets);
      expectNoSecrets((await api.get('/cost/providers')).body, secrets);
    });

    it('reports May: amortized usage per service from the tags, the reservation payment and unused hours apart', async () => {
      // The reservation's payment (billed only: amortized over the usage it covers) and its unused hours (amortized only).
      const charges = {
        cost: 0.3,
        billed_cost: 73,
        by_type: [
          { charge_type: 'UnusedReservation', charge_category: 'Purchase', cost: 0.3, billed_cost: 0 },
          { charge_type: 'Purchase', charge_category: 'Purchase', cost: 0, billed_cost: 73 },
        ],
      };
      const summary = await api.get('/cost/summary');
      expect(summary.body).toEqual({
        period: '2024-05',
        currency: 'USD',
        period_total: 11.05,
        month_to_date: 11.05,
        billed_total: 81.25,
        usage_total: 10.75,
        // 10.5 / 10.75 and 0.25 / 10.75: the storage account tagged only with a team.
        attributed: { cost: 10.5, share: 0.976744 },
        unattributed: { cost: 0.25, share: 0.023256 },
        charges,
        other_currencies: [],
        providers: [
          {
            id: providerId,
            provider: 'azure',
            name: 'shop subscription',
            last_successful_sync_at: DUE_NOW,
            last_sync_status: 'succeeded',
            last_sync_error: null,
          },
        ],
        data: fresh([freshProvider(providerId, 'azure', 'shop subscription')]),
      });
      expect((await api.get('/cost/summary?period=2024-04')).body).toMatchObject({
        period: '2024-04',
        period_total: 50,
        billed_total: 50,
        attributed: { cost: 50, share: 1 },
      });

      const byService = await api.get('/cost/by-service');
      expect(byService.body).toEqual({
        period: '2024-05',
        currency: 'USD',
        total: 11.05,
        usage_total: 10.75,
        services: [
          {
            service: 'checkout',
            cost: 8,
            billed_cost: 8,
            share: 0.744186,
            envs: [{ env: 'production', cost: 8, billed_cost: 8 }],
          },
          {
            service: 'orders',
            cost: 2.5,
            billed_cost: 0,
            share: 0.232558,
            envs: [{ env: 'production', cost: 2.5, billed_cost: 0 }],
          },
          {
            service: 'Unattributed',
            cost: 0.25,
            billed_cost: 0.25,
            share: 0.023256,
            envs: [{ env: 'Unattributed', cost: 0.25, billed_cost: 0.25 }],
          },
        ],
        charges,
        other_currencies: [],
        data: fresh([freshProvider(providerId, 'azure', 'shop subscription')]),
      });
    });

    it('keeps May when the app secret is rotated, shows Entra ID refusing the stored one, and recovers when it is valid again', async () => {
      const summary = (await api.get('/cost/summary')).body;
      const byService = (await api.get('/cost/by-service')).body;
      azure.app({ tenant: TENANT, clientId: CLIENT, secret: 'Zr4~a-rotated-secret.value' });
      try {
        const failed = await api.syncNow(providerId);
        expect(failed).toMatchObject({
          state: 'retrying',
          next_run_at: new Date(NOW + 5 * MINUTE).toISOString(),
          last_success_at: DUE_NOW,
          consecutive_failures: 1,
          last_run: { status: 'failed', line_items: null, periods: null },
        });
        expect(failed.last_run!.error).toMatch(/AADSTS7000215: Invalid client secret/);
        expect(failed.last_run!.error).not.toContain(SECRET);
        const data = fresh([
          {
            ...freshProvider(providerId, 'azure', 'shop subscription'),
            last_error: { message: failed.last_run!.error, at: DUE_NOW },
            consecutive_failures: 1,
            next_sync_at: failed.next_run_at,
          },
        ]);
        expect((await api.get('/cost/summary')).body).toEqual({
          ...summary,
          providers: [
            expect.objectContaining({
              last_successful_sync_at: DUE_NOW,
              last_sync_status: 'failed',
              last_sync_error: failed.last_run!.error,
            }),
          ],
          data,
        });
        expect((await api.get('/cost/by-service')).body).toEqual({ ...byService, data });
      } finally {
        azure.app({ tenant: TENANT, clientId: CLIENT, secret: SECRET });
      }

      // The stored secret is valid again: May (the only month a later sync reads) again, the same totals (idempotent).
      expect(await api.syncNow(providerId)).toMatchObject({
        state: 'scheduled',
        consecutive_failures: 0,
        last_run: { status: 'succeeded', line_items: 6, periods: ['2024-05'], error: null },
      });
      expect((await api.get('/cost/summary')).body).toEqual(summary);
      expect((await api.get('/cost/by-service')).body).toEqual(byService);
    });
  });
});

// The server child ----------------------------------------------------------------------------------------------------

interface ServerChild {
  url: string;
  controlKey: string;
  stop(): Promise<void>;
}

/** Starts test/support/cost/server-child.ts with `env` added, and resolves once it listens. */
async function startServerChild(options: ServerChildOptions, env: Record<string, string>): Promise<ServerChild> {
  const proc = spawn(process.execPath, ['--import', 'tsx', SERVER_CHILD, JSON.stringify(options)], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let log = '';
  proc.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const stop = async () => {
    // Closing its stdin stops it cleanly; a child that does not stop in time is killed.
    proc.stdin.end();
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    // No deadline of its own: the test's timeout bounds the start, and the child exits with this process (its stdin).
    const ready = await new Promise<{ url: string; controlKey: string }>((resolve, reject) => {
      createInterface({ input: proc.stdout }).once('line', (line) => {
        resolve(JSON.parse(line) as { url: string; controlKey: string });
      });
      proc.once('exit', (code, signal) => {
        reject(new Error(`the server child exited (${signal ?? code}) before listening:\n${log}`));
      });
    });
    return { ...ready, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
