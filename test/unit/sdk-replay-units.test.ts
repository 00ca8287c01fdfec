import { describe, expect, it, vi } from 'vitest';
import { INGEST_PATHS } from '../../wire/paths';
import { REPLAY_EVENT_TAGS, REPLAY_LIMITS, type ReplayChunk } from '../../wire/replay';
import { createLeftoverStore } from '../../src/pipeline/leftovers';
import type { PendingChunk, ReplayIdentity } from '../../src/replay/chunk-buffer';
import { createOnErrorHold } from '../../src/replay/on-error-hold';
import { createRecorderLifecycle } from '../../src/replay/recorder-lifecycle';
import { createReplayBuffers } from '../../src/replay/replay-buffers';
import { createReplaySender } from '../../src/replay/sender';
import type { EmitRecordedEvent, RecordedEvent, RecordingStoppedHandler, StartRecording } from '../../src/replay/types';
import { drainRequests, flushForUnload } from '../../src/replay/unload';
import { fakePipeline, memoryStorage } from '../support/replay-pipeline';

/** The replay timeline's units (src/replay/timeline.ts puts them together), one at a time. */

const debug = () => ({ warn: vi.fn(), error: vi.fn() });
const identity = (sessionId = 's'): ReplayIdentity => ({ sessionId, replayId: `r-${sessionId}`, nextSeq: 0 });
const chunk = (replay: ReplayIdentity, ...items: string[]): PendingChunk => ({
  replay_: replay,
  items_: items,
  timestamps_: items.map((_, i) => i + 1),
  bytes_: items.join('').length,
  hasSnapshot_: false,
});
const seqs = (bodies: readonly string[]) => bodies.map((body) => (JSON.parse(body) as ReplayChunk).seq);
/** A NextChunk over fixed lists. */
const from =
  (events: PendingChunk[], steps: PendingChunk[] = []) =>
  (i: 0 | 1) =>
    [events, steps][i]!.shift();

describe('replay sender', () => {
  const setup = () => {
    const pipeline = fakePipeline();
    const storage = memoryStorage();
    const leftovers = createLeftoverStore(storage, 'k.');
    const lost: ReplayIdentity[] = [];
    const log = debug();
    const sender = createReplaySender('shop', pipeline, log, leftovers, (replay) => lost.push(replay));
    return { pipeline, storage, leftovers, lost, log, sender };
  };

  it('sends what an earlier page left first, then chunks one at a time under contiguous seqs, then recipe steps', async () => {
    const pipeline = fakePipeline();
    const leftovers = createLeftoverStore(memoryStorage(), 'k.');
    leftovers.save_([{ path: INGEST_PATHS.replayChunk, body: 'left' }]);
    const sender = createReplaySender('shop', pipeline, debug(), leftovers, () => undefined);
    const replay = identity();
    pipeline.holdPosts();
    const sent = sender.send_(from([chunk(replay, '{"a":1}'), chunk(replay, '{"b":2}')], [chunk(replay, '{"s":1}')]));
    for (let count = 1; count <= 4; count++) {
      const posts = await pipeline.postsMade(count);
      expect(posts).toHaveLength(count);
      posts[count - 1]!.settle(true);
    }
    await sent;
    expect(pipeline.maxInFlight).toBe(1);
    expect(pipeline.posts.map((post) => post.path)).toEqual([
      INGEST_PATHS.replayChunk,
      INGEST_PATHS.replayChunk,
      INGEST_PATHS.replayChunk,
      INGEST_PATHS.replayRecipes,
    ]);
    expect(pipeline.posts[0]!.body).toBe('left');
    expect(seqs(pipeline.posts.slice(1, 3).map((post) => post.body))).toEqual([0, 1]);
    expect(leftovers.list_()).toEqual([]);
  });

  it('tells of a chunk that was not delivered and keeps numbering after it', async () => {
    const { pipeline, lost, log, sender } = setup();
    const replay = identity();
    pipeline.holdPosts();
    const sent = sender.send_(from([chunk(replay, '1'), chunk(replay, '2')]));
    (await pipeline.postsMade(1))[0]!.settle(false);
    (await pipeline.postsMade(2))[1]!.settle(true);
    await sent;
    expect(lost).toEqual([replay]);
    expect(log.warn).toHaveBeenCalledWith(expect.stringContaining('replay chunk 0'));
    expect(seqs(pipeline.posts.map((post) => post.body))).toEqual([0, 1]);
  });

  it('shows the chunk in flight, and encodes with the recorder worker once it has one', async () => {
    const { pipeline, sender } = setup();
    sender.encode_ = async (events) => `gz:${events.length}`;
    pipeline.holdPosts();
    const replay = identity();
    const sent = sender.send_(from([chunk(replay, '1', '2')]));
    await pipeline.postsMade(1);
    expect(sender.inFlight_).toMatchObject({ seq_: 0 });
    expect(JSON.parse(pipeline.posts[0]!.body)).toMatchObject({ encoding: 'gzip', ids: 'delta', data: 'gz:2' });
    pipeline.release();
    await sent;
    expect(sender.inFlight_).toBeUndefined();
  });

  it('without chunks to send, resolves once what was queued is done', async () => {
    const { pipeline, sender } = setup();
    pipeline.holdPosts();
    const first = sender.send_(from([chunk(identity(), '1')]));
    let idle = false;
    void sender.send_().then(() => (idle = true));
    await pipeline.postsMade(1);
    expect(idle).toBe(false);
    pipeline.release();
    await first;
    await sender.send_();
    expect(idle).toBe(true);
  });
});

