/** How often the server looks for new errors: a burst is noticed within this (docs/incidents.md). */
export const DETECTION_INTERVAL_MS = 10_000;

/** A job of the detection schedule: the error detector, the alert rule evaluator (docs/alerts.md). */
export interface DetectionRun {
  /** For the log line of a failed run, e.g. `incident detection`. */
  name: string;
  runOnce(): Promise<unknown>;
}

/**
 * Runs each job every `intervalMs`, one run at a time, in order; a failed run is logged, the jobs after it still run,
 * and the next tick tries again.
 */
export function scheduleDetection(
  runs: readonly DetectionRun[],
  log: (line: string) => void,
  intervalMs = DETECTION_INTERVAL_MS,
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    running = running.then(async () => {
      for (const run of runs) {
        if (stopped) return;
        try {
          await run.runOnce();
        } catch (error) {
          log(`${run.name} failed: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    });
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
