import { INGEST_PATHS } from '../../wire/paths';
import type { DebugLog } from '../core/core';
import type { LeftoverStore } from '../pipeline/leftovers';
import type { Pipeline } from '../pipeline/types';
import type { PendingChunk } from './chunk-buffer';
import { chunkBody, eventsJson, recipesBody } from './encode';
import type { InFlight } from './timeline-bodies';
import type { Recording } from './types';

/**
 * The replay's one sender: one request at a time, in order, so chunk numbers (`seq`) follow each other per replay
 * and at most one compression runs at a time. A tuple, not an object: property names survive minification, and the
 * SDK's size budget has no room for them.
 */
export type ReplaySender = readonly [
  /** Numbers, compresses (when a worker is there) and posts one chunk; `lost` is told when it was not delivered. */
  sendChunk: (chunk: PendingChunk) => Promise<void>,
  /** Posts one batch of recipe steps. */
  sendSteps: (batch: PendingChunk) => Promise<void>,
  /** Runs `task` after every request already queued. Never rejects. */
  afterSending: (task: () => Promise<void>) => Promise<void>,
  /** Settles once every request queued so far has. */
  idle: () => Promise<void>,
  /** The chunk being posted now, if any. */
  inFlight: () => InFlight | undefined,
];

export function createReplaySender(
  serviceName: string,
  pipeline: Pick<Pipeline, 'postJson'>,
  debug: DebugLog,
  leftovers: Pick<LeftoverStore, 'remove'>,
  /** The recorder's compression worker, once a recorder has started. */
  encoder: () => Recording['encode'] | undefined,
  lost: (chunk: PendingChunk) => void,
): ReplaySender {
  let inFlight: InFlight | undefined;
  let sending: Promise<void> = Promise.resolve();
  return [
    async (chunk) => {
      const flight: InFlight = { chunk, seq: chunk.replay.nextSeq++ };
      inFlight = flight;
      try {
        // The worker's base64 gzip (node ids delta-encoded), or the events as they are, which the transport gzips.
        const events = await encoder()?.(chunk.items);
        const body = chunkBody(
          serviceName,
          chunk.replay,
          flight.seq,
          chunk.timestamps,
          events ?? eventsJson(chunk.items),
          events !== undefined,
        );
        const delivered = await pipeline.postJson(INGEST_PATHS.replayChunk, body);
        if (delivered && flight.savedKey !== undefined) leftovers.remove(flight.savedKey);
        if (!delivered) {
          debug.warn(
            `replay chunk ${flight.seq} of replay ${chunk.replay.replayId} was not delivered; ingest reports the gap`,
          );
          lost(chunk);
        }
      } finally {
        inFlight = undefined;
      }
    },
    async (batch) => {
      const delivered = await pipeline.postJson(
        INGEST_PATHS.replayRecipes,
        recipesBody(serviceName, batch.replay, batch.items),
      );
      if (!delivered)
        debug.warn(`${batch.items.length} recipe steps of replay ${batch.replay.replayId} were not delivered`);
    },
    (task) => {
      sending = sending.then(task).catch((error: unknown) => debug.error('replay flush failed', error));
      return sending;
    },
    () => sending,
    () => inFlight,
  ];
}
