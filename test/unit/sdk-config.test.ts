import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { mergeEnvValues, readEnvConfig } from '../../src/config/env';
import { envOptions, envWarnings } from '../../src/config/env-options';
import { resolveConfig } from '../../src/config/resolve';
import type { BrowserSDKConfig, ResolvedConfig } from '../../src/config/types';

/** Resolves options and collects the warnings, the way the SDK does before printing them in debug mode. */
function resolveWithWarnings(options: unknown): { config: ResolvedConfig; warnings: string[] } {
  const warnings: string[] = [];
  const config = resolveConfig(options as BrowserSDKConfig, (message) => warnings.push(message));
  return { config, warnings };
}

/** Builds `{ apiKey, serviceName }` plus one option at a dotted path, e.g. `replay.sampling.input`. */
function withOption(path: string, value: unknown): Record<string, unknown> {
  const options: Record<string, unknown> = { apiKey: 'ingest-key', serviceName: 'shop-web' };
  const keys = path.split('.');
  let target = options;
  keys.slice(0, -1).forEach((key) => {
    const next: Record<string, unknown> = {};
    target[key] = next;
    target = next;
  });
  target[keys[keys.length - 1] as string] = value;
  return options;
}

function valueAt(config: ResolvedConfig, path: string): unknown {
  return path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], config);
}

/** SPEC 2.9 "Configuration options", written out independently of src/config/defaults.ts. */
const SPEC_DEFAULTS = {
  debug: false,
  flushIntervalMs: 2000,
  maxQueueSize: 1000,
  requestTimeoutMs: 5000,
  validateSemanticMetrics: false,
  instrumentGlobalFetch: true,
  ingestUrl: '',
  sampleRate: 1,
  sendUserPii: false,
  beforeSend: undefined,
  ignoreErrors: [],
  denyUrls: [],
  allowUrls: [],
  issuesFrom: [],
  persistence: true,
  replay: {
    enabled: true,
    flushIntervalMs: 5000,
    maxChunkBytes: 480000,
    captureNetworkRecipes: true,
    sessionStorageKey: 'svc_session_id',
    blockClass: 'ob-block',
    maskTextClass: 'ob-mask',
    maskAllInputs: true,
    sampling: { mousemove: true, scroll: 150, input: 'last' },
    sampleRate: 1,
    onErrorSampleRate: 0,
    networkBodies: 'redacted',
    networkBodyUrls: [],
  },
  vitals: { enabled: true, reportAllChanges: false },
  propagation: { enabled: true, headerName: 'traceparent', sessionHeaderName: 'x-svc-session-id', origins: [] },
};

