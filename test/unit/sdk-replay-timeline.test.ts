import { gunzipSync, gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { INGEST_PATHS } from '../../wire/paths';
import {
  REPLAY_EVENT_TAGS,
  REPLAY_LIMITS,
  undoIdDeltas,
  type RecipeBatch,
  type RecipeStep,
  type ReplayChunk,
  type ReplayChunkData,
  type ReplayChunkFields,
} from '../../wire/replay';
import { resolveConfig } from '../../src/config/resolve';
import type { ReplayOptions } from '../../src/config/types';
import { MAX_REQUEST_BYTES } from '../../src/pipeline/keepalive-budget';
import { utf8Length } from '../../src/pipeline/utf8';
import { NAVIGATION_FLUSH_BYTES, startReplayTimeline, type ReplayTimeline } from '../../src/replay/timeline';
import { sessionSampling } from '../../src/session/sampling';
import type { EncodeChunkEvents } from '../../src/replay/compression-worker';
import type { LeftoverStorage } from '../../src/pipeline/leftovers';
import { fakePipeline, memoryStorage, type Post } from '../support/replay-pipeline';
import type { EmitRecordedEvent, RecordedEvent, RecordingStoppedHandler, StartRecording } from '../../src/replay/types';

/**
 * The replay timeline's buffering and sending, with the real chunk encoding (src/replay/encode.ts) against a
 * recording pipeline whose answers each test controls. rrweb is replaced by a recorder the test drives: it emits the
 * events a test gives and, asked for a full snapshot, emits a Meta and a FullSnapshot event like rrweb does.
 */

/** A recorder the test drives in place of rrweb; with `encode`, its recordings offer that chunk encoder (a worker's). */
function fakeRecorder(encode?: EncodeChunkEvents) {
  const state = {
    emit: undefined as EmitRecordedEvent | undefined,
    onStopped: undefined as RecordingStoppedHandler | undefined,
    starts: 0,
    stops: 0,
    snapshots: 0,
    clock: 1_000,
    /** What the recorder emits when asked for the DOM changes it holds. */
    held: undefined as (() => void) | undefined,
  };
  const snapshot = () => {
    state.emit?.({ type: 4, timestamp: state.clock++, data: { href: 'https://shop.test/', width: 800, height: 600 } });
    state.emit?.({ type: 2, timestamp: state.clock++, data: { node: { type: 0, id: 1, childNodes: [] } } });
  };
  const start: StartRecording = (_options, emit, onStopped) => {
    state.starts++;
    state.emit = emit;
    state.onStopped = onStopped;
    snapshot();
    return {
      ...(encode ? { encode } : {}),
      stop: () => void state.stops++,
      takeFullSnapshot: () => {
        state.snapshots++;
        snapshot();
      },
      // Like the real window: what is held comes out once.
      flushDomChanges: () => {
        const held = state.held;
        state.held = undefined;
        held?.();
      },
    };
  };
  /** An incremental (mouse move) event of about `size` bytes. */
  const move = (size = 100) =>
    state.emit?.({ type: 3, timestamp: state.clock++, data: { source: 1, pad: 'x'.repeat(size) } });
  return { state, load: () => Promise.resolve(start), move };
}

/** A chunk as sent: its fields, `events` when they came inline (else the payload's encoding), its events. */
type SentChunk = ReplayChunkFields & {
  ids?: 'delta';
  encoding: 'events' | ReplayChunkData['encoding'];
  events: RecordedEvent[];
};

function chunkOf({ body }: Pick<Post, 'body'>): SentChunk {
  const chunk = JSON.parse(body) as ReplayChunk;
  const events = (chunk.events ??
    JSON.parse(
      chunk.encoding === 'gzip' ? gunzipSync(Buffer.from(chunk.data, 'base64')).toString('utf8') : chunk.data,
    )) as RecordedEvent[];
  if (chunk.ids === 'delta') undoIdDeltas(events);
  return { ...chunk, encoding: chunk.encoding ?? 'events', events };
}

const decodeEvents = (chunk: SentChunk): RecordedEvent[] => chunk.events;

const chunksOf = (posts: readonly Post[]): SentChunk[] =>
  posts.filter((post) => post.path === INGEST_PATHS.replayChunk).map(chunkOf);

let rotate: ((id: string) => void) | undefined;
const session = {
  id: () => 'a'.repeat(32),
  onRotate(listener: (id: string) => void) {
    rotate = listener;
    return () => void (rotate = undefined);
  },
};

const debug = { warn: vi.fn(), error: vi.fn() };
let running: { timeline: ReplayTimeline; pipeline: ReturnType<typeof fakePipeline> } | undefined;

function start(
  replay: ReplayOptions,
  storage: LeftoverStorage | undefined = memoryStorage(),
  encode?: EncodeChunkEvents,
  sampleRate = 1,
) {
  const pipeline = fakePipeline();
  const recorder = fakeRecorder(encode);
  const config = resolveConfig({
    apiKey: 'k',
    serviceName: 'shop-web',
    sampleRate,
    replay: { flushIntervalMs: 60_000, ...replay },
  });
  const sampling = (id: string) => sessionSampling(id, config);
  const timeline = startReplayTimeline({
    config,
    session,
    pipeline,
    debug,
    sampling,
    loadRecorder: recorder.load,
    storage,
  });
  running = { timeline, pipeline };
  return { pipeline, recorder, timeline };
}

/** The recorder starts after a zero-delay timer, once its (here immediate) load has resolved. */
async function recorderStarted(recorder: ReturnType<typeof fakeRecorder>): Promise<void> {
  while (recorder.state.starts === 0) await new Promise((resolve) => setTimeout(resolve, 0));
}

/** Lets promise callbacks (not timers, not compression) run. */
async function microtasks(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}

beforeEach(() => {
  debug.warn.mockReset();
  debug.error.mockReset();
});
afterEach(async () => {
  running?.pipeline.release();
  await running?.timeline.stop();
  running = undefined;
});

describe('replay chunks', () => {
  it('carry session, replay, contiguous seqs, time range and event count, the events inline, every flushIntervalMs', async () => {
    const { pipeline, recorder } = start({ flushIntervalMs: 20 });
    await recorderStarted(recorder);
    recorder.move();
    await pipeline.postsMade(1);
    recorder.move();
    recorder.move();
    await pipeline.postsMade(2);

    const chunks = chunksOf(pipeline.posts);
    expect(chunks.map((chunk) => chunk.seq)).toEqual([0, 1]);
    expect(chunks.map((chunk) => chunk.eventCount)).toEqual([3, 2]);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        serviceName: 'shop-web',
        sessionId: 'a'.repeat(32),
        replayId: running!.timeline.replayId,
        encoding: 'events',
      });
      const events = decodeEvents(chunk);
      expect(chunk.startTs).toBe(events[0]!.timestamp);
      expect(chunk.endTs).toBe(events.at(-1)!.timestamp);
    }
    expect(decodeEvents(chunks[0]!).map((event) => event.type)).toEqual([4, 2, 3]);
  });

  it("are encoded by the recorder's worker when it answers (gzip, ids: delta), sent inline when it cannot; after the recorder stopped too", async () => {
    const handed: string[][] = [];
    let workerFails = false;
    const encode: EncodeChunkEvents = async (events) => {
      handed.push([...events]);
      return workerFails ? undefined : gzipSync(`[${events.join(',')}]`).toString('base64');
    };
    const { pipeline, recorder, timeline } = start({}, memoryStorage(), encode);
    await recorderStarted(recorder);
    recorder.move();
    await timeline.flush();
    workerFails = true;
    recorder.move();
    await timeline.flush();
    workerFails = false;
    recorder.move();
    await timeline.stop();

    // Every chunk went to the worker first; the second, which it could not encode, went without it (no ids: delta).
    expect(handed.map((events) => events.length)).toEqual([3, 1, 1]);
    const chunks = chunksOf(pipeline.posts);
    expect(chunks.map((chunk) => [chunk.seq, chunk.encoding, chunk.ids, chunk.eventCount])).toEqual([
      [0, 'gzip', 'delta', 3],
      [1, 'events', undefined, 1],
      [2, 'gzip', 'delta', 1],
    ]);
    expect(chunks.flatMap(decodeEvents).map((event) => event.type)).toEqual([4, 2, 3, 3, 3]);
  });

  it(`sends what is buffered at a navigation once it is over ${NAVIGATION_FLUSH_BYTES} bytes, after the held DOM changes`, async () => {
    const { pipeline, recorder, timeline } = start({});
    await recorderStarted(recorder);
    recorder.state.held = () => recorder.move(NAVIGATION_FLUSH_BYTES);
    timeline.event('navigation', { url: 'https://shop.test/about', title: 'About', trigger: 'pushState' });
    await pipeline.postsMade(1);
    const events = decodeEvents(chunksOf(pipeline.posts)[0]!);
    // The snapshot, the DOM change the recorder held until the navigation, then the navigation.
    expect(events.map((e) => e.type)).toEqual([4, 2, 3, 5]);
  });

  it('leaves less at a navigation to the regular flush: no request per route change', async () => {
    const { pipeline, recorder, timeline } = start({});
    await recorderStarted(recorder);
    for (const path of ['/a', '/b', '/c']) {
      recorder.move();
      timeline.event('navigation', { url: `https://shop.test${path}`, title: path, trigger: 'pushState' });
    }
    await timeline.flush();
    // One chunk: had a navigation sent what was buffered, its chunk would have gone on its own.
    expect(chunksOf(pipeline.posts).map((chunk) => decodeEvents(chunk).map((e) => e.type))).toEqual([
      [4, 2, 3, 5, 3, 5, 3, 5],
    ]);
  });

  it('serializes each event once', async () => {
    const { pipeline, recorder, timeline } = start({});
    await recorderStarted(recorder);
    let serialized = 0;
    recorder.state.emit!({ type: 3, timestamp: 5, data: { toJSON: () => (serialized++, { source: 1 }) } });
    await timeline.flush();
    expect(serialized).toBe(1);
    expect(decodeEvents(chunksOf(pipeline.posts)[0]!).at(-1)).toEqual({ type: 3, timestamp: 5, data: { source: 1 } });
  });

  it('sends one request at a time, in seq order, when size-triggered flushes overlap a timer flush', async () => {
    const { pipeline, recorder, timeline } = start({ maxChunkBytes: 1_000 });
    await recorderStarted(recorder);
    pipeline.holdPosts();
    const flushed = timeline.flush();
    await pipeline.postsMade(1);
    // Each of these fills a chunk while the first request is still out (two fit the buffer's budget).
    recorder.move(900);
    recorder.move(900);
    (await pipeline.postsMade(1))[0]!.settle(true);
    (await pipeline.postsMade(2))[1]!.settle(true);
    await flushed;
    pipeline.release();
    await timeline.flush();
    expect(pipeline.maxInFlight).toBe(1);
    expect(chunksOf(pipeline.posts).map((chunk) => [chunk.seq, chunk.eventCount])).toEqual([
      [0, 2],
      [1, 1],
      [2, 1],
    ]);
  });

  it('starts a new chunk at each full snapshot and keeps chunks within maxChunkBytes unless one event is larger', async () => {
    const { pipeline, recorder, timeline } = start({ maxChunkBytes: 2_000 });
    await recorderStarted(recorder);
    recorder.move(300);
    recorder.state.emit!({ type: 3, timestamp: 9, data: { source: 0, big: 'y'.repeat(2_500) } });
    recorder.move(300);
    recorder.state.emit!({ type: 4, timestamp: 10, data: { href: 'https://shop.test/', width: 1, height: 1 } });
    await timeline.flush();
    const chunks = chunksOf(pipeline.posts);
    expect(chunks.map((chunk) => decodeEvents(chunk).map((event) => event.type))).toEqual([[4, 2, 3], [3], [3], [4]]);
    for (const chunk of chunks.filter((chunk) => chunk.eventCount > 1)) {
      expect(utf8Length(JSON.stringify(decodeEvents(chunk)))).toBeLessThanOrEqual(2_000);
    }
  });
});

