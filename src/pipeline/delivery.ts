import { INGEST_PATHS } from '../../wire/paths';
import { backoff, failedOutsideFlush, type Retry } from './backoff';
import { chunksOf, takeBatch } from './batches';
import { countLost } from './drops';
import type { Leftover } from './leftovers';
import type { ItemOf, Signal } from './otlp-json';
import { book, persist, refused, settle } from './outcomes';
import { SIGNALS, urlOf, type PipelineState } from './pipeline-state';
import { postBody, type SendResult } from './transport';
import { utf8Length } from './utf8';

/** Consecutive failed flushes after which the records of a failing request go to the outbox instead of the queue. */
const PERSIST_AFTER_FAILURES = 4;

/** One compressed request with the keepalive flag (within its budget), counted in `answers_`. */
export async function post(state: PipelineState, url: string, body: string, bytes: number): Promise<SendResult> {
  const result = await postBody(state.transport_!, url, body, bytes, true, true);
  state.answers_[result.verdict_ === 'delivered' ? 0 : 1]++;
  return result;
}

/** Sends one request kept by an earlier page (or this one); resolves true once it is done with. */
export async function sendKept(state: PipelineState, request: Leftover): Promise<boolean> {
  const signal = SIGNALS.find((s) => INGEST_PATHS[s] === request.path);
  if (!state.transport_ || !signal || state.stoppedSignals_.has(signal)) return true;
  const url = urlOf(state, signal);
  const result = await post(state, url, request.body, utf8Length(request.body));
  if (result.verdict_ === 'refused') refused(state, url, signal, 0, result);
  else if (result.verdict_ === 'retry') {
    // The drain stops here; it goes on after the backoff, with the next delivery.
    state.drainDue_ = true;
    failedOutsideFlush(state, url, result);
  }
  return result.verdict_ !== 'retry';
}

/** Sends one signal's records as requests of at most ~60 KB, in turn; stops at the first retryable failure. */
async function sendSignal<S extends Signal>(
  state: PipelineState,
  signal: S,
  items: ItemOf[S][],
): Promise<Retry | undefined> {
  const url = urlOf(state, signal);
  if (state.stoppedSignals_.has(signal)) {
    countLost(state, 'refused', book(state, items));
    return undefined;
  }
  const chunks = chunksOf(state, signal, items);
  for (let i = 0; i < chunks.length; i++) {
    const chunk = chunks[i]!;
    const sending = { signal_: signal, chunk_: chunk };
    state.sending_.add(sending);
    const result = await post(state, url, chunk.body, chunk.bytes);
    state.sending_.delete(sending);
    if (result.verdict_ === 'retry') {
      if (state.persistence_ && state.failures_ + 1 >= PERSIST_AFTER_FAILURES) persist(state, signal, chunks.slice(i));
      else
        settle(
          state,
          url,
          chunks.slice(i).flatMap((c) => c.items),
          result,
        );
      backoff(state, url, result, state.failures_ + 1);
      return result;
    }
    settle(state, url, chunk.items, result);
  }
  return undefined;
}

/** One flush: every waiting record, one request (or several of ~60 KB) per signal, unless paused and not forced. */
export async function flushOnce(state: PipelineState, force: boolean): Promise<void> {
  if (!state.transport_ || (!force && state.clock_.now() < state.pausedUntil_)) return;
  const batch = takeBatch(state);
  if (!batch) return;
  const retries = await Promise.all(SIGNALS.map((signal) => sendSignal(state, signal, batch[signal])));
  // One flush is one step of the backoff, however many of its requests failed.
  state.failures_ = retries.some((r) => r !== undefined) ? state.failures_ + 1 : 0;
}