describe('resolveConfig defaults', () => {
  it('fills in every SPEC 2.9 default and leaves optional identity fields unset, without warnings', () => {
    const { config, warnings } = resolveWithWarnings({ apiKey: 'ingest-key', serviceName: 'shop-web' });
    expect(warnings).toEqual([]);
    expect(config).toEqual({
      apiKey: 'ingest-key',
      serviceName: 'shop-web',
      tenantId: undefined,
      projectId: undefined,
      appId: undefined,
      env: undefined,
      serviceVersion: undefined,
      ...SPEC_DEFAULTS,
    });
  });

  it('keeps the defaults of a section whose other options are set', () => {
    const { config, warnings } = resolveWithWarnings({
      apiKey: 'k',
      serviceName: 's',
      replay: { enabled: false, sampling: { input: 'all' } },
      propagation: { headerName: 'x-trace' },
    });
    expect(warnings).toEqual([]);
    expect(config.replay).toEqual({
      ...SPEC_DEFAULTS.replay,
      enabled: false,
      sampling: { ...SPEC_DEFAULTS.replay.sampling, input: 'all' },
    });
    expect(config.propagation).toEqual({ ...SPEC_DEFAULTS.propagation, headerName: 'x-trace' });
    expect(config.vitals).toEqual(SPEC_DEFAULTS.vitals);
  });

  it('accepts every option set to a valid non-default value', () => {
    const options = {
      apiKey: 'ingest-key',
      serviceName: 'shop-web',
      tenantId: 'tenant-1',
      projectId: 'project-1',
      appId: 'shop',
      env: 'staging',
      serviceVersion: '1.4.2',
      debug: true,
      flushIntervalMs: 500,
      maxQueueSize: 50,
      requestTimeoutMs: 10000,
      validateSemanticMetrics: true,
      instrumentGlobalFetch: false,
      ingestUrl: 'https://ingest.example.com',
      sampleRate: 0.25,
      sendUserPii: true,
      beforeSend: (item: unknown) => item,
      ignoreErrors: ['ResizeObserver loop', /^ChunkLoadError/],
      denyUrls: [/\/vendor\//],
      allowUrls: ['https://shop.example.com/assets/'],
      issuesFrom: ['console', 'requests'],
      persistence: false,
      replay: {
        enabled: false,
        flushIntervalMs: 1000,
        maxChunkBytes: 1000000,
        captureNetworkRecipes: false,
        sessionStorageKey: 'my_session',
        blockClass: 'no-record',
        maskTextClass: 'private',
        maskAllInputs: false,
        sampling: { mousemove: 50, scroll: 0, input: 'all' },
        sampleRate: 0,
        onErrorSampleRate: 0.5,
        networkBodies: 'none',
        networkBodyUrls: ['https://api.partner.example', /\/graphql$/],
      },
      vitals: { enabled: false, reportAllChanges: true },
      propagation: {
        enabled: false,
        headerName: 'X-Trace',
        sessionHeaderName: 'x-session',
        origins: ['https://api.example.com', /^https:\/\/[a-z]+\.partner\.example\//],
      },
    };
    const { config, warnings } = resolveWithWarnings(options);
    expect(warnings).toEqual([]);
    expect(config).toEqual(options);
  });

  it.each([
    ['sampleRate', 1.5, 'must be a number between 0 and 1, got 1.5; using the default 1'],
    ['replay.onErrorSampleRate', -0.1, 'must be a number between 0 and 1, got -0.1; using the default 0'],
    ['replay.networkBodies', 'all', 'must be one of "redacted", "none", got "all"'],
    ['beforeSend', 'drop', 'must be a function, got "drop"'],
    ['ignoreErrors', 'Script error', 'must be an array, got "Script error"'],
  ])('rejects %s = %j with a warning naming it', (path, value, message) => {
    const { config, warnings } = resolveWithWarnings(withOption(path, value));
    expect(warnings).toEqual([expect.stringContaining(`"${path}" ${message}`)]);
    expect(valueAt(config, path)).toEqual(valueAt(resolveConfig({ apiKey: 'k', serviceName: 's' }), path));
  });

  it('keeps the valid entries of a pattern list and names each invalid one by its index', () => {
    const { config, warnings } = resolveWithWarnings(withOption('denyUrls', ['/ads/', 42, '', /tracker/]));
    expect(config.denyUrls).toEqual(['/ads/', /tracker/]);
    expect(warnings).toEqual([
      'Option "denyUrls[1]" must be a non-empty string or a RegExp, got 42; ignoring it.',
      'Option "denyUrls[2]" must be a non-empty string or a RegExp, got ""; ignoring it.',
    ]);
  });

  it('keeps the known sources of issuesFrom and names each other one by its index', () => {
    const { config, warnings } = resolveWithWarnings(withOption('issuesFrom', ['requests', 'network']));
    expect(config.issuesFrom).toEqual(['requests']);
    expect(warnings).toEqual(['Option "issuesFrom[1]" must be "console" or "requests", got "network"; ignoring it.']);
  });

  it('accepts false for replay.sampling.mousemove', () => {
    const { config, warnings } = resolveWithWarnings(withOption('replay.sampling.mousemove', false));
    expect(warnings).toEqual([]);
    expect(config.replay.sampling.mousemove).toBe(false);
  });

  it.each([
    ['https://ingest.example.com/', 'https://ingest.example.com'],
    ['http://localhost:4318///', 'http://localhost:4318'],
    ['/svc/', '/svc'],
    ['/', ''],
    ['', ''],
  ])('normalises ingestUrl %j to %j', (input, expected) => {
    const { config, warnings } = resolveWithWarnings(withOption('ingestUrl', input));
    expect(warnings).toEqual([]);
    expect(config.ingestUrl).toBe(expected);
  });

  it('returns a deeply frozen configuration', () => {
    const { config } = resolveWithWarnings({ apiKey: 'k', serviceName: 's' });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.replay)).toBe(true);
    expect(Object.isFrozen(config.replay.sampling)).toBe(true);
    expect(Object.isFrozen(config.vitals)).toBe(true);
    expect(Object.isFrozen(config.propagation)).toBe(true);
  });
});

