/**
 * Browser entry for the signal tests: the signal modules on a minimal SdkCore whose queue and replay timeline are
 * arrays in the page (`window.__svcItems`, `window.__svcReplay`), so a test can assert each record exactly as a signal
 * made it, before any encoder or transport. Built to an IIFE with esbuild by the spec.
 */
import { context, trace, TraceFlags } from '@opentelemetry/api';
import { StackContextManager } from '@opentelemetry/sdk-trace-web';
import { resolveConfig } from '../../../src/config/resolve';
import type { BrowserSDKConfig } from '../../../src/config/types';
import type { TelemetryItem } from '../../../src/pipeline/items';
import type { SdkCore } from '../../../src/sdk/core';
import { createDebugLog } from '../../../src/sdk/debug';
import { captureOriginals } from '../../../src/sdk/originals';
import { createTeardown } from '../../../src/sdk/teardown';
import { createSessionTracker } from '../../../src/session/session';
import { startConsole } from '../../../src/signals/console';
import { startErrors } from '../../../src/signals/errors';
import { createLogger, type Logger } from '../../../src/signals/logs';
import { createMetricRecorder, type MetricRecorder } from '../../../src/signals/metrics';
import { startNavigation } from '../../../src/signals/navigation';
import { startVitals } from '../../../src/signals/vitals';

export interface ReplayRecord {
  type: string;
  payload: unknown;
}

export interface Harness {
  /** Starts every signal as `initBrowserSDK` does, with `options` on top of a minimal valid configuration. */
  start(options?: Partial<BrowserSDKConfig>): void;
  logger: Logger | undefined;
  metric: MetricRecorder | undefined;
  sessionId: string | undefined;
  /** Runs the teardown, as `shutdown()` does. */
  stop(): void;
  /** Runs `work` with a span of these ids active, as the tracing of the real SDK makes one active. */
  withSpan(traceId: string, spanId: string, work: () => void): void;
}

declare global {
  interface Window {
    __svcItems: TelemetryItem[];
    /** What the previous page of this tab recorded, saved when it was hidden for good (`pagehide`). */
    __svcPrevious: { items: TelemetryItem[]; replay: ReplayRecord[] } | null;
    __svcReplay: ReplayRecord[];
    __svc: Harness;
    /** Makes the queue throw, to check that a failing SDK never throws into the app. */
    __svcBreakQueue: boolean;
  }
}

const PREVIOUS_KEY = 'svc-harness-previous';
window.__svcItems = [];
window.__svcReplay = [];
window.__svcBreakQueue = false;
window.__svcPrevious = JSON.parse(sessionStorage.getItem(PREVIOUS_KEY) ?? 'null') as Window['__svcPrevious'];
sessionStorage.removeItem(PREVIOUS_KEY);
// Web Vitals finalises CLS and INP in a capture listener on window, which runs before this one on document. Leaving
// the page fires pagehide first and visibilitychange after it, so this is the last moment of the page.
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'hidden') return;
  sessionStorage.setItem(PREVIOUS_KEY, JSON.stringify({ items: window.__svcItems, replay: window.__svcReplay }));
});
context.setGlobalContextManager(new StackContextManager().enable());

let stop = (): void => undefined;

window.__svc = {
  logger: undefined,
  metric: undefined,
  sessionId: undefined,
  start(options = {}) {
    const originals = captureOriginals();
    const config = resolveConfig({ apiKey: 'harness-key', serviceName: 'web-app', debug: true, ...options });
    const debug = createDebugLog(config.debug, originals.console);
    const teardown = createTeardown(debug);
    const session = createSessionTracker(config.replay.sessionStorageKey);
    const core: SdkCore = {
      config,
      debug,
      session,
      teardown,
      originals,
      enqueue: (item) => {
        if (window.__svcBreakQueue) throw new Error('queue broken on purpose');
        window.__svcItems.push(item);
      },
      replay: {
        event: (type, payload) => window.__svcReplay.push({ type, payload }),
        recipe: () => undefined,
        replayId: 'harness-replay',
        flush: () => Promise.resolve(),
      },
      ingestUrl: (path) => `http://ingest.invalid${path}`,
      isIngestUrl: (url) => url.startsWith('http://ingest.invalid'),
    };
    const logger = createLogger(core);
    startErrors(core, logger);
    startConsole(core, logger);
    const metric = createMetricRecorder(core);
    startVitals(core, metric);
    startNavigation(core);
    this.logger = logger;
    this.metric = metric;
    this.sessionId = session.id();
    stop = () => teardown.run();
  },
  stop() {
    stop();
  },
  withSpan(traceId, spanId, work) {
    const active = trace.setSpanContext(context.active(), { traceId, spanId, traceFlags: TraceFlags.SAMPLED });
    context.with(active, work);
  },
};
