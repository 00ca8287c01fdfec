import { describe, expect, it } from 'vitest';
import { DROPPED_ITEMS_METRIC } from '../../wire/self-telemetry';
import { backoff, failedOutsideFlush, type Retry } from '../../src/pipeline/backoff';
import { countLost, dropReports, reportSent } from '../../src/pipeline/drops';
import { DEFAULT_RETRY_POLICY, retryDelay } from '../../src/pipeline/retry';
import { logItem, pipelineState } from '../support/pipeline-state';

/** Lost records are counted per reason and reported to the server as a running total, once per new count. */
describe('pipeline drops', () => {
  it('reports each reason with a new count as one counter point, with the session of the last record', () => {
    const { state } = pipelineState();
    state.lastSessionId_ = 'session-7';
    countLost(state, 'refused', 2);
    countLost(state, 'refused', 3);
    countLost(state, 'outbox_full', 1);
    const reports = dropReports(state);
    expect(reports.map((r) => [r.name, r.attributes.reason, r.value, r.sessionId])).toEqual([
      [DROPPED_ITEMS_METRIC, 'refused', 5, 'session-7'],
      [DROPPED_ITEMS_METRIC, 'outbox_full', 1, 'session-7'],
    ]);
    expect(reports.every((r) => r.sumSinceMs === state.startMs_ && r.unit === '{item}')).toBe(true);
  });

  it('reports a count again until the server has had it, and only what grew after that', () => {
    const { state } = pipelineState();
    countLost(state, 'refused', 2);
    countLost(state, 'persist_failed', 4);
    const [refused, persistFailed] = dropReports(state);
    // Only the refused count arrived: the other one is due again.
    reportSent(state, refused!);
    expect(dropReports(state).map((r) => r.attributes.reason)).toEqual(['persist_failed']);
    reportSent(state, persistFailed!);
    expect(dropReports(state)).toEqual([]);
    countLost(state, 'refused', 1);
    expect(dropReports(state).map((r) => [r.attributes.reason, r.value])).toEqual([['refused', 3]]);
  });

  it('takes the queue overflow from the queue and warns once per new overflow', () => {
    const { state, warnings } = pipelineState({ maxQueueSize: 2 });
    for (const body of ['a', 'b', 'c', 'd']) state.queue_.push(logItem(body));
    expect(dropReports(state).map((r) => [r.attributes.reason, r.value])).toEqual([['queue_full', 2]]);
    dropReports(state);
    expect(warnings).toEqual(['queue full (maxQueueSize 2): 2 oldest records dropped, 2 since start']);
    state.queue_.push(logItem('e'));
    dropReports(state);
    expect(warnings[1]).toBe('queue full (maxQueueSize 2): 1 oldest records dropped, 3 since start');
  });

  it('marks its reports as reports, so that they never go back on the queue', () => {
    const { state } = pipelineState();
    countLost(state, 'refused', 1);
    const [report] = dropReports(state);
    expect(state.reports_.has(report!)).toBe(true);
  });
});

describe('pipeline backoff', () => {
  const retry = (retryAfterMs?: number): Retry => ({
    verdict_: 'retry',
    reason_: 'HTTP 503',
    retryAfterMs_: retryAfterMs,
  });

  it('pauses sending for the retry delay of the failures so far, and says why', () => {
    const { state, clock, warnings } = pipelineState();
    backoff(state, 'http://ingest.test/v1/logs', retry(), 3);
    const delay = retryDelay(3, undefined, () => 0.5, DEFAULT_RETRY_POLICY);
    expect(state.pausedUntil_).toBe(clock.now() + delay);
    expect(warnings).toEqual([`sending to http://ingest.test/v1/logs failed (HTTP 503); retrying in ${delay} ms`]);
  });

  it("waits as long as the server's Retry-After says", () => {
    const { state, clock } = pipelineState();
    backoff(state, 'u', retry(42_000), 1);
    expect(state.pausedUntil_).toBe(clock.now() + 42_000);
  });

  it('never shortens a pause already running', () => {
    const { state, clock } = pipelineState();
    backoff(state, 'u', retry(60_000), 1);
    backoff(state, 'u', retry(1000), 1);
    expect(state.pausedUntil_).toBe(clock.now() + 60_000);
  });

  it('counts a failure outside a flush as one more step of the backoff', () => {
    const { state, clock } = pipelineState();
    state.failures_ = 2;
    failedOutsideFlush(state, 'u', retry());
    expect(state.failures_).toBe(3);
    expect(state.pausedUntil_).toBe(clock.now() + retryDelay(3, undefined, () => 0.5, DEFAULT_RETRY_POLICY));
  });
});
