/**
 * Time source and timers of the certificate manager, injectable so that tests move time past a renewal point instead of
 * waiting months for it.
 */
export interface Clock {
  now(): number;
  /** Calls `callback` once after `ms` of this clock's time; the returned function cancels it. */
  schedule(ms: number, callback: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  schedule(ms, callback) {
    // Node's timers overflow (and fire at once) above 2^31 - 1 ms; the manager re-plans on every tick anyway.
    const timer = setTimeout(callback, Math.min(Math.max(0, ms), 2 ** 31 - 1));
    // A pending renewal must not keep a process alive that has nothing else to do (tests, the CLI).
    timer.unref();
    return () => clearTimeout(timer);
  },
};
