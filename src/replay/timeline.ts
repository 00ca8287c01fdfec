import { REPLAY_EVENT_TAGS, REPLAY_LIMITS, RRWEB_CUSTOM_EVENT } from '../../wire/replay';
import type { ResolvedConfig } from '../config/types';
import type { DebugLog, ReplaySink, SessionTracker } from '../core/core';
import { createLeftoverStore, localStorageIfAvailable, type LeftoverStorage } from '../pipeline/leftovers';
import type { Pipeline } from '../pipeline/types';
import { randomHexId } from '../session/ids';
import type { SessionSampling } from '../session/sampling';
import type { ItemKind, ReplayIdentity } from './chunk-buffer';
import { loadRecorder as loadBundledRecorder } from './load-recorder';
import { createOnErrorHold, ON_ERROR_WINDOW_MS } from './on-error-hold';
import { createRecorderLifecycle } from './recorder-lifecycle';
import { createReplayBuffers } from './replay-buffers';
import { createReplaySender } from './sender';
import type { RecordedEvent, StartRecording } from './types';
import { drainRequests, flushForUnload } from './unload';
import { disabledTimeline } from './disabled-timeline';

export interface ReplayTimeline extends ReplaySink {
  /**
   * Page hidden or closing: hands everything buffered to the browser in requests of at most ~60 KB, keeping a copy
   * in local storage of what may not get out (sent by the next page load). Synchronous, like the pipeline's.
   */
  flushForUnload(): void;
  stop(): Promise<void>;
  /**
   * Under @svc/playwright: everything buffered as `[path, body]` requests (the events as JSON, not compressed), the
   * chunks numbered as if sent now, for the fixture to post. The page is done with them. Only a session recorded in
   * full has anything to give, as only it sends as it goes.
   */
  drain(): Array<[path: string, body: string]>;
  /**
   * An error was captured. A session in on-error mode (`replay.onErrorSampleRate`) sends the replay it kept in memory
   * and records in full from then on, for the rest of the session.
   */
  errorCaptured(): void;
}

interface Deps {
  readonly config: ResolvedConfig;
  readonly session: SessionTracker;
  readonly pipeline: Pick<Pipeline, 'postJson'>;
  readonly debug: DebugLog;
  /** The sampling decision of a session. */
  readonly sampling: (sessionId: string) => SessionSampling;
  /** The recorder loader; the lazily loaded rrweb recorder unless a test passes its own. */
  readonly loadRecorder?: () => Promise<StartRecording>;
  /** Where left-behind requests are kept; `localStorage` when it is usable, unless a test passes its own. */
  readonly storage?: LeftoverStorage | undefined;
}

/**
 * Buffered replay bytes (events and recipe steps, as JSON) from which a navigation sends them at once: half the
 * browser's 64 KiB keepalive quota, which the page-leave flush shares with the telemetry queue.
 */
export const NAVIGATION_FLUSH_BYTES = 32_000;

/** rrweb's Meta event type: it opens every full snapshot. */
const RRWEB_META_EVENT = 4;

function kindOf(event: RecordedEvent): ItemKind {
  if (event.type === RRWEB_CUSTOM_EVENT) return 'custom';
  return event.type === RRWEB_META_EVENT ? 'snapshot' : 'dom';
}

const newReplay = (sessionId: string): ReplayIdentity => ({ sessionId, replayId: randomHexId(), nextSeq: 0 });

/**
 * The replay timeline: rrweb's recording (when `replay.enabled`, recorder-lifecycle.ts) and the SDK's own timeline
 * events, serialized once as they arrive, buffered (bounded, see replay-buffers.ts) and sent as chunks every
 * `replay.flushIntervalMs` or as soon as `replay.maxChunkBytes` are buffered; recipe steps likewise, at most
 * `REPLAY_LIMITS.maxRecipeSteps` per request; one sender sends them in order (sender.ts). An on-error session keeps
 * them (on-error-hold.ts) until an error. A session rotation closes the replay and starts a new one (new id, `seq`
 * from 0, a fresh full snapshot). docs/sdk-replay.md describes the caps and the unload path (unload.ts).
 *
 * With `replay.enabled: false` nothing of the replay is kept or sent: no recording, no timeline events, no recipes.
 */
