import { describe, expect, it } from 'vitest';
import {
  createChunkBuffer,
  type Dropped,
  type ItemKind,
  type PendingChunk,
  type ReplayIdentity,
} from '../../src/replay/chunk-buffer';

/** The replay buffer's budget rules (here 200 bytes of sealed chunks), item by item. */

const replay: ReplayIdentity = { sessionId: 's', replayId: 'r', nextSeq: 0 };

function buffer(playback: boolean) {
  const drops: Dropped[] = [];
  const chunks = createChunkBuffer({
    maxChunkBytes_: 100,
    maxChunkItems_: Infinity,
    budgetBytes_: 200,
    playback_: playback,
    onDrop_: (dropped) => drops.push(dropped),
  });
  let ts = 0;
  const add = (name: string, bytes: number, kind: ItemKind = 'dom') => chunks.add_(replay, name, bytes, ts++, kind);
  const names = (list: PendingChunk[]) => list.map((chunk) => chunk.items_.join(''));
  return { chunks, drops, add, names };
}

describe('ChunkBuffer with rrweb events', () => {
  it('keeps the chunk of the latest full snapshot however large, and drops the chunks before it', () => {
    const { chunks, drops, add, names } = buffer(true);
    add('a', 90);
    add('b', 90);
    add('M', 10, 'snapshot');
    add('S', 500);
    add('c', 90);
    expect(names(chunks.takeAll_())).toEqual(['MS', 'c']);
    expect(drops).toEqual([{ chunks_: 2, items_: 2, bytes_: 180, needsSnapshot_: false }]);
  });

  it('drops everything and asks for a full snapshot when what follows the latest snapshot is over budget', () => {
    const { chunks, drops, add, names } = buffer(true);
    add('M', 10, 'snapshot');
    for (const name of ['a', 'b', 'c', 'd']) add(name, 90);
    expect(drops).toEqual([]);
    add('e', 90);
    expect(drops).toEqual([{ chunks_: 4, items_: 5, bytes_: 370, needsSnapshot_: true }]);
    // Until the new snapshot, DOM events ('e', whose arrival overflowed the budget, and 'f') depend on what
    // was dropped; timeline events do not.
    add('f', 10);
    add('n', 10, 'custom');
    add('M', 10, 'snapshot');
    add('g', 10);
    expect(names(chunks.takeAll_())).toEqual(['nMg']);
  });

  it('starts a new chunk at a Meta event that follows DOM events, not one that follows timeline events only', () => {
    const { chunks, add, names } = buffer(true);
    add('n', 5, 'custom');
    add('M', 5, 'snapshot');
    add('x', 5);
    add('M', 5, 'snapshot');
    expect(names(chunks.takeAll_())).toEqual(['nMx', 'M']);
  });

  it('says a chunk is full when an item does not fit or fills it', () => {
    const { add } = buffer(true);
    expect(add('a', 60)).toBe(false);
    expect(add('b', 60)).toBe(true);
    expect(add('c', 100)).toBe(true);
  });
});

describe('ChunkBuffer with independent items (recipes)', () => {
  it('drops the oldest chunks first and never asks for a snapshot', () => {
    const { chunks, drops, add, names } = buffer(false);
    for (const name of ['a', 'b', 'c', 'd']) add(name, 100, 'custom');
    expect(drops).toEqual([
      { chunks_: 1, items_: 1, bytes_: 100, needsSnapshot_: false },
      { chunks_: 1, items_: 1, bytes_: 100, needsSnapshot_: false },
    ]);
    expect(names(chunks.takeAll_())).toEqual(['c', 'd']);
  });
});
