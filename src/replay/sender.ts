import { INGEST_PATHS } from '../../wire/paths';
import type { DebugLog } from '../core/core';
import type { LeftoverStore } from '../pipeline/leftovers';
import type { Pipeline } from '../pipeline/types';
import type { NextChunk, PendingChunk, ReplayIdentity } from './chunk-buffer';
import { chunkBody, eventsJson, recipesBody } from './encode';
import type { Recording } from './types';

const REPLAY_PATHS: readonly string[] = [INGEST_PATHS.replayChunk, INGEST_PATHS.replayRecipes];

/** The chunk being posted, under its seq, and the local-storage copy an unload made of it. */
export interface InFlight {
  readonly chunk_: PendingChunk;
  readonly seq_: number;
  savedKey_?: string | undefined;
}

export interface ReplaySender {
  /** The recorder's compression worker, once a recorder has started; kept after it stops, for the last chunks. */
  encode_?: Recording['encode'];
  inFlight_?: InFlight | undefined;
  /**
   * After every request already queued, sends what `next` gives, chunks under the next seq of their replay, then
   * recipe steps. Resolves once that is done, also without `next`. Never rejects.
   */
  send_(next?: NextChunk): Promise<void>;
}

/**
 * The replay's sender: one request at a time, in order, so chunk numbers (`seq`) follow each other per replay and at
 * most one compression runs at a time. It starts with the requests an earlier page of this origin left behind, which
 * keep their own replay ids and seqs. `onLost` is told of a chunk that was not delivered.
 */
export function createReplaySender(
  serviceName: string,
  pipeline: Pick<Pipeline, 'postJson'>,
  debug: DebugLog,
  leftovers: LeftoverStore,
  onLost: (replay: ReplayIdentity) => void,
): ReplaySender {
  let sending: Promise<void> = Promise.resolve();
  const after = (task: () => Promise<void>): void => {
    sending = sending.then(task).catch((error: unknown) => debug.error('replay flush failed', error));
  };
  const sendChunk = async (chunk: PendingChunk): Promise<void> => {
    const flight: InFlight = { chunk_: chunk, seq_: chunk.replay_.nextSeq++ };
    sender.inFlight_ = flight;
    try {
      // The worker's base64 gzip (node ids delta-encoded), or the events as they are, which the transport gzips.
      const events = await (sender.encode_ ? sender.encode_(chunk.items_) : undefined);
      const body = chunkBody(
        serviceName,
        chunk.replay_,
        flight.seq_,
        chunk.timestamps_,
        events ?? eventsJson(chunk.items_),
        events !== undefined,
      );
      const delivered = await pipeline.postJson(INGEST_PATHS.replayChunk, body);
      if (delivered && flight.savedKey_ !== undefined) leftovers.remove_(flight.savedKey_);
      if (!delivered) {
        debug.warn(
          `replay chunk ${flight.seq_} of replay ${chunk.replay_.replayId} was not delivered; ingest reports the gap`,
        );
        onLost(chunk.replay_);
      }
    } finally {
      sender.inFlight_ = undefined;
    }
  };
  const sendSteps = async (batch: PendingChunk): Promise<void> => {
    const delivered = await pipeline.postJson(
      INGEST_PATHS.replayRecipes,
      recipesBody(serviceName, batch.replay_, batch.items_),
    );
    if (!delivered) debug.warn(`${batch.items_.length} recipe steps of replay ${batch.replay_.replayId} not delivered`);
  };
  const sender: ReplaySender = {
    send_(next) {
      if (next)
        after(async () => {
          for (let chunk = next(0); chunk !== undefined; chunk = next(0)) await sendChunk(chunk);
          for (let batch = next(1); batch !== undefined; batch = next(1)) await sendSteps(batch);
        });
      return sending;
    },
  };
  after(async () => {
    for (const { key, leftover } of leftovers.list_()) {
      if (REPLAY_PATHS.includes(leftover.path)) await pipeline.postJson(leftover.path, leftover.body);
      // One more attempt only: a body refused twice would otherwise be sent at every page load.
      leftovers.remove_(key);
    }
  });
  return sender;
}