describe('bounds', () => {
  it(`seals a chunk at ${REPLAY_LIMITS.maxChunkEvents} events, the most ingest takes in one chunk`, async () => {
    // Bytes allow far more small events than that.
    const { pipeline, recorder, timeline } = start({ maxChunkBytes: 1_000_000 });
    await recorderStarted(recorder);
    for (let i = 0; i < REPLAY_LIMITS.maxChunkEvents + 5; i++) recorder.move(1);
    await timeline.flush();
    const counts = chunksOf(pipeline.posts).map((chunk) => chunk.eventCount);
    expect(Math.max(...counts)).toBe(REPLAY_LIMITS.maxChunkEvents);
    // The snapshot's Meta and FullSnapshot events, then every move.
    expect(counts.reduce((a, n) => a + n, 0)).toBe(REPLAY_LIMITS.maxChunkEvents + 5 + 2);
  });

  it('drops whole chunks while sending is stalled and restarts from a new full snapshot, leaving no seq gap', async () => {
    const { pipeline, recorder, timeline } = start({ maxChunkBytes: 1_000 });
    await recorderStarted(recorder);
    pipeline.holdPosts();
    void timeline.flush();
    await pipeline.postsMade(1);
    // Chunk 0 (the first snapshot) is out; others wait until they fill the buffer (256 KB at the least).
    let moves = 0;
    while (debug.warn.mock.calls.length === 0) {
      recorder.move(900);
      moves++;
    }
    // Each move is under 1,000 bytes of JSON.
    expect(moves).toBeGreaterThan(256);
    await microtasks();
    expect(recorder.state.snapshots).toBe(1);
    expect(debug.warn).toHaveBeenCalledWith(expect.stringContaining('replay buffer full'));

    pipeline.release();
    await timeline.flush();
    const chunks = chunksOf(pipeline.posts);
    expect(chunks.map((chunk) => chunk.seq)).toEqual(chunks.map((_, i) => i));
    // After the first chunk, what was sent starts from the new full snapshot.
    expect(decodeEvents(chunks[1]!)[0]!.type).toBe(4);
  });

  it('stops recording with svc.recording_stopped when one recorded event is over REPLAY_LIMITS.maxEventBytes', async () => {
    const { pipeline, recorder, timeline } = start({});
    await recorderStarted(recorder);
    const huge = { type: 3, timestamp: 20, data: { source: 0, huge: 'z'.repeat(REPLAY_LIMITS.maxEventBytes) } };
    recorder.state.emit!(huge);
    recorder.move();
    await timeline.flush();
    expect(recorder.state.stops).toBe(1);
    const events = decodeEvents(chunksOf(pipeline.posts)[0]!);
    expect(events.map((event) => event.type)).toEqual([4, 2, 5]);
    expect(events[2]!.data).toEqual({
      tag: REPLAY_EVENT_TAGS.recordingStopped,
      payload: {
        reason: 'event_too_large',
        measured: utf8Length(JSON.stringify(huge)),
        limit: REPLAY_LIMITS.maxEventBytes,
      },
    });
    expect(debug.warn).toHaveBeenCalledWith(expect.stringContaining('event_too_large'));
  });

  it("passes on the recorder's own stop reason as svc.recording_stopped", async () => {
    const { pipeline, recorder, timeline } = start({});
    await recorderStarted(recorder);
    recorder.state.onStopped!({ reason: 'mutation_limit', measured: 10_001, limit: 10_000 });
    await timeline.flush();
    const events = decodeEvents(chunksOf(pipeline.posts)[0]!);
    expect(events.at(-1)!.data).toEqual({
      tag: REPLAY_EVENT_TAGS.recordingStopped,
      payload: { reason: 'mutation_limit', measured: 10_001, limit: 10_000 },
    });
  });

  it('drops a timeline event over the limit, and one that cannot be serialized, without stopping the recording', async () => {
    const { pipeline, recorder, timeline } = start({});
    await recorderStarted(recorder);
    timeline.event('huge', 'h'.repeat(REPLAY_LIMITS.maxEventBytes));
    timeline.event('bigint', { n: 1n });
    timeline.event('kept', { ok: true });
    await timeline.flush();
    expect(recorder.state.stops).toBe(0);
    const tags = decodeEvents(chunksOf(pipeline.posts)[0]!).flatMap((event) =>
      event.type === 5 ? [(event.data as { tag: string }).tag] : [],
    );
    expect(tags).toEqual(['kept']);
  });

  it('asks for a new full snapshot after a chunk could not be delivered; the next chunk takes the next seq', async () => {
    const { pipeline, recorder, timeline } = start({});
    await recorderStarted(recorder);
    pipeline.holdPosts();
    const flushed = timeline.flush();
    (await pipeline.postsMade(1))[0]!.settle(false);
    await flushed;
    await microtasks();
    expect(recorder.state.snapshots).toBe(1);
    pipeline.release();
    await timeline.flush();
    expect(chunksOf(pipeline.posts).map((chunk) => chunk.seq)).toEqual([0, 1]);
    expect(decodeEvents(chunksOf(pipeline.posts)[1]!)[0]!.type).toBe(4);
    expect(debug.warn).toHaveBeenCalledWith(expect.stringContaining('replay chunk 0'));
  });
});

