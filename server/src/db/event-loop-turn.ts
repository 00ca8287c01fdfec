import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * better-sqlite3 runs each statement synchronously and hands back a settled promise, so an async chain of statements
 * (a job's batches, each awaiting the last: incident detection, retention, alert rules) never gives the event loop
 * back: requests wait for the whole chain. Under half-rate ingest the detector's run of 20-odd batches was one such
 * chain, and the tail of the ingest latency (docs/benchmarks.md). The server's connection calls this before each
 * statement outside a transaction: a chain that has held the loop this long waits for the loop's next turn.
 */
export const LONGEST_TURN_MS = 10;

/** When the current turn of the event loop ran its first statement; undefined between turns. */
let turnStartedMs: number | undefined;

/** Resolves at once within a short turn; past {@link LONGEST_TURN_MS} of it, on the event loop's next turn. */
export async function yieldIfLongTurn(): Promise<void> {
  const now = performance.now();
  if (turnStartedMs === undefined) {
    turnStartedMs = now;
    // Runs once the current chain gives the loop back, however it does: the next statement starts a new turn.
    setImmediate(() => (turnStartedMs = undefined));
    return;
  }
  if (now - turnStartedMs >= LONGEST_TURN_MS) await nextTurn();
}
