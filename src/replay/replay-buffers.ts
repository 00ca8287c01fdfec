import { REPLAY_LIMITS } from '../../wire/replay';
import type { DebugLog } from '../core/core';
import { utf8Length } from '../pipeline/utf8';
import {
  createChunkBuffer,
  type ItemKind,
  type NextChunk,
  type PendingChunk,
  type ReplayIdentity,
} from './chunk-buffer';

/** Smallest buffer budget (see `createReplayBuffers`), bytes. */
const MIN_BUFFER_BYTES = 256_000;

/** Chunks of rrweb and timeline events, then of recipe steps. */
export type Buffered = [events: PendingChunk[], steps: PendingChunk[]];

export interface ReplayBuffers {
  /**
   * Serializes `value` once and adds it to the events (0) or the recipe steps (1). An item over
   * `REPLAY_LIMITS.maxEventBytes`, or one that cannot be serialized, is dropped with a warning; for a recorded (not
   * `custom`) event, which playback cannot do without, its size is returned instead.
   */
  add_(steps: 0 | 1, replay: ReplayIdentity, value: unknown, timestamp: number, kind: ItemKind): number | void;
  next_: NextChunk;
  /** Closes the chunks being filled, so that they can be sent. */
  seal_(): void;
  /** Every chunk of both buffers, removed from them. */
  takeAll_(): Buffered;
  /** Bytes buffered in both, the chunks being filled included. */
  bytes_(): number;
}

/**
 * The replay's two buffers (chunk-buffer.ts): rrweb and timeline events, and recipe steps, each within the same
 * budget. `onSnapshotNeeded` is told when recorded DOM changes were dropped for good, `onFull` when a chunk is ready.
 */
export function createReplayBuffers(
  maxChunkBytes: number,
  debug: DebugLog,
  onSnapshotNeeded: () => void,
  onFull: () => void,
): ReplayBuffers {
  // Twice a chunk, so one can wait while another is retried; at least MIN_BUFFER_BYTES, so that a tiny
  // maxChunkBytes does not turn every event into a dropped chunk and a new full snapshot while sending is slow.
  const budgetBytes = Math.max(2 * maxChunkBytes, MIN_BUFFER_BYTES);
  const names = ['events', 'recipe steps'];
  const buffers = [REPLAY_LIMITS.maxChunkEvents, REPLAY_LIMITS.maxRecipeSteps].map((maxChunkItems, i) =>
    // Items are counted with their comma in the chunk's JSON array, which adds one more byte (a bracket).
    createChunkBuffer({
      maxChunkBytes_: maxChunkBytes - 1,
      maxChunkItems_: maxChunkItems,
      budgetBytes_: budgetBytes,
      playback_: !i,
      onDrop_: (dropped) => {
        debug.warn(
          `replay buffer full (${budgetBytes} bytes): ${dropped.items_} ${names[i]} (${dropped.bytes_} bytes) dropped`,
        );
        if (dropped.needsSnapshot_) onSnapshotNeeded();
      },
    }),
  );
  return {
    add_(steps, replay, value, timestamp, kind) {
      let json: string;
      try {
        json = JSON.stringify(value);
      } catch (error) {
        debug.warn('a replay event or recipe step could not be serialized; it is dropped', error);
        return;
      }
      const bytes = utf8Length(json);
      if (bytes <= REPLAY_LIMITS.maxEventBytes) {
        if (buffers[steps]!.add_(replay, json, bytes + 1, timestamp, kind)) onFull();
      } else if (kind !== 'custom') return bytes;
      else
        debug.warn(
          `${steps ? 'a recipe step' : 'a replay event'} of ${bytes} bytes is over the ${REPLAY_LIMITS.maxEventBytes}-byte limit; it is dropped`,
        );
    },
    next_: (steps) => buffers[steps]!.next_(),
    seal_: () => buffers.forEach((buffer) => buffer.seal_()),
    takeAll_: () => buffers.map((buffer) => buffer.takeAll_()) as Buffered,
    bytes_: () => buffers[0]!.bytes_() + buffers[1]!.bytes_(),
  };
}
