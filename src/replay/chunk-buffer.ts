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
  readonly replay_: ReplayIdentity;
  /** Each item's JSON, e.g. one rrweb event. */
  readonly items_: readonly string[];
  readonly timestamps_: readonly number[];
  /** UTF-8 bytes of the items' JSON. */
  readonly bytes_: number;
  /** Contains a full snapshot: playback of this chunk and those after it does not need the chunks before. */
  readonly hasSnapshot_: boolean;
}

/** The next chunk of rrweb and timeline events (0) or of recipe steps (1) to send, removed from where it waits. */
export type NextChunk = (steps: 0 | 1) => PendingChunk | undefined;

/** What had to go to keep a buffer within its budget. */
export interface Dropped {
  readonly chunks_: number;
  readonly items_: number;
  readonly bytes_: number;
  /** Recorded DOM changes were lost for good: recording must go on from a new full snapshot to play back. */
  readonly needsSnapshot_: boolean;
}

export interface ChunkBufferOptions {
  /** A chunk is sealed once it holds this many bytes (one item larger than that is a chunk of its own). */
  readonly maxChunkBytes_: number;
  /** ... or this many items. */
  readonly maxChunkItems_: number;
  /** Most bytes sealed chunks may hold (see {@link createChunkBuffer} for what is not counted). */
  readonly budgetBytes_: number;
  /**
   * Items are rrweb events that depend on each other: drop whole runs from a full snapshot on (see
   * {@link createChunkBuffer}). Otherwise items are independent, and the oldest chunks are dropped first.
   */
  readonly playback_: boolean;
  readonly onDrop_: (dropped: Dropped) => void;
}

interface OpenChunk {
  replay_: ReplayIdentity;
  items_: string[];
  timestamps_: number[];
  bytes_: number;
  hasSnapshot_: boolean;
  hasDom_: boolean;
  endsWithSnapshot_: boolean;
}

const sumBytes = (chunks: readonly PendingChunk[]): number => chunks.reduce((sum, chunk) => sum + chunk.bytes_, 0);

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
export interface ChunkBuffer {
  /** Adds one item; returns true when a chunk is full (the item did not fit, or filled it) and should be sent. */
  add_(replay: ReplayIdentity, json: string, bytes: number, timestamp: number, kind: ItemKind): boolean;
  /** Closes the chunk being filled, if any, so that it can be sent. */
  seal_(): void;
  /** The oldest sealed chunk, removed from the buffer. */
  next_(): PendingChunk | undefined;
  /** Every chunk, the one being filled included, removed from the buffer. */
  takeAll_(): PendingChunk[];
  /** Bytes of every chunk, the one being filled included. */
  bytes_(): number;
}

export function createChunkBuffer(options: ChunkBufferOptions): ChunkBuffer {
  const {
    maxChunkBytes_: maxChunkBytes,
    maxChunkItems_: maxChunkItems,
    budgetBytes_: budget,
    playback_: playback,
  } = options;
  let open: OpenChunk | undefined;
  const sealed: PendingChunk[] = [];
  /** Everything was dropped (`needsSnapshot`): DOM events are useless until the next full snapshot. */
  let awaitingSnapshot = false;

  const playbackDropCount = (): number => {
    let latest = sealed.length - 1;
    while (latest >= 0 && !sealed[latest]!.hasSnapshot_) latest--;
    return latest >= 0 && sumBytes(sealed.slice(latest + 1)) <= budget ? latest : sealed.length;
  };
  const oldestDropCount = (): number => {
    let total = sumBytes(sealed);
    let count = 0;
    // The newest chunk always stays: it is at most one chunk, and the reason the others go.
    while (total > budget && count < sealed.length - 1) total -= sealed[count++]!.bytes_;
    return count;
  };
  const enforceBudget = (): void => {
    if (sumBytes(sealed) <= budget) return;
    const dropCount = playback ? playbackDropCount() : oldestDropCount();
    if (dropCount === 0) return;
    const dropped = sealed.splice(0, dropCount);
    awaitingSnapshot = playback && sealed.length === 0;
    options.onDrop_({
      chunks_: dropped.length,
      items_: dropped.reduce((sum, chunk) => sum + chunk.items_.length, 0),
      bytes_: sumBytes(dropped),
      needsSnapshot_: awaitingSnapshot,
    });
  };

  const buffer: ChunkBuffer = {
    add_(replay, json, bytes, timestamp, kind) {
      // The FullSnapshot that follows a Meta event stays with it, however large: together they open the chunk.
      const full = open !== undefined && open.bytes_ + bytes > maxChunkBytes && !open.endsWithSnapshot_;
      if (full || (open !== undefined && (open.replay_ !== replay || (kind === 'snapshot' && open.hasDom_))))
        buffer.seal_();
      if (awaitingSnapshot) {
        // Recorded after everything was dropped and before the new full snapshot: it describes changes to DOM nodes
        // a replay of what is left would not know.
        if (kind === 'dom') return full;
        if (kind === 'snapshot') awaitingSnapshot = false;
      }
      const chunk = (open ??= {
        replay_: replay,
        items_: [],
        timestamps_: [],
        bytes_: 0,
        hasSnapshot_: false,
        hasDom_: false,
        endsWithSnapshot_: false,
      });
      chunk.items_.push(json);
      chunk.timestamps_.push(timestamp);
      chunk.bytes_ += bytes;
      chunk.hasSnapshot_ ||= kind === 'snapshot';
      chunk.hasDom_ ||= kind !== 'custom';
      chunk.endsWithSnapshot_ = kind === 'snapshot';
      if ((chunk.bytes_ < maxChunkBytes || chunk.endsWithSnapshot_) && chunk.items_.length < maxChunkItems) return full;
      buffer.seal_();
      return true;
    },
    seal_() {
      if (open === undefined) return;
      const { replay_, items_, timestamps_, bytes_, hasSnapshot_ } = open;
      open = undefined;
      sealed.push({ replay_, items_, timestamps_, bytes_, hasSnapshot_ });
      enforceBudget();
    },
    next_: () => sealed.shift(),
    takeAll_() {
      buffer.seal_();
      return sealed.splice(0);
    },
    bytes_: () => sumBytes(sealed) + (open ? open.bytes_ : 0),
  };
  return buffer;
}
