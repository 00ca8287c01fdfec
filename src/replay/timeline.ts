import { REPLAY_LIMITS, type RecipeStep, type ReplayChunk } from '../../wire/replay';
import type { ResolvedConfig } from '../config/types';
import type { Pipeline } from '../pipeline/types';
import type { DebugLog, ReplaySink, SessionTracker } from '../sdk/core';
import { randomHexId } from '../session/ids';
import { encodeEvents } from './encode';
import { loadRecorder } from './load-recorder';
import type { RecordedEvent, StopRecording } from './types';

/** rrweb's event type for custom events; SDK timeline events (network, navigation, custom) are stored as these. */
const RRWEB_CUSTOM_EVENT = 5;

export interface ReplayTimeline extends ReplaySink {
  /** Page hidden: sends what is buffered with the unload transport (no compression: it would not finish in time). */
  flushForUnload(): void;
  stop(): Promise<void>;
}

interface Deps {
  readonly config: ResolvedConfig;
  readonly session: SessionTracker;
  readonly pipeline: Pick<Pipeline, 'postJson'>;
  readonly debug: DebugLog;
}

/**
 * The replay timeline: SDK events and, when `replay.enabled`, rrweb's recording, buffered and sent as chunks every
 * `replay.flushIntervalMs` or as soon as `replay.maxChunkBytes` are buffered; recipe steps are sent alongside, at
 * most `REPLAY_LIMITS.maxRecipeSteps` per request. A session rotation closes the replay and starts a new one (new
 * id, `seq` from 0, a fresh full snapshot).
 *
 * Memory is bounded: events beyond twice `maxChunkBytes` that could not be sent are dropped oldest first, recipe
 * steps beyond one request's worth likewise.
 *
 * With `replay.enabled: false` nothing of the replay is kept or sent: no recording, no timeline events, no recipes.
 */
export function startReplayTimeline({ config, session, pipeline, debug }: Deps): ReplayTimeline {
  const { replay: options } = config;
  if (!options.enabled) return disabledTimeline();
  // The same identity the OTLP resources carry: the pinned canonical app name when given.
  const serviceName = config.appId ?? config.serviceName;
  let replayId = randomHexId();
  let sessionId = session.id();
  let seq = 0;
  let events: RecordedEvent[] = [];
  let sizes: number[] = [];
  let bytes = 0;
  let recipes: RecipeStep[] = [];
  let stopRecording: StopRecording | undefined;
  let stopped = false;

  const take = () => {
    const taken = { events, recipes, replayId, sessionId, seq };
    if (events.length > 0) seq += 1;
    events = [];
    sizes = [];
    bytes = 0;
    recipes = [];
    return taken;
  };

  const send = async (unloading: boolean): Promise<void> => {
    if (serviceName === undefined) return;
    const batch = take();
    if (batch.events.length > 0) {
      const json = JSON.stringify(batch.events);
      const payload = unloading ? { encoding: 'json' as const, data: json } : await encodeEvents(json);
      const chunk: ReplayChunk = {
        serviceName,
        sessionId: batch.sessionId,
        replayId: batch.replayId,
        seq: batch.seq,
        startTs: batch.events[0]?.timestamp ?? 0,
        endTs: batch.events[batch.events.length - 1]?.timestamp ?? 0,
        eventCount: batch.events.length,
        ...payload,
      };
      await pipeline.postJson('/ingest/replay/chunk', JSON.stringify(chunk), unloading);
    }
    if (batch.recipes.length > 0) {
      const body = { serviceName, sessionId: batch.sessionId, replayId: batch.replayId, steps: batch.recipes };
      await pipeline.postJson('/ingest/replay/recipes', JSON.stringify(body), unloading);
    }
  };

  const flush = (): Promise<void> =>
    send(false).catch((error: unknown) => debug.error('replay flush failed', error));

  const push = (event: RecordedEvent): void => {
    if (stopped) return;
    const size = JSON.stringify(event).length;
    events.push(event);
    sizes.push(size);
    bytes += size;
    while (bytes > options.maxChunkBytes * 2 && events.length > 1) {
      events.shift();
      bytes -= sizes.shift() ?? 0;
    }
    if (bytes >= options.maxChunkBytes) void flush();
  };

  const startRecorder = (): void => {
    if (stopped || typeof document === 'undefined') return;
    loadRecorder()
      .then((start) => {
        if (stopped) return;
        stopRecording = start(options, (event) => push(event));
      })
      .catch((error: unknown) => debug.error('session replay could not start', error));
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs);
  const unsubscribe = session.onRotate((id) => {
    void flush();
    stopRecording?.();
    stopRecording = undefined;
    sessionId = id;
    replayId = randomHexId();
    seq = 0;
    startRecorder();
  });
  // After start-up work, so loading and starting rrweb never competes with the page's first render.
  setTimeout(startRecorder, 0);

  return {
    get replayId() {
      return replayId;
    },
    event(type, payload) {
      push({ type: RRWEB_CUSTOM_EVENT, timestamp: Date.now(), data: { tag: type, payload } });
    },
    recipe(step) {
      if (stopped) return;
      recipes.push(step);
      if (recipes.length >= REPLAY_LIMITS.maxRecipeSteps) void flush();
    },
    flush,
    flushForUnload() {
      void send(true).catch((error: unknown) => debug.error('replay flush failed', error));
    },
    async stop() {
      clearInterval(timer);
      unsubscribe();
      stopRecording?.();
      await flush();
      stopped = true;
    },
  };
}

function disabledTimeline(): ReplayTimeline {
  const nothing = (): void => undefined;
  return {
    replayId: randomHexId(),
    event: nothing,
    recipe: nothing,
    flush: () => Promise.resolve(),
    flushForUnload: nothing,
    stop: () => Promise.resolve(),
  };
}
