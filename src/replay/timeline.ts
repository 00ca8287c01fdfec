import { INGEST_PATHS } from '../../wire/paths';
import { REPLAY_EVENT_TAGS, REPLAY_LIMITS, RRWEB_CUSTOM_EVENT } from '../../wire/replay';
import type { ResolvedConfig } from '../config/types';
import { MAX_REQUEST_BYTES } from '../pipeline/keepalive-budget';
import { splitIntoChunks } from '../pipeline/split';
import type { Pipeline } from '../pipeline/types';
import { utf8Length } from '../pipeline/utf8';
import type { DebugLog, ReplaySink, SessionTracker } from '../core/core';
import { randomHexId } from '../session/ids';
import type { ReplayMode, SessionSampling } from '../session/sampling';
import { openStore } from '../session/storage';
import { ChunkBuffer, type Dropped, type ItemKind, type PendingChunk, type ReplayIdentity } from './chunk-buffer';
import { chunkBody, eventsJson, recipesBody } from './encode';
import {
  createLeftoverStore,
  localStorageIfAvailable,
  type Leftover,
  type LeftoverStorage,
} from '../pipeline/leftovers';
import { loadRecorder as loadBundledRecorder } from './load-recorder';
import type { RecordedEvent, Recording, RecordingStopped, StartRecording } from './types';

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

/** Smallest buffer budget (see `budgetBytes`), bytes. */
const MIN_BUFFER_BYTES = 256_000;
/** A seq no chunk reaches: unload bodies are sized with it, then built with their real seq (never longer). */
const SIZING_SEQ = Number.MAX_SAFE_INTEGER;
const REPLAY_PATHS: readonly string[] = [INGEST_PATHS.replayChunk, INGEST_PATHS.replayRecipes];

/**
 * In on-error mode a full snapshot is taken this often and what came before the previous one is let go, so an error
 * sends between one and two of these periods of replay.
 */
const ON_ERROR_WINDOW_MS = 60_000;

/** rrweb's Meta event type: it opens every full snapshot. */
const RRWEB_META_EVENT = 4;

function kindOf(event: RecordedEvent): ItemKind {
  if (event.type === RRWEB_CUSTOM_EVENT) return 'custom';
  return event.type === RRWEB_META_EVENT ? 'snapshot' : 'dom';
}

/**
 * The replay timeline: rrweb's recording (when `replay.enabled`) and the SDK's own timeline events, serialized once
 * as they arrive, buffered (bounded, see chunk-buffer.ts) and sent as chunks every `replay.flushIntervalMs` or as
 * soon as `replay.maxChunkBytes` are buffered; recipe steps likewise, at most `REPLAY_LIMITS.maxRecipeSteps` per
 * request. One sender sends one request at a time, in order, so chunk numbers (`seq`) follow each other per replay
 * whatever triggers a flush, and at most one compression runs at a time. A session rotation closes the replay and
 * starts a new one (new id, `seq` from 0, a fresh full snapshot). docs/sdk-replay.md describes the caps and the unload
 * path.
 *
 * With `replay.enabled: false` nothing of the replay is kept or sent: no recording, no timeline events, no recipes.
 */
