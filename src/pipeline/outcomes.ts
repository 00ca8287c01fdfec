import { INGEST_PATHS } from '../../wire/paths';
import { warnOnce } from '../core/debug';
import { reportSent, countLost } from './drops';
import type { MetricItem, TelemetryItem } from './items';
import type { Signal } from './otlp-json';
import { SIGNAL_OF, type PipelineState } from './pipeline-state';
import type { Chunk } from './split';
import type { SendResult } from './transport';

/** Refusals that resending cannot change (a 404 is a wrong ingestUrl): the signal that got one stops for the page. */
const FINAL_STATUSES: readonly number[] = [401, 403, 404, 422];

type Refusal = Extract<SendResult, { verdict_: 'refused' }>;

/** Puts records back at the front of the queue; drop reports are not queue records and are rebuilt instead. */
export function requeue(state: PipelineState, items: readonly TelemetryItem[]): void {
  state.queue_.requeue(items.filter((item) => !state.reports_.has(item)));
}

/** Records taken from the queue are done with: delivered, refused, persisted or dropped. Returns how many (reports aside). */
export function book(state: PipelineState, items: readonly TelemetryItem[]): number {
  let count = 0;
  const kept = new Set<string>();
  for (const item of items) {
    if (state.reports_.has(item)) reportSent(state, item as MetricItem);
    else count += 1;
    const key = state.keptKeys_.get(item);
    if (key !== undefined) kept.add(key);
  }
  kept.forEach((key) => state.persistence_!.forget_(key));
  state.queue_.settle(count);
  return count;
}

/** Books the outcome of one request of queue records (drop reports included). */
export function settle(state: PipelineState, url: string, items: readonly TelemetryItem[], result: SendResult): void {
  if (result.verdict_ === 'retry') {
    requeue(state, items);
    return;
  }
  const count = book(state, items);
  if (result.verdict_ === 'refused') refused(state, url, SIGNAL_OF[items[0]!.kind], count, result);
  else if (state.drainDue_) {
    state.drainDue_ = false;
    state.persistence_!.drain_();
  }
}

/**
 * A refusal: the records are lost (counted), a misconfiguration is warned about once even without `debug`, and a
 * status that resending cannot change stops the signal for the page.
 */
export function refused(
  state: PipelineState,
  url: string,
  signal: Signal | undefined,
  count: number,
  result: Refusal,
): void {
  state.debug_.warn(`${url} refused ${count} records with HTTP ${result.status_}; they are dropped. ${result.detail_}`);
  countLost(state, 'refused', count);
  explain(state, url, result.status_, result.detail_);
  if (signal && FINAL_STATUSES.includes(result.status_)) state.stoppedSignals_.add(signal);
}

/** The one loud warning for an answer that says the setup or a limit needs fixing (misconfig.ts), once per kind. */
export function explain(state: PipelineState, url: string, status: number, detail: string): void {
  // The wording is loaded on the first such answer only (with the outbox code): a well-configured page never needs
  // it. A chunk that cannot load (a deploy replaced it) leaves the warning out; the browser reports the failed load.
  void import('./outbox')
    .then(({ misconfiguration }) => {
      const warning = misconfiguration(status, detail, url);
      if (warning) warnOnce(state.console_, warning[0], warning[1]);
    })
    .catch(() => undefined);
}

/** The retry budget is spent: the requests go to the outbox, and their records leave the queue. */
export function persist(state: PipelineState, signal: Signal, chunks: readonly Chunk<TelemetryItem>[]): void {
  state.persistence_!.store_(
    chunks.map((chunk) => ({
      path: INGEST_PATHS[signal],
      body: chunk.body,
      count: chunk.items.length,
      bytes: chunk.bytes,
    })),
  );
  state.drainDue_ = true;
  for (const chunk of chunks) book(state, chunk.items);
}
