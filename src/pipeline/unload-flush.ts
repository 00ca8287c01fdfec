import { INGEST_PATHS } from '../../wire/paths';
import { failedOutsideFlush } from './backoff';
import { chunksOf, takeBatch } from './batches';
import type { TelemetryItem } from './items';
import type { ItemOf, Signal } from './otlp-json';
import { requeue, settle } from './outcomes';
import { SIGNALS, urlOf, type PipelineState, type SignalChunk } from './pipeline-state';
import type { SendResult } from './transport';
import { handOver, type HandOver } from './unload';

/**
 * Page hidden or closing: every waiting record handed to the browser (beacon or keepalive fetch, within the keepalive
 * budget). With the outbox on, everything not acknowledged yet is first kept in local storage for the next load:
 * what is handed over now (a request the browser took is not a delivery: its answer may come after the page is gone),
 * and the requests of a flush still on the wire. While the server asked to wait (Retry-After, a backoff), nothing is
 * sent: it is kept. What the browser did not take goes back on the queue.
 */
export function flushForUnload(state: PipelineState): void {
  if (!state.route_) return;
  const batch = takeBatch(state);
  const chunks: SignalChunk[] = [];
  for (const signal of batch ? SIGNALS : []) {
    // A stopped signal's records (sendSignal drops and counts them) wait for a flush that may never come.
    if (state.stoppedSignals_.has(signal)) requeue(state, batch![signal]);
    else for (const chunk of chunksOf(state, signal, batch![signal])) chunks.push({ signal_: signal, chunk_: chunk });
  }
  const { persistence_: persistence } = state;
  if (persistence) keepForNextLoad(state, [...state.sending_, ...chunks]);
  const paused = persistence && state.clock_.now() < state.pausedUntil_;
  const leftBehind: TelemetryItem[] = [];
  for (const { signal_: signal, chunk_: chunk } of chunks) {
    const url = urlOf(state, signal);
    const sent: HandOver = paused ? { via_: 'none' } : handOver(state.route_, url, chunk.body, chunk.bytes);
    if (sent.via_ === 'beacon') {
      // A beacon reports nothing: its kept copy stays for the next load, which the server drops if it has it.
      for (const item of chunk.items) state.keptKeys_.delete(item);
      settle(state, url, chunk.items, { verdict_: 'delivered' });
    } else if (sent.via_ === 'none') leftBehind.push(...chunk.items);
    else void sent.result_.then((result) => afterUnloadRequest(state, url, chunk.items, result));
  }
  if (leftBehind.length > 0) {
    requeue(state, leftBehind);
    state.drainWhenBudgetFrees_ = true;
  }
}

/**
 * The page may be closing: requests not acknowledged yet are kept for the next load (and forgotten there once
 * answered here, if the page lives on). Records kept by an earlier event of the same leave (`pagehide`, then
 * `visibilitychange`) are not kept twice.
 */
function keepForNextLoad(state: PipelineState, requests: readonly SignalChunk[]): void {
  const kept = requests.flatMap(({ signal_: signal, chunk_: chunk }) => {
    const fresh = chunk.items.filter((item) => !state.keptKeys_.has(item));
    const chunks = fresh.length === chunk.items.length ? [chunk] : chunksOf(state, signal, fresh as ItemOf[Signal][]);
    return chunks.map(({ items, body }) => ({ path: INGEST_PATHS[signal], body, items }));
  });
  state.persistence_!.keep_(kept).forEach((key, i) => {
    if (key !== undefined) for (const item of kept[i]!.items) state.keptKeys_.set(item, key);
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
