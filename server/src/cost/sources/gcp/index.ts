import type { ProviderKind } from '../types';
import { parseGcpConfig, publicGcpConfig, type GcpConfig, type GcpSecrets } from './config';
import { lazySource } from '../lazy';

export type { GcpConfig, GcpSecrets } from './config';

/** GCP: the Cloud Billing export to BigQuery (standard or detailed usage cost table), read with a query job. */
export const gcpProvider: ProviderKind<GcpConfig, GcpSecrets> = {
  parse: parseGcpConfig,
  publicConfig: publicGcpConfig,
  source: lazySource(async () => (await import('./source')).gcpBillingSource),
};
