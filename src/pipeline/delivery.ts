import { INGEST_PATHS } from '../../wire/paths';
import type { Backoff, Retry } from './backoff';
import { SIGNALS, type Batches } from './batches';
import type { Leftover } from './leftovers';
import type { ItemOf, Signal } from './otlp-json';
import type { Outcomes } from './outcomes';
import { postBody, type SendResult, type Transport } from './transport';
import { utf8Length } from './utf8';

/** Consecutive failed flushes after which the records of a failing request go to the outbox instead of the queue. */
const PERSIST_AFTER_FAILURES = 4;

/** The ordinary way out: compressed keepalive requests with the backoff (a tuple, see DropLedger). */
export type Delivery = readonly [
  /** One compressed request with the keepalive flag (within its budget), counted in `answers`. */
  post: (url: string, body: string, bytes: number) => Promise<SendResult>,
  /**
   * Sends every waiting record, each signal as requests of at most ~60 KB in turn, unless a retry wait is running
   * (and not `force`); one step of the backoff however many of them failed.
   */
  flushOnce: (force: boolean) => Promise<void>,
  /** Sends one request kept by an earlier page (or this one); resolves true once it is done with. */
  sendKept: (request: Leftover) => Promise<boolean>,
  /** Requests answered so far, outside the unload path: with a 2xx, and otherwise (refused, failed, timed out). */
  answers: [sent: number, failed: number],
];

/** `persists`: whether the outbox takes the requests of a flush that keeps failing. */
export function createDelivery(
  transport: Transport | undefined,
  urlOf: (signal: Signal) => string,
  [take, chunksOf]: Batches,
  [stopped, , , lose, settle, refused, persist]: Outcomes,
  [failures, wait, pause, , flushed]: Backoff,
  persists: boolean,
): Delivery {
  const answers: Delivery[3] = [0, 0];

  async function post(url: string, body: string, bytes: number): Promise<SendResult> {
    const result = await postBody(transport!, url, body, bytes, true, true);
    answers[result.verdict === 'delivered' ? 0 : 1]++;
    return result;
  }

  /** Sends one signal's records as requests of at most ~60 KB, in turn; stops at the first retryable failure. */
  async function sendSignal<S extends Signal>(signal: S, items: ItemOf[S][]): Promise<Retry | undefined> {
    const url = urlOf(signal);
    if (stopped(signal)) {
      lose(items);
      return undefined;
    }
    const chunks = chunksOf(signal, items);
    for (let i = 0; i < chunks.length; i++) {
      const chunk = chunks[i]!;
      const result = await post(url, chunk.body, chunk.bytes);
      if (result.verdict === 'retry') {
        const nth = failures() + 1;
        if (persists && nth >= PERSIST_AFTER_FAILURES) persist(signal, chunks.slice(i));
        else
          settle(
            url,
            chunks.slice(i).flatMap((c) => c.items),
            result,
          );
        pause(url, result, nth);
        return result;
      }
      settle(url, chunk.items, result);
    }
    return undefined;
  }

  return [
    post,
    async (force) => {
      if (!transport || (!force && wait() > 0)) return;
      const batch = take();
      if (!batch) return;
      const retries = await Promise.all(SIGNALS.map((signal) => sendSignal(signal, batch[signal])));
      flushed(retries.some((r) => r !== undefined));
    },
    async (request) => {
      const signal = SIGNALS.find((s) => INGEST_PATHS[s] === request.path);
      if (!transport || !signal || stopped(signal)) return true;
      const url = urlOf(signal);
      const result = await post(url, request.body, utf8Length(request.body));
      if (result.verdict === 'refused') refused(url, signal, 0, result);
      return result.verdict !== 'retry';
    },
    answers,
  ];
}
