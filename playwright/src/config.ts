/** The `svc` option of `use: { svc: {...} }` (playwright.config), every field optional: env variables fill the gaps. */
export interface SvcOptions {
  /** The svc server (ingest, API and console), e.g. `https://svc.example.com`. Env `SVC_URL`. */
  url?: string;
  /** Ingest key, for `inject` only (an app with the SDK has its own). Env `SVC_INGEST_KEY`. */
  ingestKey?: string;
  /** Control or read key for the fixture's reads (`svc.errors()`, `toHaveNoErrors`). Env `SVC_READ_KEY`, else `SVC_CONTROL_KEY`. */
  apiKey?: string;
  /**
   * Adds the script-tag SDK to every page of each test, for apps without the SDK: `true` takes `dist/cdn/svc.min.js`
   * of the installed `@svc/browser`; a string is the address of an `svc.min.js` to load instead.
   */
  inject?: boolean | string;
  /** Longest wait for a page's SDK to deliver what it queued, at the end of each test. Default 5000 ms. */
  flushTimeoutMs?: number;
  /** `service.name` of the injected SDK. Default `web-app`. */
  serviceName?: string;
}

/** The options with env variables and defaults applied. */
export interface ResolvedOptions {
  url?: string;
  ingestKey?: string;
  apiKey?: string;
  inject: false | true | string;
  flushTimeoutMs: number;
  serviceName: string;
}

export const DEFAULT_FLUSH_TIMEOUT_MS = 5_000;

type Env = Record<string, string | undefined>;

const blank = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** A base URL without its trailing slashes, so paths can be appended. */
export const trimUrl = (url: string | undefined) => blank(url)?.replace(/\/+$/, '');

/** `use.svc` over the env variables (SVC_URL, SVC_INGEST_KEY, SVC_READ_KEY or SVC_CONTROL_KEY) over the defaults. */
export function resolveOptions(options: SvcOptions | undefined, env: Env = process.env): ResolvedOptions {
  const o = options ?? {};
  const timeout = o.flushTimeoutMs;
  return {
    url: trimUrl(o.url ?? env.SVC_URL),
    ingestKey: blank(o.ingestKey ?? env.SVC_INGEST_KEY),
    apiKey: blank(o.apiKey ?? env.SVC_READ_KEY ?? env.SVC_CONTROL_KEY),
    inject: o.inject ?? false,
    flushTimeoutMs:
      typeof timeout === 'number' && Number.isFinite(timeout) && timeout >= 0 ? timeout : DEFAULT_FLUSH_TIMEOUT_MS,
    serviceName: blank(o.serviceName) ?? 'web-app',
  };
}
