/**
 * The SDK's one buffer of records: bounded, oldest dropped first, drops counted.
 *
 * Records taken for sending stay counted against the bound until their request settles (`settle` or `requeue`), so
 * what the SDK holds in memory, queued or on the wire, never exceeds `capacity`, and a failed batch can always go back
 * to the front without overflowing. When the queue is full the oldest *waiting* record is dropped; a record on the
 * wire cannot be recalled, so when every slot is on the wire the new record is the one dropped.
 */
export interface BoundedQueue<T> {
  /** Records held: waiting plus on the wire. Never above the capacity. */
  readonly size: number;
  /** Records waiting to be sent. */
  readonly waitingCount: number;
  /** Records dropped because the queue was full, since it was created. */
  readonly dropped: number;
  /** Adds a record, dropping the oldest waiting one when full. Returns false when the new record itself was dropped. */
  push(item: T): boolean;
  /** Takes every waiting record for sending; they stay counted until `settle` or `requeue`. */
  takeAll_(): T[];
  /** `count` records taken earlier are done with (delivered, or refused for good). */
  settle(count: number): void;
  /** Records taken earlier go back to the front, in their order, to be sent again. */
  requeue(items: readonly T[]): void;
}

export function createBoundedQueue<T>(capacity: number): BoundedQueue<T> {
  let waiting: T[] = [];
  let inFlight = 0;
  let dropped = 0;
  const queue: BoundedQueue<T> = {
    get size() {
      return waiting.length + inFlight;
    },
    get waitingCount() {
      return waiting.length;
    },
    get dropped() {
      return dropped;
    },
    push(item) {
      if (waiting.length + inFlight >= capacity) {
        dropped += 1;
        if (waiting.length === 0) return false;
        waiting.shift();
      }
      waiting.push(item);
      return true;
    },
    takeAll_() {
      const taken = waiting;
      waiting = [];
      inFlight += taken.length;
      return taken;
    },
    settle(count) {
      inFlight = Math.max(0, inFlight - count);
    },
    requeue(items) {
      queue.settle(items.length);
      waiting = items.concat(waiting);
    },
  };
  return queue;
}
