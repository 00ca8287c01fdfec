import { INGEST_PATHS } from '../../wire/paths';
import { failedOutsideFlush } from './backoff';
import { chunksOf, takeBatch } from './batches';
import type { TelemetryItem } from './items';
import type { ItemOf, Signal } from './otlp-json';
import { requeue, settle } from './outcomes';
import { SIGNALS, urlOf, type PipelineState } from './pipeline-state';
import type { Chunk } from './split';
import type { SendResult } from './transport';
import { handOver } from './unload';

type LeftBehind = { signal: Signal; chunk: Chunk<TelemetryItem> };

/**
 * Page hidden or closing: every waiting record handed to the browser (beacon or keepalive fetch, within the keepalive
 * budget). What does not fit goes back on the queue, and to local storage for the next load when the outbox is on.
 */
export function flushForUnload(state: PipelineState): void {
  if (!state.route_) return;
  const batch = takeBatch(state);
  if (!batch) return;
  const leftBehind: LeftBehind[] = [];
  for (const signal of SIGNALS) {
    const url = urlOf(state, signal);
    const stopped = state.stoppedSignals_.has(signal);
    for (const chunk of stopped ? [] : chunksOf(state, signal, batch[signal])) {
      const sent = handOver(state.route_, url, chunk.body, chunk.bytes);
      if (sent.via_ === 'beacon') settle(state, url, chunk.items, { verdict_: 'delivered' });
      else if (sent.via_ === 'none') leftBehind.push({ signal, chunk });
      else void sent.result.then((result) => afterUnloadRequest(state, url, chunk.items, result));
    }
    // A stopped signal's records (sendSignal drops and counts them) wait for a flush that may never come.
    if (stopped) requeue(state, batch[signal]);
  }
  if (leftBehind.length > 0) {
    if (state.persistence_) keepForNextLoad(state, leftBehind);
    requeue(
      state,
      leftBehind.flatMap(({ chunk }) => chunk.items),
    );
    state.drainWhenBudgetFrees_ = true;
  }
}

/**
 * The page may be closing: what the browser did not take is kept for the next load (and forgotten there once sent
 * from here, if the page lives on). Records kept by an earlier event of the same leave (`pagehide`, then
 * `visibilitychange`) are not kept twice.
 */
function keepForNextLoad(state: PipelineState, left: readonly LeftBehind[]): void {
  const requests = left.flatMap(({ signal, chunk }) => {
    const fresh = chunk.items.filter((item) => !state.keptKeys_.has(item));
    const chunks = fresh.length === chunk.items.length ? [chunk] : chunksOf(state, signal, fresh as ItemOf[Signal][]);
    return chunks.map(({ items, body }) => ({ path: INGEST_PATHS[signal], body, items }));
  });
  state.persistence_!.keep(requests).forEach((key, i) => {
    if (key !== undefined) for (const item of requests[i]!.items) state.keptKeys_.set(item, key);
  });
}

/** A keepalive request from the unload path settled, so the page is still alive: book it, then send what was left. */
function afterUnloadRequest(
  state: PipelineState,
  url: string,
  items: readonly TelemetryItem[],
  result: SendResult,
): void {
  settle(state, url, items, result);
  if (result.verdict_ === 'retry') failedOutsideFlush(state, url, result);
  else if (state.drainWhenBudgetFrees_) {
    state.drainWhenBudgetFrees_ = false;
    flushForUnload(state);
  }
}
