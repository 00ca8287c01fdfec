import { openDatabase } from '../../server/src/index';

/**
 * Time as the notification outbox of server processes sees it, driven by the test rather than waited for. A process
 * claims a delivery once its `next_attempt_ms` is at or before the process's clock, so moving every pending delivery's
 * due time earlier by `ms` is, to the outbox, the same as `ms` passing: what falls due, and in which order, follows
 * from the test's steps, never from how fast a loaded machine runs them. Deliveries are given due times far enough
 * ahead that none falls due on its own while a test runs, and `advance()` brings them due.
 */
export interface OutboxTime {
  /** The wall clock plus every advance so far: the time due times recorded before an advance are compared with. */
  now(): number;
  /** Every advance so far: a due time recorded before them is now this much earlier in the database. */
  advancedMs(): number;
  /** Brings every scheduled or retrying delivery `ms` closer to its time, as if `ms` had passed. */
  advance(ms: number): Promise<void>;
  /** Advances to `atMs` (a due time recorded earlier), unless it is past already: what is due by then is due now. */
  advanceTo(atMs: number): Promise<void>;
}

export function outboxTime(databaseUrl: string): OutboxTime {
  let advancedMs = 0;
  const now = () => Date.now() + advancedMs;
  const advance = async (ms: number) => {
    // Counted first: a delivery this advance brings due arrives after it, and so is timed with it.
    advancedMs += ms;
    const handle = openDatabase(databaseUrl);
    try {
      await handle.db
        .updateTable('deliveries')
        .set((eb) => ({ next_attempt_ms: eb('next_attempt_ms', '-', ms) }))
        .where('state', 'in', ['scheduled', 'retrying'])
        .execute();
    } finally {
      await handle.close();
    }
  };
  return { now, advancedMs: () => advancedMs, advance, advanceTo: (atMs) => advance(Math.max(0, atMs - now())) };
}
