import { describe, expect, it } from 'vitest';
import { INGEST_PATHS } from '../../wire/paths';
import { flushForUnload } from '../../src/pipeline/unload-flush';
import { logBodies, logItem, pipelineState, recordingOutbox } from '../support/pipeline-state';

const bigLogs = (count: number) => Array.from({ length: count }, (_, i) => logItem(`${i}`.padEnd(20_000, 'x')));

describe('pipeline flush on page leave', () => {
  it('hands every waiting record to a keepalive request and books it once answered', async () => {
    const { state, sent } = pipelineState();
    state.queue_.push(logItem('a'));
    flushForUnload(state);
    expect(sent).toEqual([expect.objectContaining({ path: INGEST_PATHS.logs, keepalive: true })]);
    await expect.poll(() => state.queue_.size).toBe(0);
  });

  it('falls back to a beacon beyond the keepalive budget; a beacon counts as delivered', () => {
    const { state, sent, beacons } = pipelineState({ beacon: true });
    const items = bigLogs(8);
    items.forEach((item) => state.queue_.push(item));
    flushForUnload(state);
    const handed = [...sent, ...beacons].flatMap((request) => logBodies(request.body));
    expect(handed).toEqual(items.map((item) => item.body));
    expect(beacons.length).toBeGreaterThan(0);
    // Only the keepalive requests' records are still out.
    expect(state.queue_.size).toBe(sent.flatMap((request) => logBodies(request.body)).length);
  });

  it('keeps what the browser did not take on the queue and sends it once a keepalive request frees budget', async () => {
    const { state, sent } = pipelineState({ beacon: false });
    const items = bigLogs(8);
    items.forEach((item) => state.queue_.push(item));
    flushForUnload(state);
    expect(sent.length).toBeLessThan(4);
    expect(state.drainWhenBudgetFrees_).toBe(true);
    await expect.poll(() => state.queue_.size).toBe(0);
    expect(sent.flatMap((request) => logBodies(request.body))).toEqual(items.map((item) => item.body));
    expect(state.drainWhenBudgetFrees_).toBe(false);
  });

  it('keeps what the browser did not take for the next load, once per page leave', () => {
    const { state } = pipelineState({ beacon: false });
    const { outbox, calls } = recordingOutbox();
    state.persistence_ = outbox;
    state.queue_.push(logItem('x'.repeat(70_000)));
    flushForUnload(state);
    expect(calls.kept).toEqual([INGEST_PATHS.logs]);
    expect(state.queue_.size).toBe(1);
    // pagehide, then visibilitychange: the same records are not kept twice.
    flushForUnload(state);
    expect(calls.kept).toEqual([INGEST_PATHS.logs]);
  });

  it('backs off when a keepalive request of a hidden page fails, and the records wait on the queue', async () => {
    const { state, clock } = pipelineState({ replies: [503] });
    state.queue_.push(logItem('a'));
    flushForUnload(state);
    await expect.poll(() => state.failures_).toBe(1);
    expect(state.pausedUntil_).toBeGreaterThan(clock.now());
    expect(state.queue_.takeAll_().map((item) => item.kind === 'log' && item.body)).toEqual(['a']);
  });

  it("leaves a stopped signal's records on the queue, unsent", () => {
    const { state, sent } = pipelineState();
    state.stoppedSignals_.add('logs');
    state.queue_.push(logItem('a'));
    flushForUnload(state);
    expect(sent).toEqual([]);
    expect(state.queue_.takeAll_()).toHaveLength(1);
  });

  it('sends nothing without a transport', () => {
    const { state, sent } = pipelineState({ noTransport: true });
    state.queue_.push(logItem('a'));
    flushForUnload(state);
    expect(sent).toEqual([]);
  });
});