describe('resolveConfig invalid values', () => {
  const cases: Array<[path: string, value: unknown]> = [
    ['debug', 'true'],
    ['debug', 1],
    ['debug', null],
    ['flushIntervalMs', -1],
    ['flushIntervalMs', 0],
    ['flushIntervalMs', Number.NaN],
    ['flushIntervalMs', Number.POSITIVE_INFINITY],
    ['flushIntervalMs', '2000'],
    ['flushIntervalMs', 2 ** 31],
    ['maxQueueSize', 0],
    ['maxQueueSize', -10],
    ['maxQueueSize', 1.5],
    ['maxQueueSize', Number.NaN],
    ['maxQueueSize', '1000'],
    ['requestTimeoutMs', -5000],
    ['requestTimeoutMs', Number.NaN],
    ['requestTimeoutMs', {}],
    ['validateSemanticMetrics', 'yes'],
    ['instrumentGlobalFetch', 0],
    ['ingestUrl', 42],
    ['ingestUrl', 'ftp://ingest.example.com'],
    ['ingestUrl', 'ingest.example.com'],
    ['ingestUrl', '//ingest.example.com'],
    ['ingestUrl', 'https://ingest.example.com/?key=1'],
    ['ingestUrl', 'https://ingest example.com'],
    ['replay.enabled', 'false'],
    ['replay.flushIntervalMs', -100],
    ['replay.flushIntervalMs', Number.NaN],
    ['replay.maxChunkBytes', 0],
    ['replay.maxChunkBytes', 1_000_001],
    ['replay.maxChunkBytes', 1.5],
    ['replay.maxChunkBytes', Number.NaN],
    ['replay.captureNetworkRecipes', 'no'],
    ['replay.sessionStorageKey', ''],
    ['replay.sessionStorageKey', '   '],
    ['replay.sessionStorageKey', 5],
    ['replay.blockClass', '.ob-block'],
    ['replay.blockClass', 'ob block'],
    ['replay.blockClass', ''],
    ['replay.blockClass', ['ob-block']],
    ['replay.maskTextClass', ' '],
    ['replay.maskTextClass', '.ob-mask'],
    ['replay.maskAllInputs', 'true'],
    ['replay.sampling.mousemove', -1],
    ['replay.sampling.mousemove', 'yes'],
    ['replay.sampling.mousemove', Number.NaN],
    ['replay.sampling.scroll', -1],
    ['replay.sampling.scroll', Number.NaN],
    ['replay.sampling.scroll', '150'],
    ['replay.sampling.input', 'some'],
    ['replay.sampling.input', 'ALL'],
    ['replay.sampling.input', 1],
    ['vitals.enabled', 'true'],
    ['vitals.reportAllChanges', 1],
    ['propagation.enabled', null],
    ['propagation.headerName', 'trace parent'],
    ['propagation.headerName', ''],
    ['propagation.headerName', 'x:trace'],
    ['propagation.sessionHeaderName', 'session id'],
    ['propagation.sessionHeaderName', 123],
    ['propagation.origins', 'https://api.example.com'],
    ['propagation.origins', {}],
  ];

  it.each(cases)('%s = %o warns naming the option and falls back to the default', (path, value) => {
    const { config, warnings } = resolveWithWarnings(withOption(path, value));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`"${path}"`);
    expect(warnings[0]).toContain('default');
    expect(valueAt(config, path)).toEqual(valueAt(resolveConfig({ apiKey: 'k', serviceName: 's' }), path));
  });

  it('keeps the valid entries of propagation.origins, normalised to origins, and names each invalid one', () => {
    const pattern = /partner/;
    const { config, warnings } = resolveWithWarnings(
      withOption('propagation.origins', [
        'https://API.example.com/',
        'ftp://files.example',
        pattern,
        'https://x.example/path',
        7,
      ]),
    );
    expect(config.propagation.origins).toEqual(['https://api.example.com', pattern]);
    expect(warnings).toHaveLength(3);
    expect(warnings.map((warning) => warning.split(' must')[0])).toEqual([
      'Option "propagation.origins[1]"',
      'Option "propagation.origins[3]"',
      'Option "propagation.origins[4]"',
    ]);
  });

  it('says what it got and what it uses instead', () => {
    const { warnings } = resolveWithWarnings(withOption('flushIntervalMs', -5));
    expect(warnings).toEqual([
      'Option "flushIntervalMs" must be a number of milliseconds greater than 0 and at most 2147483647, got -5; ' +
        'using the default 2000.',
    ]);
  });

  it.each([
    ['replay', true],
    ['replay', 'off'],
    ['replay.sampling', 'fast'],
    ['vitals', []],
    ['propagation', 5],
  ])('a non-object section %s = %o warns and keeps all its defaults', (path, value) => {
    const { config, warnings } = resolveWithWarnings(withOption(path, value));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`"${path}" must be an object`);
    expect(valueAt(config, path)).toEqual(valueAt(SPEC_DEFAULTS as unknown as ResolvedConfig, path));
  });

  it.each([
    ['flushInterval', 'flushInterval'],
    ['replay.sampleRates', 'replay.sampleRates'],
    ['replay.sampling.click', 'replay.sampling.click'],
    ['propagation.origin', 'propagation.origin'],
  ])('warns about the unknown option %s instead of ignoring a typo silently', (path, name) => {
    const { config, warnings } = resolveWithWarnings(withOption(path, 1000));
    expect(warnings).toEqual([`Unknown option "${name}" is ignored.`]);
    expect(config.flushIntervalMs).toBe(2000);
  });

  it.each([
    ['apiKey', undefined],
    ['apiKey', ''],
    ['apiKey', 42],
    ['serviceName', undefined],
    ['serviceName', '  '],
    ['serviceName', null],
  ])('required %s = %o warns and stays undefined (no default exists)', (key, value) => {
    const options: Record<string, unknown> = { apiKey: 'k', serviceName: 's' };
    if (value === undefined) delete options[key];
    else options[key] = value;
    const { config, warnings } = resolveWithWarnings(options);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`"${key}"`);
    expect(warnings[0]).toContain('required');
    expect(config[key as 'apiKey' | 'serviceName']).toBeUndefined();
  });

  it.each(['tenantId', 'projectId', 'appId', 'env', 'serviceVersion'])(
    'optional %s with a non-string or empty value warns and stays unset',
    (key) => {
      for (const value of [5, '', false]) {
        const { config, warnings } = resolveWithWarnings(withOption(key, value));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toContain(`"${key}"`);
        expect(config[key as 'env']).toBeUndefined();
      }
    },
  );

  it.each([null, 'ingest-key', 42, [1, 2]])('options = %o warns and resolves to the defaults', (options) => {
    const { config, warnings } = resolveWithWarnings(options);
    expect(warnings[0]).toContain('must be an object');
    expect(config.flushIntervalMs).toBe(2000);
    expect(config.apiKey).toBeUndefined();
  });

  it('treats a throwing getter as an invalid value instead of throwing', () => {
    const options = {
      apiKey: 'k',
      serviceName: 's',
      get debug(): boolean {
        throw new Error('boom');
      },
    };
    const { config, warnings } = resolveWithWarnings(options);
    expect(config.debug).toBe(false);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"debug"');
  });

  it('never throws, even for a hostile proxy', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('get');
        },
        ownKeys() {
          throw new Error('ownKeys');
        },
      },
    );
    const { config } = resolveWithWarnings(hostile);
    expect(config.replay.enabled).toBe(true);
  });

  it('uses a no-op warning handler when none is given', () => {
    expect(() => resolveConfig({ apiKey: 'k', serviceName: 's', flushIntervalMs: -1 })).not.toThrow();
  });
});

