import type { User } from '../config/types';
import { startedTracings } from '../core/started-tracing';
import type { IntegrationCore } from '../core/integration';
import type { TeardownList } from '../core/teardown';
import type { BrowserSDK, CallContext, LogLevel } from '../core/types';
import type { Pipeline } from '../pipeline/types';
import type { ReplayTimeline } from '../replay/timeline';
import type { Identity } from './identity';
import { createNoopSDK } from './noop';

/** What the SDK object calls: the core and its services, and the parts it stops at shutdown. */
export interface SdkParts {
  readonly core: IntegrationCore;
  readonly identity: Identity;
  readonly pipeline: Pipeline;
  readonly replay: ReplayTimeline;
  readonly teardown: TeardownList;
  /** Called once shutdown has sent everything. */
  readonly stopped: (sdk: BrowserSDK) => void;
}

/**
 * The SDK object over the running core. Every method is guarded (it never throws) and does nothing once shutdown
 * has begun.
 */
export function createSdkObject({ core, identity, pipeline, replay, teardown, stopped }: SdkParts): BrowserSDK {
  const { debug, logger, metric } = core;
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
    instrumentFetch() {
      const started = startedTracings.get(core.teardown);
      const traced = started && started.tracedFetch;
      if (traced) return traced;
      debug.warn('instrumentFetch(): no integration traces; the fetch returned does not.');
      return createNoopSDK().instrumentFetch();
    },
    captureReplayEvent: guard('captureReplayEvent', (type: string, payload?: unknown) => {
      if (typeof type !== 'string' || type.trim() === '') {
        debug.warn(`captureReplayEvent needs a non-empty event type, got ${typeof type}; ignored.`);
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
        stopped(sdk);
      })().catch((error: unknown) => debug.error('shutdown failed', error));
      return stopping;
    },
    get sessionId() {
      return core.session.id();
    },
  };
  return sdk;
}