describe('recipes', () => {
  const step = (i: number): RecipeStep => ({
    ts: i,
    method: 'GET',
    url: `https://shop.test/api/${i}`,
    requestHeaders: {},
    status: 200,
    responseHeaders: {},
    durationMs: 1,
  });

  it(`go at most ${REPLAY_LIMITS.maxRecipeSteps} steps per request, with the replay's identity`, async () => {
    const { pipeline, timeline } = start({});
    for (let i = 0; i < REPLAY_LIMITS.maxRecipeSteps + 3; i++) timeline.recipe(step(i));
    await timeline.flush();
    const batches = pipeline.posts
      .filter((post) => post.path === INGEST_PATHS.replayRecipes)
      .map((post) => JSON.parse(post.body) as RecipeBatch);
    expect(batches.map((batch) => batch.steps.length)).toEqual([REPLAY_LIMITS.maxRecipeSteps, 3]);
    expect(batches[1]).toEqual({
      serviceName: 'shop-web',
      sessionId: 'a'.repeat(32),
      replayId: timeline.replayId,
      steps: [0, 1, 2].map((i) => step(REPLAY_LIMITS.maxRecipeSteps + i)),
    });
  });
});

describe('sampling', () => {
  const marks = (posts: readonly Post[]): string[] =>
    chunksOf(posts).flatMap((chunk) =>
      decodeEvents(chunk).map((event) =>
        event.type === 4 ? 'snapshot' : String((event.data as { pad?: string }).pad ?? event.type),
      ),
    );

  it('records nothing and sends nothing for a session outside sampleRate or outside both replay rates', async () => {
    for (const [replay, sampleRate] of [
      [{}, 0],
      [{ sampleRate: 0, onErrorSampleRate: 0 }, 1],
    ] as const) {
      const { pipeline, recorder, timeline } = start(replay, memoryStorage(), undefined, sampleRate);
      timeline.event('custom', { n: 1 });
      timeline.errorCaptured();
      await timeline.stop();
      expect(recorder.state.starts).toBe(0);
      expect(pipeline.posts).toEqual([]);
    }
  });

  describe('on error', () => {
    beforeEach(() => vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] }));
    afterEach(() => vi.useRealTimers());

    it('keeps the replay in memory, sends nothing without an error, not even at page leave', async () => {
      const { pipeline, recorder, timeline } = start({ sampleRate: 0, onErrorSampleRate: 1 });
      await recorderStarted(recorder);
      recorder.move();
      timeline.event('custom', { n: 1 });
      await timeline.flush();
      timeline.flushForUnload();
      await timeline.stop();
      expect(pipeline.posts).toEqual([]);
    });

    it('sends the last one to two minutes on an error, from a full snapshot, then records in full', async () => {
      const { pipeline, recorder, timeline } = start({ sampleRate: 0, onErrorSampleRate: 1 });
      await recorderStarted(recorder);
      const mark = (pad: string) =>
        recorder.state.emit?.({ type: 3, timestamp: recorder.state.clock++, data: { source: 1, pad } });
      mark('before the kept window');
      vi.advanceTimersByTime(60_000);
      mark('first window');
      vi.advanceTimersByTime(60_000);
      mark('second window');
      await timeline.flush();
      expect(pipeline.posts).toEqual([]);

      timeline.errorCaptured();
      await timeline.flush();
      expect(marks(pipeline.posts)).toEqual(['snapshot', '2', 'first window', 'snapshot', '2', 'second window']);
      expect(chunksOf(pipeline.posts).map((chunk) => chunk.seq)).toEqual([0, 1]);

      mark('after the error');
      await timeline.flush();
      expect(marks(pipeline.posts).at(-1)).toBe('after the error');
    });
  });
});

