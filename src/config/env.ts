/**
 * Zero-config settings for the `/auto` entry, read from build-time environment variables (SPEC 2.9 "Environment
 * variables") under the prefixes the common frameworks expose to browser code: `VITE_`, `NEXT_PUBLIC_`, `REACT_APP_`.
 *
 * Bundlers do not give the browser a real environment: they substitute text at build time, and only for exact
 * expressions. Vite replaces `import.meta.env.VITE_X`; Next.js and Create React App replace `process.env.NEXT_PUBLIC_X`
 * and `process.env.REACT_APP_X`. So every variable below is read through its own literal expression: building the
 * name dynamically, destructuring `process.env` or aliasing `import.meta.env` would leave nothing for the bundler to
 * replace. Each read sits in a try/catch rather than behind a `typeof process` guard, because the guard survives the
 * substitution (`typeof process !== 'undefined' && "key"`) and turns a correctly inlined value into `false` in
 * browsers where `process` does not exist. What is left unreplaced fails harmlessly: `process` is undefined in the
 * browser, and `import.meta.env` is undefined in Node and in our CJS/IIFE builds (see rollup.config.mjs).
 */

import { readTestContext } from '../core/test-context';

/** `import.meta` as Vite shapes it. Kept local: augmenting the global `ImportMeta` would clash with `vite/client`. */
interface ViteImportMeta {
  readonly env: Readonly<Record<string, string | undefined>>;
}

// Module-scoped on purpose: browser projects have no @types/node, and this must not declare a global for them.
declare const process: { readonly env: Readonly<Record<string, string | undefined>> };

type Read = () => string | undefined;

/** The variables one framework exposes, each as a literal read. */
interface EnvSource {
  readonly apiKey: Read;
  readonly serviceName: Read;
  readonly appId: Read;
  readonly env: Read;
  readonly ingestUrl: Read;
  readonly serviceVersion: Read;
  readonly debug: Read;
}

/** Values found under one prefix; absent and blank variables are `undefined`. */
export interface EnvValues {
  readonly apiKey?: string | undefined;
  readonly serviceName?: string | undefined;
  readonly appId?: string | undefined;
  readonly env?: string | undefined;
  readonly ingestUrl?: string | undefined;
  readonly serviceVersion?: string | undefined;
  readonly debug?: string | undefined;
}

/**
 * Settings read from the environment by {@link readEnvConfig}. `apiKey` is `undefined` when `SVC_API_KEY` is set under
 * none of the prefixes; the SDK then stays silent instead of sending unauthenticated telemetry.
 */
export interface EnvConfig {
  /** `SVC_API_KEY`. */
  readonly apiKey: string | undefined;
  /** `SVC_SERVICE_NAME`, default `web-app`. */
  readonly serviceName: string;
  /** `SVC_APP_ID`. */
  readonly appId: string | undefined;
  /** `SVC_ENV`, else `test` in a Playwright test under @svc/playwright, else `NODE_ENV`, else `production`. */
  readonly env: string;
  /** `SVC_INGEST_URL`, passed to the `ingestUrl` option (validated there). */
  readonly ingestUrl: string | undefined;
  /** `SVC_SERVICE_VERSION`: the release (`service.version`), by which issues tell their first and last release. */
  readonly serviceVersion: string | undefined;
  /** `SVC_DEBUG`: `true` when it is `true` or `1`, else undefined (the `debug` option's default applies). */
  readonly debug: true | undefined;
}

const DEFAULT_SERVICE_NAME = 'web-app';
const DEFAULT_ENV = 'production';

const VITE: EnvSource = {
  apiKey: () => (import.meta as unknown as ViteImportMeta).env.VITE_SVC_API_KEY,
  serviceName: () => (import.meta as unknown as ViteImportMeta).env.VITE_SVC_SERVICE_NAME,
  appId: () => (import.meta as unknown as ViteImportMeta).env.VITE_SVC_APP_ID,
  env: () => (import.meta as unknown as ViteImportMeta).env.VITE_SVC_ENV,
  ingestUrl: () => (import.meta as unknown as ViteImportMeta).env.VITE_SVC_INGEST_URL,
  serviceVersion: () => (import.meta as unknown as ViteImportMeta).env.VITE_SVC_SERVICE_VERSION,
  debug: () => (import.meta as unknown as ViteImportMeta).env.VITE_SVC_DEBUG,
};

