/**
 * Runs `task` now and then every `intervalMs`, never two runs at once; a failure is logged as `<name> failed: …`,
 * never thrown. The stop function ends the run under way (its signal aborts: it stops between two batches) and waits
 * for it. The timer does not keep the process alive.
 */
export function runPeriodically(
  name: string,
  task: (signal: AbortSignal) => Promise<unknown>,
  log: (line: string) => void,
  intervalMs: number,
): () => Promise<void> {
  const stopping = new AbortController();
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= task(stopping.signal)
      .then(
        () => undefined,
        (err: unknown) => log(`${name} failed: ${err instanceof Error ? err.message : String(err)}`),
      )
      .finally(() => (running = null));
  };
  run();
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    stopping.abort();
    await running;
  };
}