describe('mergeEnvValues precedence', () => {
  it('applies the SPEC 2.9 defaults when nothing is set', () => {
    expect(mergeEnvValues([{}, {}, {}], undefined)).toEqual({
      apiKey: undefined,
      serviceName: 'web-app',
      appId: undefined,
      env: 'production',
      ingestUrl: undefined,
      serviceVersion: undefined,
    });
  });

  it('takes each variable from the first prefix that sets it: VITE_, then NEXT_PUBLIC_, then REACT_APP_', () => {
    const vite = { apiKey: 'vite-key' };
    const next = { apiKey: 'next-key', serviceName: 'next-app', env: 'next-env' };
    const cra = {
      apiKey: 'cra-key',
      serviceName: 'cra-app',
      appId: 'cra-id',
      ingestUrl: 'https://cra.example.com',
      serviceVersion: '2.4.1',
    };
    expect(mergeEnvValues([vite, next, cra], 'development')).toEqual({
      apiKey: 'vite-key',
      serviceName: 'next-app',
      appId: 'cra-id',
      env: 'next-env',
      ingestUrl: 'https://cra.example.com',
      serviceVersion: '2.4.1',
    });
  });

  it('falls back from SVC_ENV to NODE_ENV, then to production', () => {
    expect(mergeEnvValues([{ env: 'staging' }], 'development').env).toBe('staging');
    expect(mergeEnvValues([{}], 'development').env).toBe('development');
    expect(mergeEnvValues([{}], '  ').env).toBe('production');
  });

  it('ignores blank values and trims the others', () => {
    expect(mergeEnvValues([{ apiKey: '  ' }, { apiKey: ' next-key ' }], undefined).apiKey).toBe('next-key');
  });
});

