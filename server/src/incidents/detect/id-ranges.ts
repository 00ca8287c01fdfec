import type { ExpressionBuilder } from 'kysely';
import type { Database } from '../../db/schema';
import type { DetectionSource } from './tables';

/** Ids `from`..`to`, both included. */
export type IdRange = readonly [from: number, to: number];

/**
 * Ranges per statement: each is two bound parameters, and even a `maxGaps` far above the default keeps a statement
 * well inside SQLite's and PostgreSQL's parameter limits.
 */
const RANGES_PER_QUERY = 200;

/** Ascending ids as runs of consecutive ids. */
export function runsOf(ids: readonly number[]): IdRange[] {
  const runs: Array<[number, number]> = [];
  for (const id of ids) {
    const last = runs[runs.length - 1];
    if (last && id === last[1] + 1) last[1] = id;
    else runs.push([id, id]);
  }
  return runs;
}

/** `ranges` in statement-sized pieces, in their order. */
export function rangeChunks(ranges: readonly IdRange[]): IdRange[][] {
  const chunks: IdRange[][] = [];
  for (let i = 0; i < ranges.length; i += RANGES_PER_QUERY) chunks.push(ranges.slice(i, i + RANGES_PER_QUERY));
  return chunks;
}

/** `where` condition: the row's id is in one of `ranges` (index range scans on both databases). */
export const idIn = (ranges: readonly IdRange[]) => (eb: ExpressionBuilder<Database, DetectionSource>) =>
  eb.or(ranges.map(([from, to]) => eb.between('id', from, to)));

/**
 * `read` over the rows with exactly these ids (ascending), by runs of consecutive ids, a statement per chunk of runs.
 * Exactly these: a row that commits meanwhile into a gap between them is left to a later batch, not counted twice.
 */
export async function inRuns<T>(
  ids: readonly number[],
  read: (runs: readonly IdRange[]) => Promise<T[]>,
): Promise<T[]> {
  const found: T[] = [];
  for (const runs of rangeChunks(runsOf(ids))) found.push(...(await read(runs)));
  return found;
}
