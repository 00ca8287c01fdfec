import type { Detector } from './detector';

/** How often the server looks for new errors: a burst is noticed within this (docs/incidents.md). */
export const DETECTION_INTERVAL_MS = 10_000;

/** Runs the detector every `intervalMs`, one run at a time; a failed run is logged and the next one tries again. */
export function scheduleDetection(
  detector: Detector,
  log: (line: string) => void,
  intervalMs = DETECTION_INTERVAL_MS,
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    running = running.then(async () => {
      if (stopped) return;
      try {
        await detector.runOnce();
      } catch (error) {
        log(`incident detection failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    });
  }, intervalMs);
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
