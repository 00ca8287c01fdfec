import type { BrowserSDKConfig } from './types';
import { readEnvConfig, type EnvConfig } from './env';

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
  if (env.debug) options.debug = true;
  return { ...options, ...overrides } as BrowserSDKConfig;
}

/** `VITE_SVC_X`, `NEXT_PUBLIC_SVC_X` or `REACT_APP_SVC_X`: the three spellings of one variable, for warnings. */
const spellings = (name: string): string => `VITE_SVC_${name}, NEXT_PUBLIC_SVC_${name} or REACT_APP_SVC_${name}`;

/**
 * `[kind, message]` of each setting a zero-config start lacks: the key (nothing is sent without it) and the ingest
 * address (without it telemetry goes to the page's own origin; a variable set to `/` says that is intended).
 */
export function envWarnings(env: EnvConfig): Array<[string, string]> {
  const warnings: Array<[string, string]> = [];
  if (env.apiKey === undefined) {
    warnings.push([
      'env-key',
      `no API key: set ${spellings('API_KEY')} to an ingest key ("svc-server keys create --scope ingest"); nothing is sent until then.`,
    ]);
  }
  if (env.ingestUrl === undefined) warnings.push(['env-url', noIngestUrl(spellings('INGEST_URL'))]);
  return warnings;
}

/** The warning of a zero-config start without an ingest address, `setting` naming where to give it. */
export const noIngestUrl = (setting: string): string =>
  `no ingest URL: set ${setting} to svc-server's address ("/" if it serves this origin); until then telemetry goes to this page's origin.`;
