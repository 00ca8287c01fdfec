/** How often the server looks for new errors: a burst is noticed within this (docs/incidents.md). */
export const DETECTION_INTERVAL_MS = 10_000;

/**
 * The range `--detection-interval-ms` may take (docs/server.md). Below a quarter second the schedule is mostly
 * overhead: each tick reads the detector's cursor and the due rules even when nothing changed. Above a minute a rule
 * would be evaluated less often than its own interval asks (alerts/evaluate/options.ts: at most a minute).
 */
export const DETECTION_INTERVAL_RANGE = { min: 250, max: 60_000 } as const;

/** A job of the detection schedule: the error detector, the alert rule evaluator (docs/alerts.md). */
export interface DetectionRun {
  /** For the log line of a failed run, e.g. `incident detection`. */
  name: string;
  runOnce(): Promise<unknown>;
}

/**
 * Runs each job every `intervalMs`, one run at a time, in order; a failed run is logged, the jobs after it still run,
 * and the next tick tries again. A tick that comes while a run is still going is skipped rather than queued: with a
 * short interval and a slow run, queued ticks would pile up without end and run back to back.
 */
export function scheduleDetection(
  runs: readonly DetectionRun[],
  log: (line: string) => void,
  intervalMs = DETECTION_INTERVAL_MS,
): () => Promise<void> {
  let running: Promise<void> | undefined;
  let stopped = false;
  const runAll = async () => {
    for (const run of runs) {
      if (stopped) return;
      try {
        await run.runOnce();
      } catch (error) {
        log(`${run.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  };
  const timer = setInterval(() => {
    running ??= runAll().finally(() => (running = undefined));
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
