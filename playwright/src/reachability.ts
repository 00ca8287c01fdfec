/**
 * Whether svc answers, as far as this worker (one process) knows. While it is found unreachable, each test waits
 * {@link DOWN_FLUSH_MS} at most for its pages' flushes instead of flushTimeoutMs, so a suite run while svc is down is
 * not slowed by seconds per test; the SDK keeps what it could not send and retries on its own. Found unreachable by a
 * flush that ran out of time or had none of its requests taken, or by the one probe each worker makes at its first
 * test (Playwright starts a new worker after a failed test, so without it each one would learn it from a full wait);
 * lifted by the first flush that gets through.
 */
let svcDown = false;
let probed = false;

/** The wait for a flush while svc is found unreachable. */
const DOWN_FLUSH_MS = 500;
/** The probe's bound: a server on the same network answers its health check in milliseconds. */
const PROBE_TIMEOUT_MS = 1_000;

/** What one flush says about svc (see {@link svcDown}). */
export function noteReachability(outcome: { sent?: number; failed?: number; timedOut?: true }): void {
  if (outcome.timedOut || (outcome.sent === 0 && (outcome.failed ?? 0) > 0)) svcDown = true;
  else if ((outcome.sent ?? 0) > 0) svcDown = false;
}

/**
 * Asks `{url}/healthz` once per worker, in the background of its first test: a refused connection, a timeout or a
 * non-2xx answer marks svc unreachable until a flush gets through. Never rejects.
 */
export function probeOnce(url: string | undefined): Promise<void> {
  if (probed || !url) return Promise.resolve();
  probed = true;
  return fetch(`${url}/healthz`, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) }).then(
    (res) => {
      if (!res.ok) svcDown = true;
      return res.body?.cancel();
    },
    () => {
      svcDown = true;
    },
  );
}

/** How long a flush may take now: flushTimeoutMs, or {@link DOWN_FLUSH_MS} while svc is found unreachable. */
export const flushBound = (flushTimeoutMs: number): number =>
  svcDown ? Math.min(flushTimeoutMs, DOWN_FLUSH_MS) : flushTimeoutMs;
