import { INGEST_PATHS } from '../../wire/paths';
import type { DebugLog } from '../core/core';
import { warnOnce } from '../core/debug';
import type { DropLedger } from './drops';
import type { MetricItem, TelemetryItem } from './items';
import type { Signal } from './otlp-json';
import type { Persistence } from './persist';
import type { BoundedQueue } from './queue';
import type { Chunk } from './split';
import type { SendResult } from './transport';

export const SIGNAL_OF = { log: 'logs', span: 'traces', metric: 'metrics' } as const;

/** Refusals that resending cannot change: the signal that got one stops for the page. */
const FINAL_STATUSES: readonly number[] = [401, 403, 422];

type Refusal = Extract<SendResult, { verdict: 'refused' }>;

/** A request the page may not get out before it closes, with the records it carries. */
export interface KeptRequest {
  readonly path: string;
  readonly body: string;
  readonly items: readonly TelemetryItem[];
}

/**
 * What becomes of records taken from the queue: back to its front, delivered, refused, persisted, or dropped. Records
 * being sent stay counted against the queue's bound until booked here. A tuple, like the pipeline's other units (see
 * DropLedger).
 */
export type Outcomes = readonly [
  /** True once the signal was refused for good (401, 403, 422): nothing more of it is sent from this page. */
  stopped: (signal: Signal) => boolean,
  /** Puts records back at the front of the queue; drop reports are not queue records and are rebuilt instead. */
  requeue: (items: readonly TelemetryItem[]) => void,
  /** Records are done with: delivered, refused, persisted or dropped. Returns how many (reports aside). */
  book: (items: readonly TelemetryItem[]) => number,
  /** Records of a stopped signal: done with, counted as refused. */
  lose: (items: readonly TelemetryItem[]) => void,
  /** Books the outcome of one request of queue records (drop reports included). */
  settle: (url: string, items: readonly TelemetryItem[], result: SendResult) => void,
  /**
   * A refusal: the records are lost (counted), a misconfiguration is warned about once even without `debug`, and a
   * status that resending cannot change stops the signal for the page.
   */
  refused: (url: string, signal: Signal | undefined, count: number, result: Refusal) => void,
  /** The retry budget is spent: the requests go to the outbox, and their records leave the queue. */
  persist: (signal: Signal, chunks: readonly Chunk<TelemetryItem>[]) => void,
  /** Keeps requests in local storage for the next load (Persistence.keep); forgotten there once their records are booked. */
  keep: (requests: readonly KeptRequest[]) => void,
  /** True when a page-leave flush already kept this record. */
  isKept: (item: TelemetryItem) => boolean,
];

export function createOutcomes(
  queue: Pick<BoundedQueue<TelemetryItem>, 'settle' | 'requeue'>,
  [lose, , isReport, reported]: DropLedger,
  persistence: Persistence | undefined,
  debug: DebugLog,
  loudConsole: Pick<Console, 'warn'>,
): Outcomes {
  const stoppedSignals = new Set<Signal>();
  /** Local-storage key of records a page-leave flush kept (see Persistence.keep), until they are done with. */
  const keptKeys = new WeakMap<TelemetryItem, string>();
  /** This page put requests in the outbox: drain it after the next delivery. */
  let drainDue = false;

  function book(items: readonly TelemetryItem[]): number {
    let count = 0;
    const kept = new Set<string>();
    for (const item of items) {
      if (isReport(item)) reported(item as MetricItem);
      else count += 1;
      const key = keptKeys.get(item);
      if (key !== undefined) kept.add(key);
    }
    kept.forEach((key) => persistence!.forget(key));
    queue.settle(count);
    return count;
  }

  function refused(url: string, signal: Signal | undefined, count: number, result: Refusal): void {
    debug.warn(`${url} refused ${count} records with HTTP ${result.status}; they are dropped. ${result.detail}`);
    lose('refused', count);
    // The wording is loaded on the first refusal only: a well-configured page never needs it.
    void import('./misconfig')
      .then(({ misconfiguration }) => {
        const warning = misconfiguration(result.status, result.detail, url);
        if (warning) warnOnce(loudConsole, warning[0], warning[1]);
      })
      .catch(() => debug.warn(`HTTP ${result.status} from ${url}: the explanation could not be loaded`));
    if (signal && FINAL_STATUSES.includes(result.status)) stoppedSignals.add(signal);
  }

  const requeue = (items: readonly TelemetryItem[]): void => queue.requeue(items.filter((item) => !isReport(item)));

  return [
    (signal) => stoppedSignals.has(signal),
    requeue,
    book,
    (items) => lose('refused', book(items)),
    (url, items, result) => {
      if (result.verdict === 'retry') {
        requeue(items);
        return;
      }
      const count = book(items);
      if (result.verdict === 'refused') refused(url, SIGNAL_OF[items[0]!.kind], count, result);
      else if (drainDue) {
        drainDue = false;
        persistence!.drain();
      }
    },
    refused,
    (signal, chunks) => {
      persistence!.store(
        chunks.map((chunk) => ({ path: INGEST_PATHS[signal], body: chunk.body, count: chunk.items.length })),
      );
      drainDue = true;
      for (const chunk of chunks) book(chunk.items);
    },
    (requests) => {
      persistence!.keep(requests).forEach((key, i) => {
        if (key !== undefined) for (const item of requests[i]!.items) keptKeys.set(item, key);
      });
    },
    (item) => keptKeys.has(item),
  ];
}
