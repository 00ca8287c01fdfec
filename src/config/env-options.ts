import type { BrowserSDKConfig } from './types';
import { readEnvConfig } from './env';

/**
 * The options of the zero-config entries: what the build-time environment variables say, then `overrides` on top.
 * A missing `SVC_API_KEY` leaves `apiKey` undefined, and the SDK stays off rather than send without a key.
 */
export function envOptions(overrides: Partial<BrowserSDKConfig> = {}): BrowserSDKConfig {
  const env = readEnvConfig();
  const options: Partial<BrowserSDKConfig> = { serviceName: env.serviceName, env: env.env };
  if (env.apiKey !== undefined) options.apiKey = env.apiKey;
  if (env.appId !== undefined) options.appId = env.appId;
  if (env.ingestUrl !== undefined) options.ingestUrl = env.ingestUrl;
  if (env.serviceVersion !== undefined) options.serviceVersion = env.serviceVersion;
  return { ...options, ...overrides } as BrowserSDKConfig;
}
