import type { BillingSource } from '../model';
import type { ProviderKind, SourceEnv } from './types';

/**
 * A provider's source whose module (and its cloud's client library) loads with the first read. Together the AWS,
 * Google and Azure clients cost every server start-up about a second, and most servers read no cloud's bills.
 */
export function lazySource<C, S>(load: () => Promise<ProviderKind<C, S>['source']>): ProviderKind<C, S>['source'] {
  return (config: C, secrets: S, env: SourceEnv): BillingSource => {
    let source: Promise<BillingSource> | undefined;
    return {
      async *read(period, signal) {
        source ??= load().then((make) => make(config, secrets, env));
        yield* (await source).read(period, signal);
      },
    };
  };
}
