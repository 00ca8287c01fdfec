import { INGEST_PATHS } from '../../wire/paths';
import type { Backoff } from './backoff';
import { SIGNALS, type Batches } from './batches';
import type { TelemetryItem } from './items';
import type { ItemOf, Signal } from './otlp-json';
import type { Outcomes } from './outcomes';
import type { Chunk } from './split';
import type { SendResult } from './transport';
import { handOver, type UnloadRoute } from './unload';

type LeftBehind = ReadonlyArray<{ signal: Signal; chunk: Chunk<TelemetryItem> }>;

/**
 * The page is being hidden or closed (Pipeline.flushForUnload): every waiting record is handed to the browser at once,
 * synchronously, by keepalive fetch or beacon. What the browser did not take stays queued (and kept for the next
 * load when `persists`), and goes as soon as a keepalive request settles, if the page lives on.
 */
export function createUnloadFlush(
  route: UnloadRoute | undefined,
  urlOf: (signal: Signal) => string,
  [take, chunksOf]: Batches,
  [stopped, requeue, , , settle, , , keep, isKept]: Outcomes,
  [, , , fail]: Backoff,
  persists: boolean,
): () => void {
  /** Unload left records behind for lack of budget: send them once a keepalive request frees some. */
  let drainWhenBudgetFrees = false;

  function flushForUnload(): void {
    if (!route) return;
    const batch = take();
    if (!batch) return;
    const leftBehind: Array<{ signal: Signal; chunk: Chunk<TelemetryItem> }> = [];
    for (const signal of SIGNALS) {
      const url = urlOf(signal);
      for (const chunk of stopped(signal) ? [] : chunksOf(signal, batch[signal])) {
        const sent = handOver(route, url, chunk.body, chunk.bytes);
        if (sent.via === 'beacon') settle(url, chunk.items, { verdict: 'delivered' });
        else if (sent.via === 'none') leftBehind.push({ signal, chunk });
        else void sent.result.then((result) => afterUnloadRequest(url, chunk.items, result));
      }
      // A stopped signal's records (a flush drops and counts them) wait for a flush that may never come.
      if (stopped(signal)) requeue(batch[signal]);
    }
    if (leftBehind.length > 0) {
      if (persists) keepForNextLoad(leftBehind);
      requeue(leftBehind.flatMap(({ chunk }) => chunk.items));
      drainWhenBudgetFrees = true;
    }
  }

  /**
   * The page may be closing: what the browser did not take is kept for the next load (and forgotten there once sent
   * from here, if the page lives on). Records kept by an earlier event of the same leave (`pagehide`, then
   * `visibilitychange`) are not kept twice.
   */
  function keepForNextLoad(left: LeftBehind): void {
    keep(
      left.flatMap(({ signal, chunk }) => {
        const fresh = chunk.items.filter((item) => !isKept(item));
        const chunks = fresh.length === chunk.items.length ? [chunk] : chunksOf(signal, fresh as ItemOf[Signal][]);
        return chunks.map(({ items, body }) => ({ path: INGEST_PATHS[signal], body, items }));
      }),
    );
  }

  /** A keepalive request from the unload path settled, so the page is still alive: book it, then send what was left. */
  function afterUnloadRequest(url: string, items: readonly TelemetryItem[], result: SendResult): void {
    settle(url, items, result);
    if (result.verdict === 'retry') fail(url, result);
    else if (drainWhenBudgetFrees) {
      drainWhenBudgetFrees = false;
      flushForUnload();
    }
  }

  return flushForUnload;
}
