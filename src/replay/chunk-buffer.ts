/** One recording: chunks are numbered per replay, from 0, when they are sent. */
export interface ReplayIdentity {
  readonly sessionId: string;
  readonly replayId: string;
  /** The `seq` of the next chunk sent. */
  nextSeq: number;
}

/** How an item matters to playback. */
export type ItemKind =
  /** rrweb's Meta event, which opens a full snapshot: playback can start here. */
  | 'snapshot'
  /** Any other rrweb event: it changes the recorded DOM relative to what came before. */
  | 'dom'
  /** A timeline event (network, navigation, application) or a recipe step: playback does not depend on it. */
  | 'custom';

/** A sealed run of serialized items of one replay, waiting to be sent. */
export interface PendingChunk {
  readonly replay: ReplayIdentity;
  /** Each item's JSON, e.g. one rrweb event. */
  readonly items: readonly string[];
  readonly timestamps_: readonly number[];
  /** UTF-8 bytes of the items' JSON. */
  readonly bytes: number;
  /** Contains a full snapshot: playback of this chunk and those after it does not need the chunks before. */
  readonly hasSnapshot_: boolean;
}

/** What had to go to keep a buffer within its budget. */
export interface Dropped {
  readonly chunks: number;
  readonly items: number;
  readonly bytes: number;
  /** Recorded DOM changes were lost for good: recording must go on from a new full snapshot to play back. */
  readonly needsSnapshot_: boolean;
}

export interface ChunkBufferOptions {
  /** A chunk is sealed once it holds this many bytes (one item larger than that is a chunk of its own). */
  readonly maxChunkBytes_: number;
  /** ... or this many items. */
  readonly maxChunkItems_: number;
  /** Most bytes sealed chunks may hold (see {@link ChunkBuffer} for what is not counted). */
  readonly budgetBytes_: number;
  /**
   * Items are rrweb events that depend on each other: drop whole runs from a full snapshot on (see
   * {@link ChunkBuffer}). Otherwise items are independent, and the oldest chunks are dropped first.
   */
  readonly playback_: boolean;
  readonly onDrop_: (dropped: Dropped) => void;
}

interface OpenChunk {
  replay: ReplayIdentity;
  items: string[];
  timestamps_: number[];
  bytes: number;
  hasSnapshot_: boolean;
  hasDom: boolean;
  endsWithSnapshot: boolean;
}

const sumBytes = (chunks: readonly PendingChunk[]): number => chunks.reduce((sum, chunk) => sum + chunk.bytes, 0);

/**
 * A replay buffer: items are added serialized, collected into chunks, and sealed chunks wait for the sender in
 * order. Chunks get their `seq` only when they are sent, so a dropped chunk leaves no gap in the numbering.
 *
 * Memory is bounded: sealed chunks may hold `budgetBytes`. Over that, whole chunks are dropped. For rrweb
 * events (`playback`), dropping single events or arbitrary chunks would leave a replay that references DOM nodes it
 * never saw, so: the chunks before the latest full snapshot are dropped when what follows that snapshot fits the
 * budget (the snapshot's own chunk is not counted: a large page's snapshot alone may exceed it); otherwise all of
 * them, and `onDrop` says a new full snapshot is needed; DOM events recorded until it comes are dropped too. A Meta
 * event after DOM events starts a new chunk, so a full snapshot opens the chunk it is in.
 */
export class ChunkBuffer {
  private open_: OpenChunk | undefined;
  private readonly sealed_: PendingChunk[] = [];
  /** Everything was dropped (`needsSnapshot`): DOM events are useless until the next full snapshot. */
  private awaitingSnapshot_ = false;

  constructor(private readonly options_: ChunkBufferOptions) {}

  /** Adds one item; returns true when a chunk is full (the item did not fit, or filled it) and should be sent. */
  add(replay: ReplayIdentity, json: string, bytes: number, timestamp: number, kind: ItemKind): boolean {
    const { maxChunkBytes_: maxChunkBytes, maxChunkItems_: maxChunkItems } = this.options_;
    const open = this.open_;
    // The FullSnapshot that follows a Meta event stays with it, however large: together they open the chunk.
    const full = open !== undefined && open.bytes + bytes > maxChunkBytes && !open.endsWithSnapshot;
    if (full || (open !== undefined && (open.replay !== replay || (kind === 'snapshot' && open.hasDom)))) this.seal();
    if (this.awaitingSnapshot_) {
      // Recorded after everything was dropped and before the new full snapshot: it describes changes to DOM nodes
      // a replay of what is left would not know.
      if (kind === 'dom') return full;
      if (kind === 'snapshot') this.awaitingSnapshot_ = false;
    }
    const chunk = (this.open_ ??= {
      replay,
      items: [],
      timestamps_: [],
      bytes: 0,
      hasSnapshot_: false,
      hasDom: false,
      endsWithSnapshot: false,
    });
    chunk.items.push(json);
    chunk.timestamps_.push(timestamp);
    chunk.bytes += bytes;
    chunk.hasSnapshot_ ||= kind === 'snapshot';
    chunk.hasDom ||= kind !== 'custom';
    chunk.endsWithSnapshot = kind === 'snapshot';
    if ((chunk.bytes < maxChunkBytes || chunk.endsWithSnapshot) && chunk.items.length < maxChunkItems) return full;
    this.seal();
    return true;
  }

  /** Closes the chunk being filled, if any, so that it can be sent. */
  seal(): void {
    const open = this.open_;
    if (open === undefined) return;
    this.open_ = undefined;
    const { replay, items, timestamps_, bytes, hasSnapshot_ } = open;
    this.sealed_.push({ replay, items, timestamps_, bytes, hasSnapshot_ });
    this.enforceBudget_();
  }

  /** The oldest sealed chunk, removed from the buffer. */
  next(): PendingChunk | undefined {
    return this.sealed_.shift();
  }

  /** Every chunk, the one being filled included, removed from the buffer. */
  takeAll_(): PendingChunk[] {
    this.seal();
    return this.sealed_.splice(0);
  }

  private enforceBudget_(): void {
    const budget = this.options_.budgetBytes_;
    if (sumBytes(this.sealed_) <= budget) return;
    const dropCount = this.options_.playback_ ? this.playbackDropCount_(budget) : this.oldestDropCount_(budget);
    if (dropCount === 0) return;
    const dropped = this.sealed_.splice(0, dropCount);
    this.awaitingSnapshot_ = this.options_.playback_ && this.sealed_.length === 0;
    this.options_.onDrop_({
      chunks: dropped.length,
      items: dropped.reduce((sum, chunk) => sum + chunk.items.length, 0),
      bytes: sumBytes(dropped),
      needsSnapshot_: this.awaitingSnapshot_,
    });
  }

  private playbackDropCount_(budget: number): number {
    let latest = this.sealed_.length - 1;
    while (latest >= 0 && !this.sealed_[latest]!.hasSnapshot_) latest--;
    return latest >= 0 && sumBytes(this.sealed_.slice(latest + 1)) <= budget ? latest : this.sealed_.length;
  }

  private oldestDropCount_(budget: number): number {
    let total = sumBytes(this.sealed_);
    let count = 0;
    // The newest chunk always stays: it is at most one chunk, and the reason the others go.
    while (total > budget && count < this.sealed_.length - 1) total -= this.sealed_[count++]!.bytes;
    return count;
  }
}
