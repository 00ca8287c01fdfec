/**
 * The SDK's integration list (src/core/integration-list.ts): which integrations start from the defaults and the
 * `integrations` option, the debug warnings, and that a bundler leaves out what is not listed.
 */
import { build } from 'esbuild';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { DebugLog } from '../../src/core/core';
import type { Integration, IntegrationCore } from '../../src/core/integration';
import { integrationList, setupIntegrations } from '../../src/core/integration-list';
import { defaultIntegrations } from '../../src/sdk/default-integrations';

const DEFAULT_NAMES = [
  'replay',
  'xhr',
  'documentLoad',
  'interactions',
  'fetch',
  'errors',
  'console',
  'vitals',
  'navigation',
];

function recordingDebug(): DebugLog & { warnings: string[]; errors: string[] } {
  const warnings: string[] = [];
  const errors: string[] = [];
  return {
    warnings,
    errors,
    warn: (message) => void warnings.push(message),
    error: (message) => void errors.push(message),
  };
}

const fake = (name: string, extra: Partial<Integration> = {}): Integration => ({ name, setup: () => {}, ...extra });
const names = (list: readonly Integration[]) => list.map((integration) => integration.name);

describe('integrationList', () => {
  const defaults = defaultIntegrations();

  it('starts every signal by default, each once, with no warning', () => {
    const debug = recordingDebug();
    expect(names(integrationList(defaults, undefined, debug))).toEqual(DEFAULT_NAMES);
    expect(debug.warnings).toEqual([]);
  });

  it('takes the list a function returns, given a copy of the defaults', () => {
    const debug = recordingDebug();
    const given: Integration[][] = [];
    const list = integrationList(
      defaults,
      (all) => {
        given.push(all);
        all.pop();
        return all.filter((integration) => integration.name !== 'console');
      },
      debug,
    );
    expect(names(list)).toEqual(DEFAULT_NAMES.filter((name) => name !== 'console' && name !== 'navigation'));
    expect(given[0]).not.toBe(defaults);
    expect(names(defaults)).toEqual(DEFAULT_NAMES);
    expect(debug.warnings).toEqual([]);
  });

  it('adds an array to the defaults; one with a default name replaces that default, in last place', () => {
    const debug = recordingDebug();
    const console = fake('console');
    const list = integrationList(defaults, [fake('mine'), console], debug);
    expect(names(list)).toEqual([...DEFAULT_NAMES.filter((name) => name !== 'console'), 'mine', 'console']);
    expect(list.at(-1)).toBe(console);
    expect(debug.warnings).toEqual([]);
  });

  it('keeps the later of two integrations the app listed under one name, with a warning', () => {
    const debug = recordingDebug();
    const [first, second] = [fake('mine'), fake('mine')];
    const list = integrationList(defaults, () => [first, fake('other'), second], debug);
    expect(list).toEqual([expect.objectContaining({ name: 'other' }), second]);
    expect(list[1]).toBe(second);
    expect(debug.warnings).toEqual(['integrations: "mine" is listed twice; the later one is started']);
  });

  it('leaves out what is not an integration, with a warning naming it', () => {
    const debug = recordingDebug();
    const list = integrationList(
      [],
      () => [null, 'console', { name: 'half' }, fake('kept')] as unknown as Integration[],
      debug,
    );
    expect(names(list)).toEqual(['kept']);
    expect(debug.warnings).toEqual([
      'integrations: object is not an integration ({ name, setup }); left out',
      'integrations: string is not an integration ({ name, setup }); left out',
      'integrations: "half" is not an integration ({ name, setup }); left out',
    ]);
  });

  it('starts the defaults when the function throws or returns no array', () => {
    for (const option of [
      () => {
        throw new Error('boom');
      },
      () => 'console' as unknown as Integration[],
    ]) {
      const debug = recordingDebug();
      expect(names(integrationList(defaults, option, debug))).toEqual(DEFAULT_NAMES);
      expect(debug.warnings).toEqual([
        'integrations: the function must return an array; the default integrations are started',
      ]);
    }
  });

  it('drops the integrations another one replaces, with a warning', () => {
    const debug = recordingDebug();
    const list = integrationList(defaults, [fake('otel', { replaces: ['fetch', 'xhr', 'absent'] })], debug);
    expect(names(list)).toEqual([...DEFAULT_NAMES.filter((name) => name !== 'fetch' && name !== 'xhr'), 'otel']);
    expect(debug.warnings).toEqual([
      'integrations: "fetch" is replaced by "otel"',
      'integrations: "xhr" is replaced by "otel"',
    ]);
  });
});

describe('setupIntegrations', () => {
  it('sets each up in list order; one that throws is reported and the rest still start', () => {
    const debug = recordingDebug();
    const core = { debug } as unknown as IntegrationCore;
    const started: string[] = [];
    const ok = (name: string) => fake(name, { setup: (given) => void started.push(given === core ? name : '?') });
    const broken = fake('broken', {
      setup: () => {
        throw new Error('boom');
      },
    });
    setupIntegrations([ok('a'), broken, ok('b')], core);
    expect(started).toEqual(['a', 'b']);
    expect(debug.errors).toEqual(['integration "broken" could not start']);
  });
});

/** The app bundled for the browser and minified, as a bundler ships it: what it contains of the SDK. */
async function bundle(app: string): Promise<string> {
  const result = await build({
    stdin: { contents: app, resolveDir: join(__dirname, '..', '..'), loader: 'ts' },
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

describe('tree-shaking', () => {
  // A string only each integration's own code holds (its span name, metric name or message).
  const MARKERS = {
    vitals: 'web_vital_lcp_ms',
    console: '} capture',
    documentLoad: 'documentFetch',
    navigation: 'hashchange',
    errors: 'unhandledrejection',
    // Started by the integrations that trace: the OpenTelemetry API's global and the traced requests' attribute.
    tracing: 'opentelemetry.js.api',
    fetch: 'http.method',
    // The replay timeline (timeline.ts), started only with the replay integration.
    replay: 'event_too_large',
  };

  it('drops the code of every integration an app does not list', async () => {
    const all = await bundle(
      `import { initBrowserSDK } from './src/index';\ninitBrowserSDK({ apiKey: 'k', serviceName: 's' });\n`,
    );
    const errorsOnly = await bundle(
      `import { errorsIntegration, initWithoutDefaultIntegrations } from './src/index';\n` +
        `initWithoutDefaultIntegrations({ apiKey: 'k', serviceName: 's', integrations: [errorsIntegration()] });\n`,
    );
    for (const marker of Object.values(MARKERS)) expect(all, marker).toContain(marker);
    expect(errorsOnly).toContain(MARKERS.errors);
    for (const [name, marker] of Object.entries(MARKERS)) {
      if (name !== 'errors') expect(errorsOnly, `${name} (${marker}) in a bundle without it`).not.toContain(marker);
    }
    expect(errorsOnly.length).toBeLessThan(all.length - 40_000);
  }, 60_000);
});
