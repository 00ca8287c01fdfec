import { describe, expect, it } from 'vitest';
import { INGEST_PATHS } from '../../wire/paths';
import { flushOnce, sendKept } from '../../src/pipeline/delivery';
import type { PipelineState } from '../../src/pipeline/pipeline-state';
import { postJson } from '../../src/pipeline/post-json';
import { logBodies, logItem, pipelineState, recordingOutbox, type ManualClock } from '../support/pipeline-state';

const bigLogs = (count: number) => Array.from({ length: count }, (_, i) => logItem(`${i}`.padEnd(20_000, 'x')));

describe('pipeline delivery (one flush)', () => {
  it('sends every waiting record, one request per signal, and books it off the queue', async () => {
    const { state, sent } = pipelineState();
    state.queue_.push(logItem('a'));
    state.queue_.push(logItem('b'));
    state.queue_.push({ kind: 'metric', timeMs: 1, name: 'm', value: 1, unit: '', sessionId: 's1', attributes: {} });
    await flushOnce(state, false);
    expect(sent.map((request) => request.path).sort()).toEqual([INGEST_PATHS.logs, INGEST_PATHS.metrics].sort());
    expect(logBodies(sent.find((request) => request.path === INGEST_PATHS.logs)!.body)).toEqual(['a', 'b']);
    expect(state.queue_.size).toBe(0);
    expect(state.answers_).toEqual([2, 0]);
  });

  it('sends nothing during a backoff pause unless forced', async () => {
    const { state, sent, clock } = pipelineState();
    state.queue_.push(logItem('a'));
    state.pausedUntil_ = clock.now() + 1000;
    await flushOnce(state, false);
    expect(sent).toEqual([]);
    await flushOnce(state, true);
    expect(sent).toHaveLength(1);
  });

  it('stops a signal at its first retryable failure: that request and those after it go back on the queue', async () => {
    const { state, sent, clock } = pipelineState({ replies: [200, 503] });
    const items = bigLogs(8);
    items.forEach((item) => state.queue_.push(item));
    await flushOnce(state, false);
    expect(sent).toHaveLength(2);
    const delivered = logBodies(sent[0]!.body);
    expect(state.queue_.takeAll_()).toEqual(items.slice(delivered.length));
    expect(state.failures_).toBe(1);
    expect(state.pausedUntil_).toBeGreaterThan(clock.now());
    expect(state.answers_).toEqual([1, 1]);
  });

  it('counts failed flushes in a row, and starts over after one that delivered', async () => {
    const { state } = pipelineState({ replies: [500, 500, 200] });
    for (let flush = 0; flush < 3; flush++) {
      state.queue_.push(logItem(`${flush}`));
      await flushOnce(state, true);
      expect(state.failures_).toBe([1, 2, 0][flush]);
    }
  });

  it("pauses for as long as the server's Retry-After says", async () => {
    const { state, clock } = pipelineState({ replies: [{ status: 429, retryAfter: '7' }] });
    state.queue_.push(logItem('a'));
    await flushOnce(state, false);
    expect(state.pausedUntil_).toBe(clock.now() + 7000);
  });

  it('moves the requests of a flush that keeps failing to the outbox instead of the queue', async () => {
    const { state } = pipelineState({ replies: [503] });
    const { outbox, calls } = recordingOutbox();
    state.persistence_ = outbox;
    state.failures_ = 3;
    state.queue_.push(logItem('a'));
    await flushOnce(state, true);
    expect(calls.stored).toEqual([INGEST_PATHS.logs]);
    expect(state.queue_.size).toBe(0);
    expect(state.failures_).toBe(4);
  });

  it("loses a stopped signal's records, counted, without sending them", async () => {
    const { state, sent } = pipelineState();
    state.stoppedSignals_.add('logs');
    state.queue_.push(logItem('a'));
    await flushOnce(state, false);
    expect(sent).toEqual([]);
    expect(state.lost_).toEqual({ refused: 1 });
    expect(state.queue_.size).toBe(0);
  });
});

