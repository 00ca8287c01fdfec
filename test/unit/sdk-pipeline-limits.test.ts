import { afterEach, describe, expect, it, vi } from 'vitest';
import { INGEST_PATHS } from '../../wire/paths';
import { flushOnce } from '../../src/pipeline/delivery';
import { createPersistence, OUTBOX_MARKER } from '../../src/pipeline/persist';
import { createPipeline } from '../../src/pipeline/pipeline';
import type { PipelineOptions } from '../../src/pipeline/types';
import { logItem, manualClock, pipelineState, recordingOutbox } from '../support/pipeline-state';

/**
 * Ingest over a limit (429) and a wrong ingest address (404), as the pipeline meets them (docs/sdk-pipeline.md,
 * "Retries"): a 429's Retry-After holds every later page load of the origin back, not only this one, and a 404 stops
 * the signal for the page.
 */

/** The local storage of one origin, shared by the "page loads" of a test. */
function originStorage(): Storage {
  const items = new Map<string, string>();
  return {
    get length() {
      return items.size;
    },
    key: (i) => [...items.keys()][i] ?? null,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, String(value)),
    removeItem: (key) => void items.delete(key),
    clear: () => items.clear(),
  };
}

afterEach(() => vi.unstubAllGlobals());

describe('a 429 from ingest', () => {
  it('pauses for its Retry-After, hands that time to persistence for later page loads, and warns once', async () => {
    const { state, clock, warnings } = pipelineState({
      replies: [
        { status: 429, retryAfter: '60' },
        { status: 429, retryAfter: '60' },
      ],
    });
    const { outbox, calls } = recordingOutbox();
    state.persistence_ = outbox;
    state.queue_.push(logItem('a'));
    await flushOnce(state, false);
    expect(state.pausedUntil_).toBe(clock.now() + 60_000);
    expect(calls.pauses).toEqual([clock.now() + 60_000]);
    // Kept, within the queue's bound, for after the pause.
    expect(state.queue_.waitingCount).toBe(1);
    await flushOnce(state, true);
    const loud = () => warnings.filter((w) => w.startsWith('[svc] '));
    await vi.waitFor(() => expect(loud()).toHaveLength(1));
    expect(loud()[0]).toContain('http://ingest.test/otlp/v1/logs answered HTTP 429');
  });

  it('holds the next page load back until that time: no request and no outbox drain before it', async () => {
    const storage = originStorage();
    vi.stubGlobal('localStorage', storage);
    const clock = manualClock();
    const first = createPersistence(
      async () => true,
      () => undefined,
    );
    first.pause_(clock.now() + 120_000);

    // The next page load of the origin: same storage, a new pipeline.
    const sent: string[] = [];
    const options: PipelineOptions = {
      config: {
        apiKey: 'key',
        serviceName: 'shop',
        appId: undefined,
        env: undefined,
        serviceVersion: undefined,
        flushIntervalMs: 1000,
        maxQueueSize: 100,
        requestTimeoutMs: 5000,
        persistence: true,
      },
      resource: {},
      fetch: (async (url: string) => {
        sent.push(new URL(url).pathname);
        return new Response('{}');
      }) as typeof fetch,
      sendBeacon: undefined,
      ingestUrl: (path) => `http://ingest.test${path}`,
      debug: { warn: () => undefined, error: () => undefined },
      console: { warn: () => undefined },
      clock,
    };
    const pipeline = createPipeline(options);
    pipeline.enqueue(logItem('after the pause'));
    // The flush timer and the outbox's drain both wait the two minutes out.
    expect(clock.pending().sort((a, b) => a - b)).toEqual([120_000, 120_000]);
    expect(storage.getItem(OUTBOX_MARKER)).toBe(String(clock.now() + 120_000));
    expect(sent).toEqual([]);
    clock.runNext();
    clock.runNext();
    await vi.waitFor(() => expect(sent).toEqual([INGEST_PATHS.logs]));
    await pipeline.shutdown();
  });
});

describe('a 404 from ingest (a wrong ingestUrl)', () => {
  it('stops the signal for the page: its records are dropped and counted, never sent again', async () => {
    const { state, sent, warnings } = pipelineState({ replies: [404] });
    state.queue_.push(logItem('a'));
    await flushOnce(state, false);
    expect(state.stoppedSignals_.has('logs')).toBe(true);
    state.queue_.push(logItem('b'));
    await flushOnce(state, true);
    // Only the drop count (a metric) went out the second time.
    expect(sent.map((request) => request.path)).toEqual([INGEST_PATHS.logs, INGEST_PATHS.metrics]);
    expect(state.lost_).toEqual({ refused: 2 });
    await vi.waitFor(() => expect(warnings.some((w) => w.includes('ingestUrl must be the base address'))).toBe(true));
  });
});