describe('recorder lifecycle', () => {
  function fakeStart() {
    const state = {
      emit: undefined as EmitRecordedEvent | undefined,
      onStopped: undefined as RecordingStoppedHandler | undefined,
      stops: 0,
      snapshots: 0,
      domFlushes: 0,
    };
    const start: StartRecording = (_options, emit, onStopped) => {
      state.emit = emit;
      state.onStopped = onStopped;
      return {
        stop: () => void state.stops++,
        takeFullSnapshot: () => void state.snapshots++,
        flushDomChanges: () => void state.domFlushes++,
        encode: async () => 'encoded',
      };
    };
    return { state, start };
  }
  const options = { blockClass: 'b', maskTextClass: 'm', maskAllInputs: false, sampling: {}, workerUrl: undefined };
  const event = (timestamp: number): RecordedEvent => ({ type: 3, timestamp, data: {} });

  function setup(load?: () => Promise<StartRecording>) {
    const recorder = fakeStart();
    let replay = identity('a');
    const recorded: RecordedEvent[] = [];
    const encoder: { encode_?: (events: readonly string[]) => Promise<string | undefined> } = {};
    const log = debug();
    const lifecycle = createRecorderLifecycle(
      load ?? (() => Promise.resolve(recorder.start)),
      options as never,
      log,
      () => replay,
      (e) => recorded.push(e),
      encoder,
    );
    const started = async () => {
      while (recorder.state.emit === undefined) await Promise.resolve();
    };
    return { recorder, lifecycle, recorded, encoder, log, started, rotate: () => (replay = identity('b')) };
  }

  it("records the current replay's events and hands over the recorder's worker", async () => {
    const { recorder, lifecycle, recorded, encoder, started } = setup();
    lifecycle.start_();
    await started();
    recorder.state.emit!(event(1));
    expect(recorded).toEqual([event(1)]);
    expect(encoder.encode_).toBeDefined();
    lifecycle.dom_();
    expect(recorder.state.domFlushes).toBe(1);
  });

  it('lets nothing of a recorder started for an earlier replay through, nor anything after a stop', async () => {
    const { recorder, lifecycle, recorded, started, rotate } = setup();
    lifecycle.start_();
    await started();
    rotate();
    recorder.state.emit!(event(1));
    recorder.state.onStopped!({ reason: 'mutation_limit' });
    expect(recorded).toEqual([]);
    lifecycle.stop_();
    expect(recorder.state.stops).toBe(1);
  });

  it('halts with a svc.recording_stopped event saying why', async () => {
    const { recorder, lifecycle, recorded, log, started } = setup();
    lifecycle.start_();
    await started();
    recorder.state.onStopped!({ reason: 'dom_too_large', measured: 2, limit: 1 });
    expect(recorder.state.stops).toBe(1);
    expect(recorded.map((e) => e.data)).toEqual([
      { tag: REPLAY_EVENT_TAGS.recordingStopped, payload: { reason: 'dom_too_large', measured: 2, limit: 1 } },
    ]);
    expect(log.warn).toHaveBeenCalledWith(expect.stringContaining('dom_too_large'));
    recorder.state.emit!(event(2));
    expect(recorded).toHaveLength(1);
  });

  it('reports a recorder that could not load as recorder_unavailable', async () => {
    const { lifecycle, recorded, log } = setup(() => Promise.reject(new Error('offline')));
    lifecycle.start_();
    await vi.waitFor(() => expect(recorded).toHaveLength(1));
    expect(recorded[0]!.data).toMatchObject({ payload: { reason: 'recorder_unavailable' } });
    expect(log.error).toHaveBeenCalled();
  });

  it('takes one full snapshot for requests made together, after the current task; or at once when asked', async () => {
    const { recorder, lifecycle, started } = setup();
    lifecycle.start_();
    await started();
    lifecycle.snapshot_();
    lifecycle.snapshot_();
    expect(recorder.state.snapshots).toBe(0);
    await Promise.resolve();
    await Promise.resolve();
    expect(recorder.state.snapshots).toBe(1);
    lifecycle.snapshot_(true);
    expect(recorder.state.snapshots).toBe(2);
  });
});

