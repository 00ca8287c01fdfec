/**
 * The SDK's one buffer of records: bounded, oldest dropped first, drops counted.
 *
 * Records taken for sending stay counted against the bound until their request settles (`settle` or `requeue`), so
 * what the SDK holds in memory, queued or on the wire, never exceeds `capacity`, and a failed batch can always go back
 * to the front without overflowing. When the queue is full the oldest *waiting* record is dropped; a record on the
 * wire cannot be recalled, so when every slot is on the wire the new record is the one dropped.
 */
export class BoundedQueue<T> {
  private waiting_: T[] = [];
  private inFlight_ = 0;
  private droppedCount_ = 0;

  constructor(private readonly capacity_: number) {}

  /** Records held: waiting plus on the wire. Never above the capacity. */
  get size(): number {
    return this.waiting_.length + this.inFlight_;
  }

  /** Records waiting to be sent. */
  get waitingCount(): number {
    return this.waiting_.length;
  }

  /** Records dropped because the queue was full, since it was created. */
  get dropped(): number {
    return this.droppedCount_;
  }

  /** Adds a record, dropping the oldest waiting one when full. Returns false when the new record itself was dropped. */
  push(item: T): boolean {
    if (this.size >= this.capacity_) {
      this.droppedCount_ += 1;
      if (this.waiting_.length === 0) return false;
      this.waiting_.shift();
    }
    this.waiting_.push(item);
    return true;
  }

  /** Takes every waiting record for sending; they stay counted until `settle` or `requeue`. */
  takeAll_(): T[] {
    const taken = this.waiting_;
    this.waiting_ = [];
    this.inFlight_ += taken.length;
    return taken;
  }

  /** `count` records taken earlier are done with (delivered, or refused for good). */
  settle(count: number): void {
    this.inFlight_ = Math.max(0, this.inFlight_ - count);
  }

  /** Records taken earlier go back to the front, in their order, to be sent again. */
  requeue(items: readonly T[]): void {
    this.settle(items.length);
    this.waiting_ = items.concat(this.waiting_);
  }
}