describe('session rotation', () => {
  it('closes the replay and starts a new one with its own id, seq from 0 and a fresh recording', async () => {
    const { pipeline, recorder, timeline } = start({});
    await recorderStarted(recorder);
    const first = timeline.replayId;
    rotate!('b'.repeat(32));
    while (recorder.state.starts < 2) await new Promise((resolve) => setTimeout(resolve, 0));
    await timeline.flush();
    const chunks = chunksOf(pipeline.posts);
    expect(chunks.map((chunk) => [chunk.replayId === first, chunk.sessionId[0], chunk.seq])).toEqual([
      [true, 'a', 0],
      [false, 'b', 0],
    ]);
    expect(recorder.state.stops).toBe(1);
  });
});

describe('unload', () => {
  const step: RecipeStep = {
    ts: 1,
    method: 'GET',
    url: 'https://shop.test/',
    requestHeaders: {},
    status: 200,
    responseHeaders: {},
    durationMs: 1,
  };

  it('hands over requests of at most ~60 KB with contiguous seqs, keeping a copy of each until it is delivered', async () => {
    const storage = memoryStorage();
    const { pipeline, recorder, timeline } = start({ maxChunkBytes: 1_000_000 }, storage);
    await recorderStarted(recorder);
    for (let i = 0; i < 200; i++) recorder.move(1_000);
    for (let i = 0; i < 3; i++) timeline.recipe(step);
    pipeline.holdPosts();
    timeline.flushForUnload();

    const posts = [...pipeline.posts];
    expect(posts.every((post) => post.unloading)).toBe(true);
    for (const post of posts) expect(utf8Length(post.body)).toBeLessThanOrEqual(MAX_REQUEST_BYTES);
    const chunks = chunksOf(posts);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((chunk) => chunk.seq)).toEqual(chunks.map((_, i) => i));
    expect(chunks.every((chunk) => chunk.encoding === 'events' && chunk.ids === undefined)).toBe(true);
    expect(chunks.reduce((sum, chunk) => sum + chunk.eventCount, 0)).toBe(202);
    expect(posts.filter((post) => post.path === INGEST_PATHS.replayRecipes)).toHaveLength(1);
    expect(storage.map.size).toBe(posts.length);

    // The first two got out; the browser refused the rest, which then go the ordinary way (the page lived on).
    posts.forEach((post, i) => post.settle(i < 2));
    await pipeline.postsMade(posts.length * 2 - 2);
    const retries = pipeline.posts.slice(posts.length);
    expect(retries.every((post) => !post.unloading)).toBe(true);
    expect(retries.map((post) => post.body)).toEqual(posts.slice(2).map((post) => post.body));
    // All but the first retry are delivered: only its copy stays, for the next page load.
    retries.forEach((post, i) => post.settle(i > 0));
    await microtasks();
    expect(storage.map.size).toBe(1);
  });

  it('sends what a closed page left in storage at the next start, before new chunks, then forgets it', async () => {
    const storage = memoryStorage();
    const closed = start({ maxChunkBytes: 1_000_000 }, storage);
    await recorderStarted(closed.recorder);
    for (let i = 0; i < 100; i++) closed.recorder.move(1_000);
    closed.pipeline.holdPosts();
    closed.timeline.flushForUnload();
    const leftBehind = closed.pipeline.posts.map((post) => post.body);
    expect(storage.map.size).toBe(leftBehind.length);

    const next = start({}, storage);
    await recorderStarted(next.recorder);
    await next.timeline.flush();
    const bodies = next.pipeline.posts.map((post) => post.body);
    expect(bodies.slice(0, leftBehind.length)).toEqual(leftBehind);
    expect(chunksOf(next.pipeline.posts.slice(leftBehind.length))[0]).toMatchObject({
      replayId: next.timeline.replayId,
      seq: 0,
    });
    expect(storage.map.size).toBe(0);
  });

  it('keeps a copy of the chunk being sent by an ordinary request, under its own seq', async () => {
    const storage = memoryStorage();
    const { pipeline, recorder, timeline } = start({}, storage);
    await recorderStarted(recorder);
    pipeline.holdPosts();
    void timeline.flush();
    await pipeline.postsMade(1);
    recorder.move();
    timeline.flushForUnload();
    const saved = [...storage.map.values()].map((value) =>
      chunkOf({ body: (JSON.parse(value) as { body: string }).body }),
    );
    expect(saved.map((chunk) => chunk.seq)).toEqual([0, 1]);
    expect(decodeEvents(saved[0]!).map((event) => event.type)).toEqual([4, 2]);
    // Delivered after all: its copy goes.
    pipeline.posts[0]!.settle(true);
    await microtasks();
    expect(storage.map.size).toBe(1);
  });

  it('works without local storage', async () => {
    const { pipeline, recorder, timeline } = start({}, undefined);
    await recorderStarted(recorder);
    recorder.move();
    timeline.flushForUnload();
    expect(chunksOf(pipeline.posts).map((chunk) => chunk.seq)).toEqual([0]);
  });
});