describe('pipeline delivery (kept requests)', () => {
  const kept = { path: INGEST_PATHS.logs, body: '{"resourceLogs":[]}' };

  it('is done with a kept request once delivered or refused, not after a retryable failure', async () => {
    const { state, sent } = pipelineState({ replies: [200, 400, 503] });
    expect(await sendKept(state, kept)).toBe(true);
    expect(await sendKept(state, kept)).toBe(true);
    expect(await sendKept(state, kept)).toBe(false);
    expect(sent.map((request) => request.body)).toEqual([kept.body, kept.body, kept.body]);
  });

  it('drops a kept request for a stopped signal or an unknown path without sending it', async () => {
    const { state, sent } = pipelineState();
    state.stoppedSignals_.add('logs');
    expect(await sendKept(state, kept)).toBe(true);
    expect(await sendKept(state, { path: '/elsewhere', body: '{}' })).toBe(true);
    expect(sent).toEqual([]);
  });
});

/** Runs the backoff pauses `postJson` waits out (the one pending timer that ends when the pause does) until it settles. */
async function withPauses<T>(state: PipelineState, clock: ManualClock, work: Promise<T>): Promise<T> {
  let done = false;
  void work.finally(() => (done = true));
  while (!done) {
    await new Promise((resolve) => setImmediate(resolve));
    const pending = clock.pending();
    if (pending.length === 1 && pending[0] === state.pausedUntil_ - clock.now()) clock.runNext();
  }
  return work;
}

describe('pipeline postJson', () => {
  const body = JSON.stringify({ replay: 'r1' });

  it('posts a JSON body to its ingest path and resolves true once delivered', async () => {
    const { state, sent } = pipelineState();
    expect(await postJson(state, '/v1/replay', body)).toBe(true);
    expect(sent).toEqual([{ path: '/v1/replay', body, keepalive: true }]);
  });

  it('waits out a backoff pause before posting', async () => {
    const { state, sent, clock } = pipelineState();
    const start = clock.now();
    state.pausedUntil_ = start + 3000;
    expect(await withPauses(state, clock, postJson(state, '/v1/replay', body))).toBe(true);
    expect(sent).toHaveLength(1);
    expect(clock.now()).toBe(start + 3000);
  });

  it('gives up after four attempts, each failure adding to the backoff', async () => {
    const { state, sent, clock } = pipelineState({ replies: [503, 503, 503, 503, 200] });
    expect(await withPauses(state, clock, postJson(state, '/v1/replay', body))).toBe(false);
    expect(sent).toHaveLength(4);
    expect(state.failures_).toBe(4);
  });

  it('does not retry a refusal', async () => {
    const { state, sent, warnings } = pipelineState({ replies: [400] });
    expect(await postJson(state, '/v1/replay', body)).toBe(false);
    expect(sent).toHaveLength(1);
    expect(warnings[0]).toContain('refused 0 records with HTTP 400');
  });

  it('tries once, without waiting, once the pipeline is stopped', async () => {
    const { state, sent, clock } = pipelineState({ replies: [503] });
    state.stopped_ = true;
    state.pausedUntil_ = clock.now() + 60_000;
    expect(await postJson(state, '/v1/replay', body)).toBe(false);
    expect(sent).toHaveLength(1);
  });

  it('hands the body to the browser when unloading: a beacon when over the keepalive budget', async () => {
    const { state, sent, beacons } = pipelineState({ beacon: true });
    const large = JSON.stringify({ data: 'x'.repeat(70_000) });
    expect(await postJson(state, '/v1/replay', large, true)).toBe(true);
    expect(sent).toEqual([]);
    expect(beacons.map((beacon) => beacon.path)).toEqual(['/v1/replay']);
    expect(await postJson(state, '/v1/replay', body, true)).toBe(true);
    expect(sent).toEqual([{ path: '/v1/replay', body, keepalive: true }]);
  });

  it('sends nothing without a transport', async () => {
    const { state, sent } = pipelineState({ noTransport: true });
    expect(await postJson(state, '/v1/replay', body)).toBe(false);
    expect(sent).toEqual([]);
  });
});
