import { INGEST_PATHS } from '../../wire/paths';
import { MAX_REQUEST_BYTES } from '../pipeline/keepalive-budget';
import type { Leftover, LeftoverStore } from '../pipeline/leftovers';
import { splitIntoChunks } from '../pipeline/split';
import type { Pipeline } from '../pipeline/types';
import type { Buffered } from './replay-buffers';
import { chunkBody, eventsJson, recipesBody } from './encode';
import type { InFlight, ReplaySender } from './sender';

/** A seq no chunk reaches: unload bodies are sized with it, then built with their real seq (never longer). */
const SIZING_SEQ = Number.MAX_SAFE_INTEGER;

/** What a closing page sends: the chunk in flight (unless already kept), then everything buffered, in ~60 KB requests. */
function unloadRequests(serviceName: string, flight: InFlight | undefined, [chunks, batches]: Buffered): Leftover[] {
  const requests: Leftover[] = [];
  if (flight !== undefined) {
    const { chunk_: chunk, seq_: seq } = flight;
    const body = chunkBody(serviceName, chunk.replay_, seq, chunk.timestamps_, eventsJson(chunk.items_));
    requests.push({ path: INGEST_PATHS.replayChunk, body });
  }
  for (const chunk of chunks) {
    const indices = chunk.items_.map((_, i) => i);
    const encode = (seq: number) => (part: readonly number[]) =>
      chunkBody(
        serviceName,
        chunk.replay_,
        seq,
        part.map((i) => chunk.timestamps_[i]!),
        eventsJson(part.map((i) => chunk.items_[i]!)),
      );
    for (const part of splitIntoChunks(indices, encode(SIZING_SEQ), MAX_REQUEST_BYTES)) {
      requests.push({ path: INGEST_PATHS.replayChunk, body: encode(chunk.replay_.nextSeq++)(part.items) });
    }
  }
  for (const batch of batches) {
    const encode = (part: readonly string[]) => recipesBody(serviceName, batch.replay_, part);
    for (const part of splitIntoChunks(batch.items_, encode, MAX_REQUEST_BYTES)) {
      requests.push({ path: INGEST_PATHS.replayRecipes, body: part.body });
    }
  }
  return requests;
}

/**
 * Page hidden or closing: hands `buffered` and the chunk being sent to the browser in keepalive requests of at most
 * ~60 KB, keeping a copy in local storage of each until it is known to be delivered (sent by the next page load).
 * Nothing without `buffered` (a session not recorded in full sends nothing as it goes).
 */
export function flushForUnload(
  serviceName: string,
  pipeline: Pick<Pipeline, 'postJson'>,
  leftovers: LeftoverStore,
  sender: ReplaySender,
  buffered: Buffered | undefined,
): void {
  if (!buffered) return;
  // The chunk being posted now goes out with an ordinary request, which may not outlive the page: keep a copy.
  const inFlight = sender.inFlight_;
  const flight = inFlight?.savedKey_ === undefined ? inFlight : undefined;
  const requests = unloadRequests(serviceName, flight, buffered);
  if (requests.length === 0) return;
  // Saved before the hand-over, because a closing page never learns whether a keepalive request got out; each
  // copy is removed as soon as its request is known to be delivered.
  const keys = leftovers.save_(requests);
  requests.forEach((request, i) => {
    const key = keys[i];
    if (i === 0 && flight !== undefined) {
      flight.savedKey_ = key;
      return;
    }
    void pipeline.postJson(request.path, request.body, true).then(async (handedOver) => {
      // Still alive (the page was only hidden): what the browser did not take goes the ordinary way.
      const delivered = handedOver || (await pipeline.postJson(request.path, request.body));
      if (delivered && key !== undefined) leftovers.remove_(key);
    });
  });
}

/** `buffered` as `[path, body]` requests, the events as JSON, the chunks numbered as if sent now. */
export function drainRequests(
  serviceName: string,
  [chunks, batches]: Buffered = [[], []],
): Array<[path: string, body: string]> {
  return [
    ...chunks.map((c): [string, string] => [
      INGEST_PATHS.replayChunk,
      chunkBody(serviceName, c.replay_, c.replay_.nextSeq++, c.timestamps_, eventsJson(c.items_)),
    ]),
    ...batches.map((b): [string, string] => [
      INGEST_PATHS.replayRecipes,
      recipesBody(serviceName, b.replay_, b.items_),
    ]),
  ];
}
