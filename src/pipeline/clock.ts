/**
 * Time and randomness as the pipeline sees them. Injectable so that tests can check a retry schedule (and a
 * `Retry-After` being honoured) on a virtual clock instead of waiting for it.
 */
export interface PipelineClock {
  /** Epoch milliseconds. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** A number in [0, 1), for backoff jitter. */
  random(): number;
}

/** The real clock, read from globals at call time (never at import, which must stay side-effect free). */
export const SYSTEM_CLOCK: PipelineClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
  random: () => Math.random(),
};
