import type { ResolvedConfig } from '../config/types';
import type { DebugLog, Originals, SdkCore } from '../core/core';
import type { IntegrationCore } from '../core/integration';
import type { TeardownList } from '../core/teardown';
import { testOwner } from '../core/test-context';
import type { Attributes } from '../core/types';
import type { TelemetryItem } from '../pipeline/items';
import { createPipeline } from '../pipeline/pipeline';
import type { Pipeline } from '../pipeline/types';
import { disabledTimeline } from '../replay/disabled-timeline';
import type { ReplayIntegration } from '../replay/integration';
import type { ReplayTimeline } from '../replay/timeline';
import { sessionSampling } from '../session/sampling';
import { createSessionTracker } from '../session/session';
import { createLogger } from '../signals/logs';
import { createMetricRecorder } from '../signals/metrics';
import { createRouteHistory } from '../signals/routes';
import { SDK_NAME, SDK_VERSION } from '../version';
import { createItemFilter } from './filters';
import { createIdentity, NO_IDENTITY, type Identity } from './identity';
import { ingestUrls } from './ingest-urls';

/** The running core, and the parts of it that only the composition root (init.ts) drives. */
export interface Wired {
  readonly core: IntegrationCore;
  readonly pipeline: Pipeline;
  readonly replay: ReplayTimeline;
  readonly identity: Identity;
}

/**
 * Builds the core every integration receives: the session, the queue and its transport, the replay timeline (started
 * by `startTimeline`, the replay integration's code, when that is listed; a disabled one otherwise), the filters and
 * identity every record passes, and the shared services (logs, metrics, routes). Tracing is started by the first
 * integration that traces (tracing/tracing-for.ts).
 */
export function createCore(
  config: ResolvedConfig,
  test: Attributes | undefined,
  originals: Originals,
  debug: DebugLog,
  teardown: TeardownList,
  startTimeline: ReplayIntegration['timeline_'] | undefined,
): Wired {
  const session = createSessionTracker(config.replay.sessionStorageKey, undefined, undefined, test && testOwner(test));
  const page = globalThis.location;
  const urls = ingestUrls(config.ingestUrl, page?.origin);
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
      'svc.replay.mode': startTimeline ? sampling(sessionId).replay : 'off',
      ...test,
    }),
    fetch: originals.fetch,
    sendBeacon: typeof navigator?.sendBeacon === 'function' ? navigator.sendBeacon.bind(navigator) : undefined,
    ingestUrl: urls.url,
    debug,
  });
  const replay = startTimeline ? startTimeline({ config, session, pipeline, debug, sampling }) : disabledTimeline();
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
  const base: SdkCore = {
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
  return { core: withServices(base), pipeline, replay, identity };
}

/** The core with the services the SDK object shares with the integrations. */
function withServices(base: SdkCore): IntegrationCore {
  return {
    ...base,
    logger: createLogger(base),
    metric: createMetricRecorder(base),
    routes: createRouteHistory(),
  };
}
