import { REPLAY_LIMITS } from '../../wire/replay';
import type { ResolvedConfig } from '../config/types';
import type { DebugLog } from '../core/core';
import { ChunkBuffer, type Dropped, type PendingChunk } from './chunk-buffer';

/** Smallest buffer budget (see `createReplayBuffers`), bytes. */
const MIN_BUFFER_BYTES = 256_000;

/**
 * The replay's two bounded buffers, `[events, recipe steps]`. Each may hold twice a chunk, so one can wait while another
 * is retried, and at least MIN_BUFFER_BYTES, so that a tiny maxChunkBytes does not turn every event into a dropped
 * chunk and a new full snapshot while sending is slow. A drop is warned about, and `requestSnapshot` is called when
 * playback needs a new full snapshot after it.
 */
export function createReplayBuffers(
  options: ResolvedConfig['replay'],
  debug: Pick<DebugLog, 'warn'>,
  requestSnapshot: () => void,
): [events: ChunkBuffer, steps: ChunkBuffer] {
  const budgetBytes = Math.max(2 * options.maxChunkBytes, MIN_BUFFER_BYTES);
  const buffer = (maxChunkItems: number, playback: boolean, what: string) =>
    new ChunkBuffer({
      // Items are counted with their comma in the chunk's JSON array, which adds one more byte (a bracket).
      maxChunkBytes: options.maxChunkBytes - 1,
      maxChunkItems,
      budgetBytes,
      playback,
      onDrop: (dropped: Dropped) => {
        debug.warn(
          `replay buffer full (${budgetBytes} bytes): ${dropped.items} ${what} (${dropped.bytes} bytes) dropped`,
        );
        if (dropped.needsSnapshot) requestSnapshot();
      },
    });
  return [
    buffer(REPLAY_LIMITS.maxChunkEvents, true, 'events'),
    buffer(REPLAY_LIMITS.maxRecipeSteps, false, 'recipe steps'),
  ];
}

/**
 * On-error mode's hold window: at each window's end what the buffers hold is kept and what was kept before let go, so
 * an error sends between one and two windows of replay. `[close, release]`: `close` ends a window; `release` gives
 * what is held (and holds nothing more).
 */
export function createHoldWindow(
  events: ChunkBuffer,
  steps: ChunkBuffer,
): readonly [close: () => void, release: () => [events: PendingChunk[], steps: PendingChunk[]]] {
  let held: [PendingChunk[], PendingChunk[]] = [[], []];
  return [
    () => {
      held = [events.takeAll(), steps.takeAll()];
    },
    () => {
      const released = held;
      held = [[], []];
      return released;
    },
  ];
}
