import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import type { SlotBuckets } from './slot-histogram';

/**
 * What one ten-minute slot of one rule's rows added up to (alerts/query/slots.ts), kept in memory per database, so
 * that a window of an hour or a day reads the database only at its edges (docs/alerts.md, "Cost"). Each process keeps
 * its own: the slots are recomputed, never shared, so replicas need not agree on anything.
 */
export interface SlotTotals {
  /** Rows counted. */
  n: number;
  /** The sum the measure adds up (a share's hits, a metric's values); 0 for a count or a percentile. */
  sum: number;
  /** A percentile's log-bucketed histogram (slot-histogram.ts). */
  histogram?: SlotBuckets;
}

/**
 * A slot is read again this long after it was read: records that arrive later than the settling time (a retried
 * batch, a browser's queue sent on its next visit) count from then on, and so do deletions by retention or erasure.
 */
export const REREAD_MS = 3_600_000;

/**
 * Most a cache holds, in units of a slot (8) plus 4 per histogram bucket (its index, count, least and greatest value):
 * a day-long rule's window and a baseline take 288 slots, a percentile's slot up to a hundred or so buckets;
 * 4,000,000 units (some 40 MB) hold a thousand rules with room. Past it, the slots used longest ago go first.
 */
export const MAX_UNITS = 4_000_000;

const unitsOf = (totals: SlotTotals) => 8 + 4 * (totals.histogram?.indexes.length ?? 0);

interface Entry {
  totals: SlotTotals;
  readAtMs: number;
}

export class SlotCache {
  /** By key, in the order they were last used (a Map keeps insertion order): the first is the one to drop. */
  private readonly entries = new Map<string, Entry>();
  private units = 0;

  constructor(private readonly maxUnits = MAX_UNITS) {}

  /** The slot's totals, unless never read or read {@link REREAD_MS} or more before `nowMs`. */
  get(key: string, nowMs: number): SlotTotals | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.drop(key, entry);
    if (nowMs - entry.readAtMs >= REREAD_MS) return undefined;
    this.entries.set(key, entry);
    this.units += unitsOf(entry.totals);
    return entry.totals;
  }

  set(key: string, totals: SlotTotals, nowMs: number): void {
    const old = this.entries.get(key);
    if (old) this.drop(key, old);
    this.entries.set(key, { totals, readAtMs: nowMs });
    this.units += unitsOf(totals);
    for (const [oldest, entry] of this.entries) {
      if (this.units <= this.maxUnits) break;
      this.drop(oldest, entry);
    }
  }

  /** Forgets every slot. */
  clear(): void {
    this.entries.clear();
    this.units = 0;
  }

  /** Slots held. */
  get size(): number {
    return this.entries.size;
  }

  private drop(key: string, entry: Entry): void {
    this.entries.delete(key);
    this.units -= unitsOf(entry.totals);
  }
}

const caches = new WeakMap<Kysely<Database>, SlotCache>();

/** The cache of one database's slots (one per server: two servers in one process keep theirs apart). */
export function slotCacheOf(db: Kysely<Database>): SlotCache {
  let cache = caches.get(db);
  if (!cache) caches.set(db, (cache = new SlotCache()));
  return cache;
}
