import { resolveConfig } from '../config/resolve';
import type { BrowserSDKConfig, ResolvedConfig } from '../config/types';
import type { Originals, DebugLog } from '../core/core';
import { createDebugLog } from '../core/debug';
import type { Integration } from '../core/integration';
import { integrationList, setupIntegrations } from '../core/integration-list';
import { captureOriginals } from '../core/originals';
import { createTeardown, type TeardownList } from '../core/teardown';
import { readTestContext, underTest } from '../core/test-context';
import type { Attributes, BrowserSDK } from '../core/types';
import { onPageHidden } from '../pipeline/page-lifecycle';
import type { ReplayIntegration } from '../replay/integration';
import { createCore } from './create-core';
import { defaultIntegrations } from './default-integrations';
import { createNoopSDK } from './noop';
import { createSdkObject } from './sdk-object';
import { exposeToTest } from './test-handle';

/** Where the running instance lives: one per page, even when two copies of the SDK are bundled. */
const INSTANCE = Symbol.for('svc.browser.sdk');

interface Running {
  readonly sdk: BrowserSDK;
  readonly config: ResolvedConfig;
}

const slot = globalThis as { [INSTANCE]?: Running };

/** The running SDK instance, if `initBrowserSDK` (or the `/auto`, `/react` or script-tag entry) started one. */
export function getSDK(): BrowserSDK | undefined {
  const started = slot[INSTANCE];
  return started?.sdk;
}

/**
 * Starts the SDK: call it once, at application start, before any user interaction (SPEC 2.9). It never throws:
 * invalid options fall back to their defaults (reported when `debug` is on); a second call returns the running
 * instance unchanged, with a debug warning; where there is no `window` (SSR, Node) it returns an SDK object that
 * does nothing. The `integrations` option changes which signals start (docs/sdk.md "Integrations").
 */
export function initBrowserSDK(config: BrowserSDKConfig): BrowserSDK {
  return initWith(config, defaultIntegrations);
}

/**
 * `initBrowserSDK` with no default integration: only those of the `integrations` option start (an array, or a
 * function given `[]`), and a bundler leaves the code of every other signal out of the app (docs/sdk.md
 * "Integrations").
 */
export function initWithoutDefaultIntegrations(config: BrowserSDKConfig): BrowserSDK {
  return initWith(config, () => []);
}

function initWith(config: BrowserSDKConfig, defaults: () => Integration[]): BrowserSDK {
  const running = slot[INSTANCE];
  if (running !== undefined) {
    createDebugLog(running.config.debug, captureOriginals().console).warn(
      'initBrowserSDK was called again; the SDK is already running, so the new options are ignored and the running instance is returned.',
    );
    return running.sdk;
  }
  if (typeof window === 'undefined' || typeof document === 'undefined') return createNoopSDK();
  const originals = captureOriginals();
  const warnings: string[] = [];
  const test = readTestContext();
  const resolved = resolveConfig(config, (message) => warnings.push(message));
  const debug = createDebugLog(resolved.debug, originals.console);
  for (const warning of warnings) debug.warn(warning);
  if (resolved.apiKey === undefined || resolved.serviceName === undefined) {
    debug.error('the SDK is not started: "apiKey" and "serviceName" are required.');
    return createNoopSDK();
  }
  try {
    const running = test ? underTest(resolved) : resolved;
    const sdk = start(running, test, originals, debug, defaults());
    slot[INSTANCE] = { sdk, config: running };
    return sdk;
  } catch (error) {
    debug.error('the SDK could not start', error);
    return createNoopSDK();
  }
}

function start(
  config: ResolvedConfig,
  test: Attributes | undefined,
  originals: Originals,
  debug: DebugLog,
  defaults: Integration[],
): BrowserSDK {
  const teardown = createTeardown(debug);
  try {
    return wire(config, test, originals, debug, teardown, defaults);
  } catch (error) {
    // A start that failed halfway must not leave half of its patches and listeners in the app.
    teardown.run();
    throw error;
  }
}

function wire(
  config: ResolvedConfig,
  test: Attributes | undefined,
  originals: Originals,
  debug: DebugLog,
  teardown: TeardownList,
  defaults: Integration[],
): BrowserSDK {
  const list = integrationList(defaults, config.integrations, debug);
  // The replay integration brings the timeline's code; the core starts it, before any integration writes to it.
  const replayListed = list.find((integration) => (integration as Partial<ReplayIntegration>).timeline_);
  const startTimeline = replayListed && (replayListed as ReplayIntegration).timeline_;
  const { core, pipeline, replay, identity } = createCore(config, test, originals, debug, teardown, startTimeline);
  setupIntegrations(list, core);
  // Bubble phase on window (page-lifecycle.ts): web-vitals' capture-phase listeners queue the final CLS and INP first.
  // Telemetry before replay: both share the browser's 64 KiB keepalive quota, and a page that closes with more
  // queued than that keeps what was handed over first.
  onPageHidden(teardown.listen, () => {
    pipeline.flushForUnload();
    replay.flushForUnload();
  });
  if (test) exposeToTest(core, pipeline, replay);
  return createSdkObject({
    core,
    identity,
    pipeline,
    replay,
    teardown,
    stopped: (sdk) => {
      const started = slot[INSTANCE];
      if (started?.sdk === sdk) delete slot[INSTANCE];
    },
  });
}
