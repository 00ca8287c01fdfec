import type { Clock } from '../../../server/src/clock';
import type { CostEndpoints } from '../../../server/src/cost/sources/types';
import type { DatabaseKind } from '../databases';
import { startTestServer, type TestServer } from '../server';
import { putLegacyCur } from './aws-exports';
import { startFakeSts, type FakeSts } from './fake-sts';
import type { SampleLineItem } from './report-files';
import { startLocalS3, type LocalS3 } from './s3';

export const COST_ROLE = 'arn:aws:iam::111122223333:role/svc-cost-read';
export const COST_BUCKET = 'acme-billing';

export type Json = Record<string, unknown>;

/** The control plane of a test server, as a user's client calls it (control key, JSON). */
export interface ControlPlane {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  get(path: string): Promise<{ status: number; body: Json }>;
}

export function controlPlane(server: { url: string; controlKey: string }): ControlPlane {
  const call: ControlPlane['call'] = async (method, path, body) => {
    const res = await fetch(`${server.url}/control-plane${path}`, {
      method,
      headers: {
        authorization: `Bearer ${server.controlKey}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
  };
  return { call, get: (path) => call('GET', path) };
}

export interface AwsCostServer {
  t: TestServer;
  api: ControlPlane;
  s3: LocalS3;
  sts: FakeSts;
  /** Connects the bucket's legacy CUR (`POST /cost/providers`) and runs the sync it makes due; returns its id. */
  connect(): Promise<string>;
  close(): Promise<void>;
}

export interface AwsCostServerOptions {
  clock: Clock;
  /** The legacy CUR's line items per billing period (`YYYY-MM`), delivered to `s3://acme-billing/cur/hourly/...`. */
  periods: Record<string, SampleLineItem[]>;
  /** The server's cost endpoints; default the local S3 and STS. */
  endpoints?: (s3: LocalS3, sts: FakeSts) => CostEndpoints;
}

/**
 * The reference server over a fresh database of `kind`, reading a legacy CUR from s3rver through the AWS SDK with a
 * role assumed from a local STS (see cost-api.test.ts). The sync worker only runs when a test asks (`runDue`), so a
 * test decides when a sync happens.
 */
export async function startAwsCostServer(kind: DatabaseKind, options: AwsCostServerOptions): Promise<AwsCostServer> {
  // The SDK's default chain finds these base credentials first (and never probes instance metadata).
  process.env.AWS_ACCESS_KEY_ID ??= 'AKIDBASECREDENTIALS';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'base-secret';
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  const s3 = await startLocalS3();
  const sts = await startFakeSts();
  let t: TestServer | undefined;
  try {
    await s3.createBucket(COST_BUCKET);
    const target = { s3: s3.admin, bucket: COST_BUCKET, prefix: 'cur/' };
    for (const [period, rows] of Object.entries(options.periods))
      await putLegacyCur(target, { name: 'hourly', period, assemblies: [[rows]] });
    const endpoints = options.endpoints?.(s3, sts) ?? { s3: s3.endpoint, sts: sts.url };
    t = await startTestServer(kind, {
      clock: options.clock,
      detection: false,
      cost: { endpoints, sync: { pollMs: 3_600_000 } },
    });
  } catch (error) {
    await Promise.all([s3.close(), sts.close()]);
    throw error;
  }
  const server = t;
  const api = controlPlane(server);
  return {
    t: server,
    api,
    s3,
    sts,
    async connect() {
      const created = await api.call('POST', '/cost/providers', {
        provider: 'aws',
        config: { role_arn: COST_ROLE, cur_bucket: COST_BUCKET, cur_prefix: 'cur/' },
      });
      if (created.status !== 201) throw new Error(`connecting failed: ${JSON.stringify(created.body)}`);
      await server.server.cost.sync.runDue();
      return created.body.id as string;
    },
    async close() {
      await server.close();
      await Promise.all([s3.close(), sts.close()]);
    },
  };
}

/** Daily line items of one resource (or charge) from `first` to `last`, both included. */
export function daily(first: string, last: string, item: Omit<SampleLineItem, 'day'>): SampleLineItem[] {
  const rows: SampleLineItem[] = [];
  for (let ms = Date.parse(`${first}T00:00:00Z`); ms <= Date.parse(`${last}T00:00:00Z`); ms += 86_400_000) {
    rows.push({ ...item, day: new Date(ms).toISOString().slice(0, 10) });
  }
  return rows;
}