describe('replay buffers', () => {
  const setup = (maxChunkBytes = 1_000) => {
    const log = debug();
    const full = vi.fn();
    const buffers = createReplayBuffers(maxChunkBytes, log, vi.fn(), full);
    return { log, full, buffers };
  };

  it('keeps events and recipe steps apart, serialized once, and says when a chunk is ready', () => {
    const { full, buffers } = setup(50);
    const replay = identity();
    buffers.add_(0, replay, { n: 1 }, 1, 'dom');
    buffers.add_(1, replay, { step: 1 }, 2, 'custom');
    expect(full).not.toHaveBeenCalled();
    buffers.add_(0, replay, { pad: 'x'.repeat(60) }, 3, 'dom');
    expect(full).toHaveBeenCalled();
    expect(buffers.next_(0)!.items_).toEqual(['{"n":1}']);
    buffers.seal_();
    expect(buffers.next_(1)!.items_).toEqual(['{"step":1}']);
    expect(buffers.takeAll_().map((chunks) => chunks.length)).toEqual([1, 0]);
  });

  it('drops an item over the event limit: with a warning for a timeline event or step, with its size for a recorded event', () => {
    const { log, buffers } = setup();
    const huge = 'h'.repeat(REPLAY_LIMITS.maxEventBytes);
    expect(buffers.add_(1, identity(), huge, 1, 'custom')).toBeUndefined();
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/^a recipe step of \d+ bytes/));
    expect(buffers.add_(0, identity(), huge, 1, 'custom')).toBeUndefined();
    expect(log.warn).toHaveBeenCalledWith(expect.stringMatching(/^a replay event of \d+ bytes/));
    expect(buffers.add_(0, identity(), huge, 1, 'dom')).toBe(REPLAY_LIMITS.maxEventBytes + 2);
    expect(buffers.add_(0, identity(), { n: 1n }, 1, 'custom')).toBeUndefined();
    expect(buffers.takeAll_()).toEqual([[], []]);
  });
});

describe('on-error hold', () => {
  it('keeps the latest window only, gives it on the error, and records the session in full from then on', () => {
    const hold = createOnErrorHold(() => ({ sampled: true, replay: 'on_error' }), `svc-test-${Math.random()}`);
    const replay = identity('x');
    expect(hold.mode_('x')).toBe('on_error');
    hold.window_([[chunk(replay, 'old')], []]);
    hold.window_([[chunk(replay, 'kept')], [chunk(replay, 'step')]]);
    const next = hold.release_('x');
    expect(next(0)!.items_).toEqual(['kept']);
    expect(next(0)).toBeUndefined();
    expect(next(1)!.items_).toEqual(['step']);
    expect(hold.mode_('x')).toBe('full');
    expect(hold.mode_('y')).toBe('on_error');
    expect(hold.release_('x')(0)).toBeUndefined();
  });
});

describe('unload', () => {
  const setup = () => {
    const pipeline = fakePipeline();
    const storage = memoryStorage();
    const leftovers = createLeftoverStore(storage, 'k.');
    const sender = createReplaySender('shop', pipeline, debug(), leftovers, () => undefined);
    return { pipeline, storage, leftovers, sender };
  };

  it('hands over nothing for a session not recorded in full', () => {
    const { pipeline, sender, leftovers } = setup();
    flushForUnload('shop', pipeline, leftovers, sender, undefined);
    expect(pipeline.posts).toEqual([]);
    expect(drainRequests('shop', undefined)).toEqual([]);
  });

  it('keeps a copy of the chunk in flight under its seq, then hands over the rest with keepalive', async () => {
    const { pipeline, storage, leftovers, sender } = setup();
    const replay = identity();
    await sender.send_();
    pipeline.holdPosts();
    void sender.send_(from([chunk(replay, '1')]));
    await pipeline.postsMade(1);
    flushForUnload('shop', pipeline, leftovers, sender, [[chunk(replay, '2')], [chunk(replay, '{"s":1}')]]);
    expect(pipeline.posts.slice(1).map((post) => [post.path, post.unloading])).toEqual([
      [INGEST_PATHS.replayChunk, true],
      [INGEST_PATHS.replayRecipes, true],
    ]);
    expect(seqs(pipeline.posts.slice(0, 2).map((post) => post.body))).toEqual([0, 1]);
    expect(storage.map.size).toBe(3);
    pipeline.release();
    await vi.waitFor(() => expect(storage.map.size).toBe(0));
  });

  it('drains what is buffered as requests numbered as if sent now', () => {
    const replay = identity();
    const requests = drainRequests('shop', [[chunk(replay, '1'), chunk(replay, '2')], [chunk(replay, '3')]]);
    expect(requests.map(([path]) => path)).toEqual([
      INGEST_PATHS.replayChunk,
      INGEST_PATHS.replayChunk,
      INGEST_PATHS.replayRecipes,
    ]);
    expect(seqs(requests.slice(0, 2).map(([, body]) => body))).toEqual([0, 1]);
  });
});
