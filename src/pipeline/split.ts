import { utf8Length } from './utf8';

/** One request's worth of records with its encoded body. */
export interface Chunk<T> {
  readonly items: readonly T[];
  readonly body: string;
  /** UTF-8 size of `body`. */
  readonly bytes: number;
}

/**
 * Encodes `items` into request bodies of at most `maxBytes` each, splitting at record boundaries and keeping order.
 * An oversized body is cut into as many near-equal parts (by record count) as its size calls for, and any part still
 * too big is split again, so typical input is encoded about twice. A single record larger than `maxBytes` becomes a
 * chunk of its own.
 */
export function splitIntoChunks<T>(
  items: readonly T[],
  encode: (items: readonly T[]) => string,
  maxBytes: number,
): Chunk<T>[] {
  if (items.length === 0) return [];
  const body = encode(items);
  const bytes = utf8Length(body);
  if (bytes <= maxBytes || items.length === 1) return [{ items, body, bytes }];
  const parts = Math.min(items.length, Math.ceil(bytes / maxBytes));
  const perPart = Math.ceil(items.length / parts);
  const chunks: Chunk<T>[] = [];
  for (let start = 0; start < items.length; start += perPart) {
    chunks.push(...splitIntoChunks(items.slice(start, start + perPart), encode, maxBytes));
  }
  return chunks;
}