export function startReplayTimeline(deps: Deps): ReplayTimeline {
  const { config, session, pipeline, debug } = deps;
  const { replay: options } = config;
  // The same identity the OTLP resources carry: the pinned canonical app name when given.
  const serviceName = config.appId ?? config.serviceName;
  if (!options.enabled || serviceName === undefined) return disabledTimeline();
  const loadRecorder = deps.loadRecorder ?? loadBundledRecorder;
  const leftovers = createLeftoverStore(
    'storage' in deps ? deps.storage : localStorageIfAvailable(),
    `${options.sessionStorageKey}.replay.`,
  );

  let replay: ReplayIdentity = { sessionId: session.id(), replayId: randomHexId(), nextSeq: 0 };
  // A session in on-error mode that had its error records in full on its later pages too.
  const store = openStore();
  const erroredKey = `${options.sessionStorageKey}.errored`;
  const modeOf = (sessionId: string): ReplayMode => {
    const mode = deps.sampling(sessionId).replay;
    return mode === 'on_error' && store.get(erroredKey) === sessionId ? 'full' : mode;
  };
  let mode = modeOf(replay.sessionId);
  /** On-error mode: the events and recipe steps of the previous window, kept until the next one closes. */
  let held: [PendingChunk[], PendingChunk[]] = [[], []];
  let recording: Recording | undefined;
  /** The recorder's compression worker, once a recorder has started; kept after it stops, for the last chunks. */
  let encode: Recording['encode'];
  /** The recorder of the current replay was stopped, possibly while it was still starting. */
  let recorderHalted = false;
  let stopped = false;
  /** The chunk the sender is posting, and the local-storage copy an unload made of it. */
  let inFlight: { chunk: PendingChunk; seq: number; savedKey?: string | undefined } | undefined;
  let sending: Promise<void> = Promise.resolve();

  let snapshotRequested = false;
  const requestSnapshot = (): void => {
    if (snapshotRequested) return;
    snapshotRequested = true;
    // Never from inside rrweb's emit: rrweb would snapshot in the middle of the event it is emitting.
    void Promise.resolve().then(() => {
      snapshotRequested = false;
      recording?.takeFullSnapshot();
    });
  };
  // Twice a chunk, so one can wait while another is retried; at least MIN_BUFFER_BYTES, so that a tiny
  // maxChunkBytes does not turn every event into a dropped chunk and a new full snapshot while sending is slow.
  const budgetBytes = Math.max(2 * options.maxChunkBytes, MIN_BUFFER_BYTES);
  const warnDropped = (what: string) => (dropped: Dropped) => {
    debug.warn(`replay buffer full (${budgetBytes} bytes): ${dropped.items} ${what} (${dropped.bytes} bytes) dropped`);
    if (dropped.needsSnapshot_) requestSnapshot();
  };
  // Items are counted with their comma in the chunk's JSON array, which adds one more byte (a bracket).
  const events = new ChunkBuffer({
    maxChunkBytes_: options.maxChunkBytes - 1,
    maxChunkItems_: REPLAY_LIMITS.maxChunkEvents,
    budgetBytes_: budgetBytes,
    playback_: true,
    onDrop_: warnDropped('events'),
  });
  const steps = new ChunkBuffer({
    maxChunkBytes_: options.maxChunkBytes - 1,
    maxChunkItems_: REPLAY_LIMITS.maxRecipeSteps,
    budgetBytes_: budgetBytes,
    playback_: false,
    onDrop_: warnDropped('recipe steps'),
  });

  const sendChunk = async (chunk: PendingChunk): Promise<void> => {
    const flight: NonNullable<typeof inFlight> = { chunk, seq: chunk.replay.nextSeq++ };
    inFlight = flight;
    try {
      // The worker's base64 gzip (node ids delta-encoded), or the events as they are, which the transport gzips.
      const events = await encode?.(chunk.items);
      const body = chunkBody(
        serviceName,
        chunk.replay,
        flight.seq,
        chunk.timestamps_,
        events ?? eventsJson(chunk.items),
        events !== undefined,
      );
      const delivered = await pipeline.postJson(INGEST_PATHS.replayChunk, body);
      if (delivered && flight.savedKey !== undefined) leftovers.remove(flight.savedKey);
      if (!delivered) {
        debug.warn(
          `replay chunk ${flight.seq} of replay ${chunk.replay.replayId} was not delivered; ingest reports the gap`,
        );
        // What follows the lost chunk may depend on it: recording goes on from a new full snapshot.
        if (chunk.replay === replay) requestSnapshot();
      }
    } finally {
      inFlight = undefined;
    }
  };

  const sendSteps = async (batch: PendingChunk): Promise<void> => {
    const delivered = await pipeline.postJson(
      INGEST_PATHS.replayRecipes,
      recipesBody(serviceName, batch.replay, batch.items),
    );
    if (!delivered)
      debug.warn(`${batch.items.length} recipe steps of replay ${batch.replay.replayId} were not delivered`);
  };

  /** Runs `task` after every request already queued: one request at a time, in order. Never rejects. */
  const afterSending = (task: () => Promise<void>): Promise<void> => {
    sending = sending.then(task).catch((error: unknown) => debug.error('replay flush failed', error));
    return sending;
  };

  // Only a session recorded in full sends as it goes; on-error mode keeps everything until an error.
  const sendPending = (): Promise<void> =>
    mode !== 'full'
      ? sending
      : afterSending(async () => {
          for (let chunk = events.next(); chunk !== undefined; chunk = events.next()) await sendChunk(chunk);
          for (let batch = steps.next(); batch !== undefined; batch = steps.next()) await sendSteps(batch);
        });

  const flush = (): Promise<void> => {
    recording?.flushDomChanges();
    events.seal();
    steps.seal();
    return sendPending();
  };

  const add = (buffer: ChunkBuffer, value: unknown, timestamp: number, kind: ItemKind): number | undefined => {
    let json: string;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      debug.warn('a replay event or recipe step could not be serialized; it is dropped', error);
      return undefined;
    }
    const bytes = utf8Length(json);
    if (bytes > REPLAY_LIMITS.maxEventBytes) return bytes;
    if (buffer.add(replay, json, bytes + 1, timestamp, kind)) void sendPending();
    return undefined;
  };

  const stopRecorder = (): void => {
    recorderHalted = true;
    recording?.stop();
    recording = undefined;
  };

  const recordingStopped = (detail: RecordingStopped): void => {
    stopRecorder();
    debug.warn(`session replay stopped recording this page (${detail.reason}); the other signals go on`);
    recordEvent({
      type: RRWEB_CUSTOM_EVENT,
      timestamp: Date.now(),
      data: { tag: REPLAY_EVENT_TAGS.recordingStopped, payload: detail },
    });
  };

  function recordEvent(event: RecordedEvent): void {
    if (stopped || mode === 'off') return;
    const kind = kindOf(event);
    const tooLarge = add(events, event, event.timestamp, kind);
    if (tooLarge === undefined) return;
    if (kind === 'custom') {
      debug.warn(
        `a replay event of ${tooLarge} bytes is over the ${REPLAY_LIMITS.maxEventBytes}-byte limit; it is dropped`,
      );
    } else {
      // Leaving out one recorded event would break playback of everything after it.
      recordingStopped({ reason: 'event_too_large', measured: tooLarge, limit: REPLAY_LIMITS.maxEventBytes });
    }
  }

  const startRecorder = (): void => {
    const identity = replay;
    recorderHalted = false;
    if (mode === 'off') return;
    loadRecorder()
      .then((start) => {
        if (stopped || identity !== replay || recorderHalted) return;
        const started = start(
          options,
          (event) => {
            if (identity === replay && !recorderHalted) recordEvent(event);
          },
          (detail) => {
            if (identity === replay) recordingStopped(detail);
          },
        );
        // Halted while rrweb emitted its first snapshot (an event too large to send): nothing more to record.
        encode ??= started.encode;
        if (recorderHalted) started.stop();
        else recording = started;
      })
      .catch((error: unknown) => {
        debug.error('session replay could not start', error);
        if (identity === replay && !stopped) recordingStopped({ reason: 'recorder_unavailable' });
      });
  };

  // Requests left behind by an earlier page of this origin go first, with their own replay ids and seqs.
  void afterSending(async () => {
    for (const { key, leftover } of leftovers.list()) {
      if (REPLAY_PATHS.includes(leftover.path)) await pipeline.postJson(leftover.path, leftover.body);
      // One more attempt only: a body refused twice would otherwise be sent at every page load.
      leftovers.remove(key);
    }
  });

  const unloadRequests = (): { requests: Leftover[]; flight: typeof inFlight } => {
    const requests: Leftover[] = [];
    // The chunk being posted now goes out with an ordinary request, which may not outlive the page: keep a copy.
    const flight = inFlight?.savedKey === undefined ? inFlight : undefined;
    if (flight !== undefined) {
      const body = chunkBody(
        serviceName,
        flight.chunk.replay,
        flight.seq,
        flight.chunk.timestamps_,
        eventsJson(flight.chunk.items),
      );
      requests.push({ path: INGEST_PATHS.replayChunk, body });
    }
    for (const chunk of events.takeAll_()) {
      const indices = chunk.items.map((_, i) => i);
      const encode = (seq: number) => (part: readonly number[]) =>
        chunkBody(
          serviceName,
          chunk.replay,
          seq,
          part.map((i) => chunk.timestamps_[i]!),
          eventsJson(part.map((i) => chunk.items[i]!)),
        );
      for (const part of splitIntoChunks(indices, encode(SIZING_SEQ), MAX_REQUEST_BYTES)) {
        requests.push({ path: INGEST_PATHS.replayChunk, body: encode(chunk.replay.nextSeq++)(part.items) });
      }
    }
    for (const batch of steps.takeAll_()) {
      const encode = (part: readonly string[]) => recipesBody(serviceName, batch.replay, part);
      for (const part of splitIntoChunks(batch.items, encode, MAX_REQUEST_BYTES)) {
        requests.push({ path: INGEST_PATHS.replayRecipes, body: part.body });
      }
    }
    return { requests, flight };
  };

  const timer = setInterval(() => void flush(), options.flushIntervalMs);
  const checkout = setInterval(() => {
    if (mode !== 'on_error') return;
    recording?.flushDomChanges();
    held = [events.takeAll_(), steps.takeAll_()];
    recording?.takeFullSnapshot();
  }, ON_ERROR_WINDOW_MS);
  const unsubscribe = session.onRotate((id) => {
    void flush();
    stopRecorder();
    // What an on-error session kept goes with it: it had no error.
    if (mode === 'on_error') [events, steps].forEach((buffer) => buffer.takeAll_());
    replay = { sessionId: id, replayId: randomHexId(), nextSeq: 0 };
    mode = modeOf(id);
    held = [[], []];
    startRecorder();
  });
  // After start-up work, so loading and starting rrweb never competes with the page's first render.
  setTimeout(() => {
    if (!stopped) startRecorder();
  }, 0);

  return {
    get replayId() {
      return replay.replayId;
    },
    event(type, payload) {
      // DOM changes held back are stamped with when they happened, which may be before now: out first, so the events
      // of a replay stay in time order.
      recording?.flushDomChanges();
      recordEvent({ type: RRWEB_CUSTOM_EVENT, timestamp: Date.now(), data: { tag: type, payload } });
      // A navigation is where a user may leave next: what is buffered goes now, the normal (compressed) way, so the
      // page-leave flush carries little within the browser's 64 KiB keepalive quota.
      if (type === REPLAY_EVENT_TAGS.navigation) void flush();
    },
    recipe(step) {
      if (stopped || mode === 'off') return;
      const tooLarge = add(steps, step, step.ts, 'custom');
      if (tooLarge !== undefined)
        debug.warn(
          `a recipe step of ${tooLarge} bytes is over the ${REPLAY_LIMITS.maxEventBytes}-byte limit; it is dropped`,
        );
    },
    flush,
    flushForUnload() {
      if (mode !== 'full') return;
      recording?.flushDomChanges();
      const { requests, flight } = unloadRequests();
      if (requests.length === 0) return;
      // Saved before the hand-over, because a closing page never learns whether a keepalive request got out; each
      // copy is removed as soon as its request is known to be delivered.
      const keys = leftovers.save(requests);
      requests.forEach((request, i) => {
        const key = keys[i];
        if (i === 0 && flight !== undefined) {
          flight.savedKey = key;
          return;
        }
        void pipeline.postJson(request.path, request.body, true).then(async (handedOver) => {
          // Still alive (the page was only hidden): what the browser did not take goes the ordinary way.
          const delivered = handedOver || (await pipeline.postJson(request.path, request.body));
          if (delivered && key !== undefined) leftovers.remove(key);
        });
      });
    },
    drain() {
      if (mode !== 'full') return [];
      recording?.flushDomChanges();
      return [
        ...events
          .takeAll_()
          .map((c): [string, string] => [
            INGEST_PATHS.replayChunk,
            chunkBody(serviceName, c.replay, c.replay.nextSeq++, c.timestamps_, eventsJson(c.items)),
          ]),
        ...steps
          .takeAll_()
          .map((b): [string, string] => [INGEST_PATHS.replayRecipes, recipesBody(serviceName, b.replay, b.items)]),
      ];
    },
    errorCaptured() {
      if (mode !== 'on_error' || stopped) return;
      mode = 'full';
      store.set(erroredKey, replay.sessionId);
      const [heldEvents, heldSteps] = held;
      held = [[], []];
      void afterSending(async () => {
        for (const chunk of heldEvents) await sendChunk(chunk);
        for (const batch of heldSteps) await sendSteps(batch);
      });
      void flush();
    },
    async stop() {
      if (stopped) return;
      clearInterval(timer);
      clearInterval(checkout);
      unsubscribe();
      stopRecorder();
      stopped = true;
      await flush();
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
    drain: () => [],
    errorCaptured: nothing,
    stop: () => Promise.resolve(),
  };
}
