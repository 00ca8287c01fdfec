import { MEMORY_ENV, MEMORY_EXEC_ARGV, needsMemoryRelaunch } from '../server/src/runtime/memory-relaunch';
import type { TempDatabase } from '../test/support/databases';

/**
 * The environment and node flags of a benchmark's server child: this process's, plus the memory settings `svc-server
 * start` gives itself (server/src/runtime/memory-relaunch.ts), so the benchmarks measure the server as it runs.
 */
export function serverChildEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...(needsMemoryRelaunch() ? MEMORY_ENV : {}), ...extra };
}

export function serverChildNodeArgs(): string[] {
  return needsMemoryRelaunch() ? [...MEMORY_EXEC_ARGV] : [];
}

/** mulberry32: a small, fast, seeded PRNG, so every run generates the same data. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Runs a benchmark's `main` under a watchdog: a run that hangs gives up after `watchdogMs`, and on either failure the
 * throwaway databases in `databases` are dropped (not forever) before the process exits non-zero.
 */
export function runBench(name: string, main: () => Promise<void>, databases: ReadonlySet<TempDatabase>, watchdogMs: number): void {
  const dropAll = () => Promise.allSettled([...databases].map((d) => d.drop()));
  const watchdog = setTimeout(() => {
    console.error(`${name} did not finish within ${Math.round(watchdogMs / 1000)} s; giving up`);
    // Server children exit with their stdin; the throwaway databases need dropping, but not forever.
    const giveUp = new Promise((resolve) => setTimeout(resolve, 10_000).unref());
    void Promise.race([dropAll(), giveUp]).then(() => process.exit(2));
  }, watchdogMs);
  watchdog.unref();
  main().then(
    () => clearTimeout(watchdog),
    async (error: unknown) => {
      console.error(error);
      await dropAll();
      process.exit(1);
    },
  );
}