export function startReplayTimeline(deps: Deps): ReplayTimeline {
  const { config, session, pipeline, debug } = deps;
  const { replay: options, appId } = config;
  // The same identity the OTLP resources carry: the pinned canonical app name when given.
  const serviceName = appId ?? config.serviceName;
  if (!options.enabled || serviceName === undefined) return disabledTimeline();
  const storage = 'storage' in deps ? deps.storage : localStorageIfAvailable();
  const leftovers = createLeftoverStore(storage, `${options.sessionStorageKey}.replay.`);
  const hold = createOnErrorHold(deps.sampling, options.sessionStorageKey);
  let replay = newReplay(session.id());
  let mode = hold.mode_(replay.sessionId);
  let stopped = false;
  const sender = createReplaySender(serviceName, pipeline, debug, leftovers, (lost) => {
    // What follows the lost chunk may depend on it: recording goes on from a new full snapshot.
    if (lost === replay) recorder.snapshot_();
  });
  // Only a session recorded in full sends as it goes; on-error mode keeps everything until an error.
  const sendPending = (): Promise<void> => sender.send_(mode === 'full' ? buffers.next_ : undefined);
  const buffers = createReplayBuffers(options.maxChunkBytes, debug, () => recorder.snapshot_(), sendPending);
  const keep = (steps: 0 | 1, value: unknown, timestamp: number, kind: ItemKind): void => {
    if (stopped || mode === 'off') return;
    const tooLarge = buffers.add_(steps, replay, value, timestamp, kind);
    // Leaving out one recorded event would break playback of everything after it.
    if (tooLarge) recorder.halt_({ reason: 'event_too_large', measured: tooLarge, limit: REPLAY_LIMITS.maxEventBytes });
  };
  const record = (event: RecordedEvent): void => keep(0, event, event.timestamp, kindOf(event));
  const load = deps.loadRecorder || loadBundledRecorder;
  const recorder = createRecorderLifecycle(load, options, debug, () => replay, record, sender);
  const startRecorder = (): void => {
    if (!stopped && mode !== 'off') recorder.start_();
  };
  const flush = (): Promise<void> => {
    recorder.dom_();
    buffers.seal_();
    return sendPending();
  };
  /** What is buffered, after the DOM changes the recorder holds back; only a session recorded in full gives it. */
  const takeAll = () => (mode === 'full' ? (recorder.dom_(), buffers.takeAll_()) : undefined);

  const timer = setInterval(() => void flush(), options.flushIntervalMs);
  const checkout = setInterval(() => {
    if (mode !== 'on_error') return;
    recorder.dom_();
    hold.window_(buffers.takeAll_());
    recorder.snapshot_(true);
  }, ON_ERROR_WINDOW_MS);
  const unsubscribe = session.onRotate((id) => {
    void flush();
    recorder.stop_();
    // What an on-error session kept goes with it: it had no error.
    if (mode === 'on_error') buffers.takeAll_();
    replay = newReplay(id);
    mode = hold.mode_(id);
    hold.window_([[], []]);
    startRecorder();
  });
  // After start-up work, so loading and starting rrweb never competes with the page's first render.
  setTimeout(startRecorder, 0);

  return {
    get replayId() {
      return replay.replayId;
    },
    event(type, payload) {
      // DOM changes held back are stamped with when they happened, which may be before now: out first, so the events
      // of a replay stay in time order.
      recorder.dom_();
      record({ type: RRWEB_CUSTOM_EVENT, timestamp: Date.now(), data: { tag: type, payload } });
      // A navigation is where a user may leave next: when much is buffered, it goes now, the normal (compressed) way,
      // so the page-leave flush carries little within the browser's 64 KiB keepalive quota. Less waits for the regular
      // flush: a request per route change of a single-page app costs main-thread time (docs/sdk-replay.md, "Unload").
      if (type === REPLAY_EVENT_TAGS.navigation && buffers.bytes_() >= NAVIGATION_FLUSH_BYTES) void flush();
    },
    recipe: (step) => keep(1, step, step.ts, 'custom'),
    flush,
    flushForUnload: () => flushForUnload(serviceName, pipeline, leftovers, sender, takeAll()),
    drain: () => drainRequests(serviceName, takeAll()),
    errorCaptured() {
      if (mode !== 'on_error' || stopped) return;
      mode = 'full';
      void sender.send_(hold.release_(replay.sessionId));
      void flush();
    },
    async stop() {
      if (stopped) return;
      clearInterval(timer);
      clearInterval(checkout);
      unsubscribe();
      recorder.stop_();
      stopped = true;
      await flush();
    },
  };
}
