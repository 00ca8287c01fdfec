import type { ProviderKind } from '../types';
import { parseAwsConfig, publicAwsConfig, type AwsConfig, type AwsSecrets } from './config';
import { lazySource } from '../lazy';

export type { AwsConfig, AwsSecrets } from './config';

/** AWS: Cost and Usage Reports (legacy), CUR 2.0 and FOCUS Data Exports in S3, read with an assumed read-only role. */
export const awsProvider: ProviderKind<AwsConfig, AwsSecrets> = {
  parse: parseAwsConfig,
  publicConfig: publicAwsConfig,
  source: lazySource(async () => (await import('./source')).awsBillingSource),
};
