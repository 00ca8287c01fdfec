import { awsProvider } from './aws/index';
import { azureProvider } from './azure/index';
import { gcpProvider } from './gcp/index';
import type { ProviderKind, ProviderName } from './types';

/** Every cloud a connection can read from, by the `provider` value of SPEC 2.1. */
export const providerKinds = (): Record<ProviderName, ProviderKind> => ({
  aws: awsProvider as ProviderKind,
  gcp: gcpProvider as ProviderKind,
  azure: azureProvider as ProviderKind,
});