const NEXT: EnvSource = {
  apiKey: () => process.env.NEXT_PUBLIC_SVC_API_KEY,
  serviceName: () => process.env.NEXT_PUBLIC_SVC_SERVICE_NAME,
  appId: () => process.env.NEXT_PUBLIC_SVC_APP_ID,
  env: () => process.env.NEXT_PUBLIC_SVC_ENV,
  ingestUrl: () => process.env.NEXT_PUBLIC_SVC_INGEST_URL,
  serviceVersion: () => process.env.NEXT_PUBLIC_SVC_SERVICE_VERSION,
  debug: () => process.env.NEXT_PUBLIC_SVC_DEBUG,
};

const CRA: EnvSource = {
  apiKey: () => process.env.REACT_APP_SVC_API_KEY,
  serviceName: () => process.env.REACT_APP_SVC_SERVICE_NAME,
  appId: () => process.env.REACT_APP_SVC_APP_ID,
  env: () => process.env.REACT_APP_SVC_ENV,
  ingestUrl: () => process.env.REACT_APP_SVC_INGEST_URL,
  serviceVersion: () => process.env.REACT_APP_SVC_SERVICE_VERSION,
  debug: () => process.env.REACT_APP_SVC_DEBUG,
};

/**
 * `NODE_ENV` as webpack-based frameworks inline it, then Vite's equivalent: Vite defines `process.env.NODE_ENV` only
 * in production builds, and in its dev server `import.meta.env.MODE` is the only place the mode is visible.
 */
const NODE_ENV_READS: readonly Read[] = [
  () => process.env.NODE_ENV,
  () => (import.meta as unknown as ViteImportMeta).env.MODE,
];

/** Runs one literal read; anything that throws or is not a non-blank string counts as unset. */
function attempt(read: Read): string | undefined {
  try {
    const value: unknown = read();
    if (typeof value !== 'string') return undefined;
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  } catch {
    return undefined;
  }
}

function readSource(source: EnvSource): EnvValues {
  return {
    apiKey: attempt(source.apiKey),
    serviceName: attempt(source.serviceName),
    appId: attempt(source.appId),
    env: attempt(source.env),
    ingestUrl: attempt(source.ingestUrl),
    serviceVersion: attempt(source.serviceVersion),
    debug: attempt(source.debug),
  };
}

/**
 * Combines the values found under each prefix. Each variable is taken from the first source that sets it (sources
 * are in prefix order: `VITE_`, `NEXT_PUBLIC_`, `REACT_APP_`), then the defaults of SPEC 2.9 apply.
 */
export function mergeEnvValues(sources: readonly EnvValues[], nodeEnv: string | undefined): EnvConfig {
  const first = (key: keyof EnvValues): string | undefined => {
    for (const source of sources) {
      const value = source[key];
      if (value !== undefined && value.trim() !== '') return value.trim();
    }
    return undefined;
  };
  const normalisedNodeEnv = nodeEnv !== undefined && nodeEnv.trim() !== '' ? nodeEnv.trim() : undefined;
  return {
    apiKey: first('apiKey'),
    serviceName: first('serviceName') || DEFAULT_SERVICE_NAME,
    appId: first('appId'),
    env: first('env') || normalisedNodeEnv || DEFAULT_ENV,
    ingestUrl: first('ingestUrl'),
    serviceVersion: first('serviceVersion'),
    debug: /^(true|1)$/i.test(first('debug') || '') ? true : undefined,
  };
}

/**
 * Reads the SDK settings from build-time environment variables: `SVC_API_KEY`, `SVC_SERVICE_NAME` (default
 * `web-app`), `SVC_APP_ID`, `SVC_ENV` (default `test` on a page under @svc/playwright, whose test must not count as
 * the build's environment; else `NODE_ENV`, else `production`), `SVC_INGEST_URL`,
 * `SVC_SERVICE_VERSION` and `SVC_DEBUG` (`true` or `1` turns `debug` on), each under the
 * `VITE_`, `NEXT_PUBLIC_` or `REACT_APP_` prefix (first found wins, in that order). Never throws.
 */
export function readEnvConfig(): EnvConfig {
  const nodeEnv = readTestContext() ? 'test' : NODE_ENV_READS.map(attempt).find((value) => value !== undefined);
  return mergeEnvValues([readSource(VITE), readSource(NEXT), readSource(CRA)], nodeEnv);
}
