import { resolveConfig } from '../config/resolve';
import type { BrowserSDKConfig, ResolvedConfig, User } from '../config/types';
import type { TelemetryItem } from '../pipeline/items';
import { onPageHidden } from '../pipeline/page-lifecycle';
import { createPipeline } from '../pipeline/pipeline';
import type { Pipeline } from '../pipeline/types';
import { startReplayTimeline, type ReplayTimeline } from '../replay/timeline';
import { sessionSampling } from '../session/sampling';
import { createSessionTracker } from '../session/session';
import { startConsole } from '../signals/console';
import { startErrors } from '../signals/errors';
import { createLogger } from '../signals/logs';
import { createMetricRecorder } from '../signals/metrics';
import { startNavigation } from '../signals/navigation';
import { createRouteHistory } from '../signals/routes';
import { startVitals } from '../signals/vitals';
import { createTracedFetch } from '../tracing/fetch';
import { startTracing } from '../tracing/provider';
import { SDK_NAME, SDK_VERSION } from '../version';
import type { SdkCore } from './core';
import { createDebugLog } from './debug';
import { createItemFilter } from './filters';
import { createIdentity, NO_IDENTITY } from './identity';
import { ingestUrls } from './ingest-urls';
import { createNoopSDK } from './noop';
import { captureOriginals } from './originals';
import { patchMethod } from './patch';
import { createTeardown, type TeardownList } from './teardown';
import { readTestContext, testOwner, underTest } from './test-context';
import type { Attributes, BrowserSDK, CallContext, LogLevel } from './types';

/** Where the running instance lives: one per page, even when two copies of the SDK are bundled. */
const INSTANCE = Symbol.for('svc.browser.sdk');

interface Running {
  readonly sdk: BrowserSDK;
  readonly config: ResolvedConfig;
}

/** Requests answered during a wait: with a 2xx, and otherwise. */
interface Answered {
  sent: number;
  failed: number;
}

/** What @svc/playwright's fixture calls at the end of a test (docs/sdk.md "Under @svc/playwright"). */
interface TestHandle {
  readonly sessionId: string;
  flush(): Promise<Answered>;
  drain(): { apiKey: string; base: string; requests: Array<[path: string, body: string]>; settled: Promise<Answered> };
  send(path: string, body: string): Promise<boolean>;
}

type InstanceSlot = { [INSTANCE]?: Running; __SVC_TEST_SDK__?: TestHandle };
const slot = globalThis as InstanceSlot;

/** The running SDK instance, if `initBrowserSDK` (or the `/auto`, `/react` or script-tag entry) started one. */
export function getSDK(): BrowserSDK | undefined {
  return slot[INSTANCE]?.sdk;
}

/**
 * Starts the SDK: call it once, at application start, before any user interaction (SPEC 2.9). It never throws:
 * invalid options fall back to their defaults (reported when `debug` is on); a second call returns the running
 * instance unchanged, with a debug warning; where there is no `window` (SSR, Node) it returns an SDK object that
 * does nothing.
 */
export function initBrowserSDK(config: BrowserSDKConfig): BrowserSDK {
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
    const sdk = start(running, test, originals, debug);
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
  originals: SdkCore['originals'],
  debug: SdkCore['debug'],
): BrowserSDK {
  const teardown = createTeardown(debug);
  try {
    return wire(config, test, originals, debug, teardown);
  } catch (error) {
    // A start that failed halfway must not leave half of its patches and listeners in the app.
    teardown.run();
    throw error;
  }
}

