import { DROPPED_ITEMS_METRIC } from '../../wire/self-telemetry';
import { drainRequests } from './batches';
import { countLost } from './drops';
import { flushOnce, sendKept } from './delivery';
import { createPersistence } from './persist';
import { createPipelineState, SIGNAL_OF } from './pipeline-state';
import { postJson } from './post-json';
import type { Pipeline, PipelineOptions } from './types';
import { flushForUnload } from './unload-flush';

/** The SDK's own counter of records lost (wire/self-telemetry.ts), sent with the next batch after a drop. */
export { DROPPED_ITEMS_METRIC };

/**
 * The one bounded queue, the flush timer, the OTLP/JSON batches and their delivery (see docs/sdk-pipeline.md).
 *
 * Flushes run one after another, never two at once, and take every waiting record; records being sent stay counted
 * against `maxQueueSize` until their request settles. Per flush, each signal goes as one request (split into several
 * of at most ~60 KB when bigger, sent in turn). A retryable failure puts that request's records, and those of the
 * requests after it, back at the front of the queue and pauses sending until the backoff has elapsed.
 */
export function createPipeline(options: PipelineOptions): Pipeline {
  const state = createPipelineState(options);
  const { clock_: clock, debug_: debug, queue_: queue, transport_: transport } = state;
  let timer: unknown;
  let flushes: Promise<void> = Promise.resolve();
  if (transport && options.config.persistence) {
    const persistence = (state.persistence_ = createPersistence(
      (request) => sendKept(state, request),
      (reason, count) => countLost(state, reason, count),
    ));
    // An earlier page of the origin was asked to wait (a 429's Retry-After): this one waits too, its outbox with it,
    // rather than send into a full quota.
    const wait = (state.pausedUntil_ = persistence.pausedUntil_) - clock.now();
    if (wait > 0) clock.setTimeout(persistence.drain_, wait);
    else persistence.drain_();
  }

  function flush(force = false): Promise<void> {
    flushes = flushes.then(() => flushOnce(state, force)).catch((error: unknown) => debug.error('flush failed', error));
    return flushes;
  }

  function schedule(): void {
    if (state.stopped_ || !transport) return;
    const wait = Math.max(options.config.flushIntervalMs, state.pausedUntil_ - clock.now());
    timer = clock.setTimeout(() => {
      timer = undefined;
      void flush().then(schedule);
    }, wait);
  }

  schedule();

  return {
    enqueue(item) {
      if (!transport || state.stopped_) return;
      state.lastSessionId_ = item.sessionId;
      if (state.stoppedSignals_.has(SIGNAL_OF[item.kind])) countLost(state, 'refused', 1);
      else queue.push(item);
    },
    flush,
    drain: () => drainRequests(state),
    flushForUnload() {
      try {
        flushForUnload(state);
      } catch (error) {
        debug.error('flush on page hide failed', error);
      }
    },
    postJson: (path, body, unloading) =>
      postJson(state, path, body, unloading).catch((error: unknown) => {
        debug.error(`posting to ${path} failed`, error);
        return false;
      }),
    async shutdown() {
      if (!state.stopped_) {
        state.stopped_ = true;
        if (timer !== undefined) clock.clearTimeout(timer);
      }
      await flush(true);
    },
    get dropped() {
      return queue.dropped;
    },
    answers: state.answers_,
  };
}