// The VITE_ reads go through `import.meta.env`, which Vite fills at transform time, so they cannot be stubbed here;
// test/integration/sdk-pack.test.ts proves them with a real Vite build of the packed SDK.
describe('readEnvConfig', () => {
  const names = ['SVC_API_KEY', 'SVC_SERVICE_NAME', 'SVC_APP_ID', 'SVC_ENV', 'SVC_INGEST_URL', 'SVC_SERVICE_VERSION'];

  beforeEach(() => {
    // Start from a clean slate whatever the developer's shell exports.
    for (const prefix of ['VITE_', 'NEXT_PUBLIC_', 'REACT_APP_']) {
      for (const name of names) vi.stubEnv(`${prefix}${name}`, '');
    }
  });

  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('reads NEXT_PUBLIC_ and REACT_APP_ variables from process.env, NEXT_PUBLIC_ first', () => {
    vi.stubEnv('NEXT_PUBLIC_SVC_API_KEY', 'next-key');
    vi.stubEnv('REACT_APP_SVC_API_KEY', 'cra-key');
    vi.stubEnv('REACT_APP_SVC_SERVICE_NAME', 'cra-app');
    vi.stubEnv('REACT_APP_SVC_INGEST_URL', 'https://ingest.example.com');
    vi.stubEnv('NEXT_PUBLIC_SVC_SERVICE_VERSION', '3.0.0');
    expect(readEnvConfig()).toMatchObject({
      apiKey: 'next-key',
      serviceName: 'cra-app',
      ingestUrl: 'https://ingest.example.com',
      serviceVersion: '3.0.0',
    });
  });

  it('defaults env to NODE_ENV and serviceName to web-app', () => {
    vi.stubEnv('NODE_ENV', 'staging');
    expect(readEnvConfig()).toMatchObject({ serviceName: 'web-app', env: 'staging', apiKey: undefined });
    vi.stubEnv('NEXT_PUBLIC_SVC_ENV', 'preview');
    expect(readEnvConfig().env).toBe('preview');
  });

  it('turns debug on when SVC_DEBUG is true or 1 under any prefix, and leaves it to the default otherwise', () => {
    for (const prefix of ['NEXT_PUBLIC_', 'REACT_APP_']) vi.stubEnv(`${prefix}SVC_DEBUG`, '');
    expect(readEnvConfig().debug).toBeUndefined();
    expect(envOptions().debug).toBeUndefined();
    vi.stubEnv('REACT_APP_SVC_DEBUG', '1');
    expect(readEnvConfig().debug).toBe(true);
    expect(envOptions().debug).toBe(true);
    vi.stubEnv('NEXT_PUBLIC_SVC_DEBUG', 'TRUE');
    expect(readEnvConfig().debug).toBe(true);
    vi.stubEnv('NEXT_PUBLIC_SVC_DEBUG', 'false');
    expect(readEnvConfig().debug).toBeUndefined();
    expect(envOptions({ debug: false }).debug).toBe(false);
  });

  it('warns about a missing key and ingest URL, naming the variables; "/" as ingest URL means same origin on purpose', () => {
    const kinds = (): string[] => envWarnings(readEnvConfig()).map(([kind]) => kind);
    expect(kinds()).toEqual(['env-key', 'env-url']);
    const [[, key], [, url]] = envWarnings(readEnvConfig()) as [[string, string], [string, string]];
    expect(key).toContain('VITE_SVC_API_KEY, NEXT_PUBLIC_SVC_API_KEY or REACT_APP_SVC_API_KEY');
    expect(url).toContain('VITE_SVC_INGEST_URL, NEXT_PUBLIC_SVC_INGEST_URL or REACT_APP_SVC_INGEST_URL');
    vi.stubEnv('NEXT_PUBLIC_SVC_API_KEY', 'key');
    vi.stubEnv('NEXT_PUBLIC_SVC_INGEST_URL', '/');
    expect(kinds()).toEqual([]);
    expect(envOptions().ingestUrl).toBe('/');
  });
});