function wire(
  config: ResolvedConfig,
  test: Attributes | undefined,
  originals: SdkCore['originals'],
  debug: SdkCore['debug'],
  teardown: TeardownList,
): BrowserSDK {
  const session = createSessionTracker(config.replay.sessionStorageKey, undefined, undefined, test && testOwner(test));
  const urls = ingestUrls(config.ingestUrl, globalThis.location?.origin);
  const sampling = (sessionId: string) => sessionSampling(sessionId, config);
  const identity = createIdentity(config.sendUserPii, debug);
  const filter = createItemFilter(config, debug);
  const pipeline = createPipeline({
    config,
    resource: {
      'telemetry.sdk.name': SDK_NAME,
      'telemetry.sdk.version': SDK_VERSION,
      'telemetry.sdk.language': 'webjs',
      ...(typeof navigator === 'undefined' ? {} : { 'user_agent.original': navigator.userAgent }),
    },
    sessionResource: (sessionId) => ({
      'svc.sample_rate': config.sampleRate,
      'svc.replay.mode': sampling(sessionId).replay,
      ...test,
    }),
    fetch: originals.fetch,
    sendBeacon: typeof navigator?.sendBeacon === 'function' ? navigator.sendBeacon.bind(navigator) : undefined,
    ingestUrl: urls.url,
    debug,
  });
  const replay = startReplayTimeline({ config, session, pipeline, debug, sampling });
  // Sampled out sessions send nothing; the others send what the filters and `beforeSend` keep, with the identity.
  const enqueue = (item: TelemetryItem): void => {
    if (!sampling(item.sessionId).sampled) return;
    const extra = identity.attributes;
    const kept = filter(
      extra === NO_IDENTITY ? item : ({ ...item, attributes: { ...extra, ...item.attributes } } as TelemetryItem),
    );
    if (kept === undefined) return;
    pipeline.enqueue(kept);
    if (kept.kind === 'log' && kept.attributes['exception.type'] !== undefined) replay.errorCaptured();
  };
  const core: SdkCore = {
    config,
    debug,
    session,
    teardown,
    originals,
    enqueue,
    replay,
    ingestUrl: urls.url,
    isIngestUrl: urls.isIngestUrl,
  };

  const logger = createLogger(core);
  const metric = createMetricRecorder(core);
  const tracer = startTracing(core);
  const baseFetch = originals.fetch;
  const tracedFetch =
    baseFetch === undefined
      ? undefined
      : createTracedFetch(core, tracer, baseFetch, (level, message, attributes) =>
          logger.log(level, message, undefined, attributes),
        );
  if (tracedFetch !== undefined && config.instrumentGlobalFetch)
    patchMethod(teardown, globalThis, 'fetch', () => tracedFetch);
  startErrors(core, logger);
  startConsole(core, logger);
  const routes = createRouteHistory();
  startVitals(core, metric, routes);
  startNavigation(core, routes);
  // Bubble phase on window (page-lifecycle.ts): web-vitals' capture-phase listeners queue the final CLS and INP first.
  // Telemetry before replay: both share the browser's 64 KiB keepalive quota, and a page that closes with more
  // queued than that keeps what was handed over first.
  onPageHidden(teardown.listen, () => {
    pipeline.flushForUnload();
    replay.flushForUnload();
  });

  if (test) exposeToTest(teardown, core, pipeline, replay);

  let stopping: Promise<void> | undefined;
  const guard =
    <A extends unknown[]>(name: string, fn: (...args: A) => void) =>
    (...args: A): void => {
      try {
        if (stopping === undefined) fn(...args);
      } catch (error) {
        debug.error(`${name} failed`, error);
      }
    };

  const sdk: BrowserSDK = {
    // Each public method passes on exactly its documented arguments: a plain-JavaScript caller's extra argument must
    // not reach the internal `extraAttributes` parameter unconverted.
    log: guard('log', (level: LogLevel, message: string, context?: CallContext) => logger.log(level, message, context)),
    captureException: guard('captureException', (error: unknown, context?: CallContext) =>
      logger.captureException(error, context),
    ),
    captureError: guard('captureError', (error: unknown, context?: CallContext) =>
      logger.captureException(error, context),
    ),
    metric: guard('metric', (name: string, value: number, unit?: string, context?: CallContext) =>
      metric(name, value, unit, context),
    ),
    instrumentFetch: () => tracedFetch ?? createNoopSDK().instrumentFetch(),
    captureReplayEvent: guard('captureReplayEvent', (type: string, payload?: unknown) => {
      if (typeof type !== 'string' || type.trim() === '') {
        debug.warn(`captureReplayEvent needs a non-empty event type, got ${typeof type}; the event is ignored.`);
        return;
      }
      replay.event(type, payload);
    }),
    flushReplay: () => replay.flush(),
    setUser: guard('setUser', (user: User) => identity.setUser(user)),
    clearUser: guard('clearUser', () => identity.clearUser()),
    setAttributes: guard('setAttributes', (attributes: Record<string, unknown>) => identity.setAttributes(attributes)),
    shutdown() {
      stopping ??= (async () => {
        teardown.run();
        await replay.stop();
        await pipeline.shutdown();
        if (slot[INSTANCE]?.sdk === sdk) delete slot[INSTANCE];
      })().catch((error: unknown) => debug.error('shutdown failed', error));
      return stopping;
    },
    get sessionId() {
      return session.id();
    },
  };
  return sdk;
}

/**
 * `globalThis.__SVC_TEST_SDK__` for a page under test, until shutdown; none of it rejects or throws.
 * - `flush()` sends everything queued (records, replay chunks, recipe steps) and resolves once each of those requests
 *   has its answer, a 2xx meaning the server committed the rows, with the requests answered meanwhile.
 * - `drain()` hands the fixture everything queued as requests to post itself (from Node.js, with none of the page's
 *   costs: CORS preflights, a new connection per browser context, compression in the page), taken out of the SDK so
 *   nothing is sent twice; `settled` resolves once the requests already under way have their answers.
 * - `send()` posts one of them the page's own way (retries, warnings), for those the fixture could not deliver.
 */
function exposeToTest(teardown: TeardownList, core: SdkCore, pipeline: Pipeline, replay: ReplayTimeline): void {
  const answered = async (work: Promise<unknown>): Promise<Answered> => {
    const [sent, failed] = pipeline.answers;
    await work;
    return { sent: pipeline.answers[0] - sent, failed: pipeline.answers[1] - failed };
  };
  // After a drain, this finds nothing left to send: it waits for what is under way.
  const flush = () => answered(Promise.all([pipeline.flush(true), replay.flush()]));
  slot.__SVC_TEST_SDK__ = {
    get sessionId() {
      return core.session.id();
    },
    flush,
    drain: () => ({
      apiKey: core.config.apiKey!,
      // Where the requests would have gone: each path is appended to it.
      base: core.ingestUrl(''),
      requests: [...pipeline.drain(), ...replay.drain()],
      settled: flush(),
    }),
    send: (path, body) => pipeline.postJson(path, body),
  };
  teardown.add(() => delete slot.__SVC_TEST_SDK__);
}
