import { describe, expect, it } from 'vitest';
import { INGEST_PATHS } from '../../wire/paths';
import { DROPPED_ITEMS_METRIC } from '../../wire/self-telemetry';
import { chunksOf, drainRequests, takeBatch } from '../../src/pipeline/batches';
import { countLost } from '../../src/pipeline/drops';
import type { TelemetryItem } from '../../src/pipeline/items';
import { book, persist, refused, requeue, settle } from '../../src/pipeline/outcomes';
import { logBodies, logItem, pipelineState, recordingOutbox } from '../support/pipeline-state';

const refusal = (status: number) => ({ verdict_: 'refused', status_: status, detail_: 'no' }) as const;

describe('pipeline batches', () => {
  it('takes every waiting record split per signal, with the drop reports due among the metrics', () => {
    const { state } = pipelineState();
    state.queue_.push(logItem('a'));
    state.queue_.push({ kind: 'metric', timeMs: 1, name: 'm', value: 1, unit: '', sessionId: 's1', attributes: {} });
    countLost(state, 'refused', 1);
    const batch = takeBatch(state)!;
    expect(batch.logs.map((item) => item.body)).toEqual(['a']);
    expect(batch.metrics.map((item) => item.name)).toEqual(['m', DROPPED_ITEMS_METRIC]);
    expect(state.queue_.size).toBe(2);
    // The report is due again until the server has had it; with nothing lost and nothing waiting there is no batch.
    expect(takeBatch(state)!.metrics).toHaveLength(1);
    expect(takeBatch(pipelineState().state)).toBeUndefined();
  });

  it('encodes records as OTLP/JSON requests with the service resource, split at about 60 KB', () => {
    const { state } = pipelineState();
    const items = Array.from({ length: 8 }, (_, i) => logItem(`${i}`.padEnd(20_000, 'x')));
    const chunks = chunksOf(state, 'logs', items);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.every((chunk) => chunk.bytes <= 60_000)).toBe(true);
    expect(chunks.flatMap((chunk) => logBodies(chunk.body))).toEqual(items.map((item) => item.body));
    expect(chunks[0]!.body).toContain('"service.name"');
  });

  it('drains every waiting record as request bodies done with for the page; a stopped signal loses its records', () => {
    const { state } = pipelineState();
    state.queue_.push(logItem('a'));
    state.queue_.push({ kind: 'metric', timeMs: 1, name: 'm', value: 1, unit: '', sessionId: 's1', attributes: {} });
    state.stoppedSignals_.add('metrics');
    const requests = drainRequests(state);
    expect(requests.map(([path, body]) => [path, logBodies(body)])).toEqual([[INGEST_PATHS.logs, ['a']]]);
    expect(state.queue_.size).toBe(0);
    expect(state.lost_).toEqual({ refused: 1 });
  });
});

describe('pipeline outcomes', () => {
  it('puts the records of a retryable failure back at the front of the queue, drop reports aside', () => {
    const { state } = pipelineState();
    state.queue_.push(logItem('a'));
    countLost(state, 'refused', 1);
    const batch = takeBatch(state)!;
    state.queue_.push(logItem('b'));
    const failed: TelemetryItem[] = [...batch.logs, ...batch.metrics];
    settle(state, 'u', failed, { verdict_: 'retry', reason_: 'HTTP 500', retryAfterMs_: undefined });
    expect(state.queue_.takeAll_().map((item) => (item.kind === 'log' ? item.body : item.kind))).toEqual(['a', 'b']);
  });

  it('books delivered records off the queue, and a delivered drop report as had by the server', () => {
    const { state } = pipelineState();
    state.queue_.push(logItem('a'));
    countLost(state, 'refused', 4);
    const batch = takeBatch(state)!;
    expect(book(state, [...batch.logs, ...batch.metrics])).toBe(1);
    expect(state.queue_.size).toBe(0);
    expect(state.lostSent_).toEqual({ refused: 4 });
  });

  it('forgets the kept copy of records sent after all', () => {
    const { state } = pipelineState();
    const { outbox, calls } = recordingOutbox();
    state.persistence_ = outbox;
    const items = [logItem('a'), logItem('b')];
    items.forEach((item) => state.keptKeys_.set(item, 'k1'));
    book(state, items);
    expect(calls.forgotten).toEqual(['k1']);
  });

  it('drains the outbox after the first delivery once this page stored requests in it', () => {
    const { state } = pipelineState();
    const { outbox, calls } = recordingOutbox();
    state.persistence_ = outbox;
    state.drainDue_ = true;
    settle(state, 'u', [logItem('a')], { verdict_: 'delivered' });
    settle(state, 'u', [logItem('b')], { verdict_: 'delivered' });
    expect(calls.drains).toBe(1);
  });

  it('counts refused records as lost, warns, and stops the signal for a status resending cannot change', async () => {
    const { state, warnings } = pipelineState();
    settle(state, 'http://ingest.test/v1/logs', [logItem('a'), logItem('b')], refusal(401));
    expect(state.lost_).toEqual({ refused: 2 });
    expect(state.stoppedSignals_.has('logs')).toBe(true);
    expect(warnings[0]).toBe('http://ingest.test/v1/logs refused 2 records with HTTP 401; they are dropped. no');
    // The misconfiguration explanation is loaded on first use, and goes to the console even without debug.
    await expect.poll(() => warnings.length).toBeGreaterThan(1);
  });

  it('keeps sending a signal after a refusal that a fix on the sender side can change', () => {
    const { state } = pipelineState();
    refused(state, 'u', 'logs', 1, refusal(413));
    expect(state.stoppedSignals_.size).toBe(0);
  });

  it('puts requests that ran out of retries in the outbox and books their records', () => {
    const { state } = pipelineState();
    const { outbox, calls } = recordingOutbox();
    state.persistence_ = outbox;
    state.queue_.push(logItem('a'));
    const chunks = chunksOf(state, 'logs', takeBatch(state)!.logs);
    persist(state, 'logs', chunks);
    expect(calls.stored).toEqual([INGEST_PATHS.logs]);
    expect(state.drainDue_).toBe(true);
    expect(state.queue_.size).toBe(0);
  });

  it('never puts a drop report back on the queue', () => {
    const { state } = pipelineState();
    countLost(state, 'refused', 1);
    requeue(state, takeBatch(state)!.metrics);
    expect(state.queue_.takeAll_()).toEqual([]);
  });
});
