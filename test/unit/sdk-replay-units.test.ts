/**
 * The replay timeline's units (src/replay/): its buffers and on-error hold window, its one sender, and the bodies of
 * the unload and drain paths. The timeline as a whole is covered by sdk-replay-timeline.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import { INGEST_PATHS } from '../../wire/paths';
import type { ResolvedConfig } from '../../src/config/types';
import type { ChunkBuffer, PendingChunk, ReplayIdentity } from '../../src/replay/chunk-buffer';
import { chunkBody, eventsJson } from '../../src/replay/encode';
import { createHoldWindow, createReplayBuffers } from '../../src/replay/replay-buffers';
import { createReplaySender } from '../../src/replay/replay-sender';
import { drainRequests, jsonChunkBody, unloadRequests } from '../../src/replay/timeline-bodies';

const REPLAY = { maxChunkBytes: 1_000 } as ResolvedConfig['replay'];
const quiet = () => ({ warn: vi.fn(), error: vi.fn() });
const identity = (): ReplayIdentity => ({ sessionId: 's1', replayId: 'r1', nextSeq: 0 });

function fill(buffer: ChunkBuffer, replay: ReplayIdentity, count: number, size = 10): void {
  for (let i = 0; i < count; i++) {
    const json = JSON.stringify({ i, pad: 'x'.repeat(size) });
    buffer.add(replay, json, json.length + 1, 1_000 + i, 'custom');
  }
}

describe('replay buffers and hold window', () => {
  it('bounds both buffers and warns of what each dropped', () => {
    const debug = quiet();
    const requestSnapshot = vi.fn();
    const [events, steps] = createReplayBuffers(REPLAY, debug, requestSnapshot);
    const replay = identity();
    fill(steps, replay, 400, 1_000);
    expect(debug.warn).toHaveBeenCalledWith(
      expect.stringMatching(/^replay buffer full \(256000 bytes\): \d+ recipe steps/),
    );
    for (let i = 0; i < 400; i++) {
      const json = JSON.stringify({ type: 2, pad: 'x'.repeat(1_000) });
      events.add(replay, json, json.length + 1, i, i % 50 === 0 ? 'snapshot' : 'dom');
    }
    expect(debug.warn).toHaveBeenCalledWith(expect.stringMatching(/\d+ events \(\d+ bytes\) dropped/));
  });

  it('holds the last closed window only, and releases it once', () => {
    const [events, steps] = createReplayBuffers(REPLAY, quiet(), () => undefined);
    const [close, release] = createHoldWindow(events, steps);
    const replay = identity();
    fill(events, replay, 2);
    close();
    fill(events, replay, 3);
    fill(steps, replay, 1);
    close();
    const [held, heldSteps] = release();
    expect(held.flatMap((c) => c.items)).toHaveLength(3);
    expect(heldSteps.flatMap((c) => c.items)).toHaveLength(1);
    expect(release()).toEqual([[], []]);
  });
});

describe('replay sender', () => {
  const chunkOf = (replay: ReplayIdentity, items: string[]): PendingChunk => ({
    replay,
    items,
    timestamps: items.map((_, i) => i),
    bytes: 10,
    hasSnapshot: false,
  });

  it('numbers chunks per replay, compresses with the worker when there is one, and tells when one was lost', async () => {
    const posted: Array<[string, string]> = [];
    let answer = true;
    const pipeline = { postJson: vi.fn(async (path: string, body: string) => (posted.push([path, body]), answer)) };
    const leftovers = { remove: vi.fn() };
    let worker: ((items: readonly string[]) => Promise<string | undefined>) | undefined = undefined;
    const lost = vi.fn();
    const [sendChunk, sendSteps, afterSending, idle, inFlight] = createReplaySender(
      'web',
      pipeline,
      quiet(),
      leftovers,
      () => worker,
      lost,
    );
    const replay = identity();
    await sendChunk(chunkOf(replay, ['{"a":1}']));
    expect(JSON.parse(posted[0]![1])).toMatchObject({ seq: 0, events: [{ a: 1 }] });
    worker = async () => 'H4sI';
    const second = chunkOf(replay, ['{"b":2}']);
    const sent = sendChunk(second);
    expect(inFlight()).toMatchObject({ chunk: second, seq: 1 });
    inFlight()!.savedKey = 'k1';
    await sent;
    expect(JSON.parse(posted[1]![1])).toMatchObject({ seq: 1, encoding: 'gzip', data: 'H4sI' });
    expect(leftovers.remove, 'the unload copy is removed once delivered').toHaveBeenCalledWith('k1');
    expect(inFlight()).toBeUndefined();
    answer = false;
    await sendChunk(chunkOf(replay, ['{}']));
    expect(lost).toHaveBeenCalledTimes(1);
    await sendSteps(chunkOf(replay, ['{"step":1}']));
    expect(posted[3]![0]).toBe(INGEST_PATHS.replayRecipes);
    // One request at a time, in order; a failing task does not break the chain.
    const order: number[] = [];
    void afterSending(async () => void order.push(1));
    void afterSending(async () => {
      throw new Error('boom');
    });
    await afterSending(async () => void order.push(3));
    await idle();
    expect(order).toEqual([1, 3]);
  });
});

describe('unload and drain bodies', () => {
  it('unload: the chunk in flight first, then every buffered chunk and step batch, numbered and emptied', () => {
    const [events, steps] = createReplayBuffers(REPLAY, quiet(), () => undefined);
    const replay = identity();
    fill(events, replay, 3);
    fill(steps, replay, 2);
    const flightChunk: PendingChunk = {
      replay,
      items: ['{"f":1}'],
      timestamps: [5],
      bytes: 7,
      hasSnapshot: false,
    };
    replay.nextSeq = 4;
    const requests = unloadRequests('web', events, steps, { chunk: flightChunk, seq: 3 });
    expect(requests.map((r) => r.path)).toEqual([
      INGEST_PATHS.replayChunk,
      INGEST_PATHS.replayChunk,
      INGEST_PATHS.replayRecipes,
    ]);
    expect(requests[0]!.body).toBe(chunkBody('web', replay, 3, [5], eventsJson(['{"f":1}'])));
    expect(JSON.parse(requests[1]!.body)).toMatchObject({ seq: 4, eventCount: 3 });
    expect(replay.nextSeq).toBe(5);
    expect(unloadRequests('web', events, steps, undefined)).toEqual([]);
  });

  it('unload cuts a chunk over ~60 KB into numbered requests', () => {
    const [events, steps] = createReplayBuffers(
      { maxChunkBytes: 200_000 } as ResolvedConfig['replay'],
      quiet(),
      () => undefined,
    );
    const replay = identity();
    fill(events, replay, 30, 5_000);
    const requests = unloadRequests('web', events, steps, undefined);
    expect(requests.length).toBeGreaterThan(2);
    expect(requests.map((r) => JSON.parse(r.body).seq)).toEqual(requests.map((_, i) => i));
    for (const request of requests) expect(request.body.length).toBeLessThanOrEqual(60_000);
  });

  it('drain: one request per chunk, as JSON, numbered as if sent now', () => {
    const [events, steps] = createReplayBuffers(REPLAY, quiet(), () => undefined);
    const replay = identity();
    fill(events, replay, 2);
    events.seal();
    fill(steps, replay, 1);
    const pending = { ...replay };
    const requests = drainRequests('web', events, steps);
    expect(requests.map(([path]) => path)).toEqual([INGEST_PATHS.replayChunk, INGEST_PATHS.replayRecipes]);
    expect(JSON.parse(requests[0]![1])).toMatchObject({ seq: 0, eventCount: 2, replayId: pending.replayId });
    expect(drainRequests('web', events, steps)).toEqual([]);
    expect(jsonChunkBody('web', { replay, items: [], timestamps: [], bytes: 0, hasSnapshot: false }, 7)).toContain(
      '"seq":7',
    );
  });
});
