import type { ProviderKind } from '../types';
import { parseAzureConfig, publicAzureConfig, type AzureConfig, type AzureSecrets } from './config';
import { lazySource } from '../lazy';

export type { AzureConfig, AzureSecrets } from './config';

/** Azure: the Cost Management Query API at a subscription, resource group, management group or billing scope. */
export const azureProvider: ProviderKind<AzureConfig, AzureSecrets> = {
  parse: parseAzureConfig,
  publicConfig: publicAzureConfig,
  source: lazySource(async () => (await import('./source')).azureBillingSource),
};
