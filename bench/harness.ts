import { readFileSync } from 'node:fs';
import { build } from 'esbuild';
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

/** One of `weighted`'s values, drawn with the weights given. */
export const pickWeighted = <T>(random: () => number, weighted: ReadonlyArray<readonly [T, number]>): T => {
  let r = random() * weighted.reduce((sum, [, w]) => sum + w, 0);
  for (const [value, w] of weighted) if ((r -= w) < 0) return value;
  return weighted[weighted.length - 1]![0];
};

/** The ten pages of the shop the page-level benchmarks generate visits to, the most visited first. */
export const SHOP_PAGES = [
  '/',
  '/cart',
  '/checkout',
  '/checkout/payment',
  '/checkout/done',
  '/search',
  '/account',
  '/account/orders',
  '/login',
  '/signup',
] as const;

/**
 * Runs a benchmark's `main` under a watchdog: a run that hangs gives up after `watchdogMs`, and on either failure the
 * throwaway databases in `databases` are dropped (not forever) before the process exits non-zero.
 */
export function runBench(
  name: string,
  main: () => Promise<void>,
  databases: ReadonlySet<TempDatabase>,
  watchdogMs: number,
): void {
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

/**
 * Bundles a benchmark's TypeScript child script into a plain ES module at `outfile` (its local imports inlined,
 * packages left as imports), so the child runs under plain node: `--import tsx` would add tsx's module-loader thread
 * (~45 MB) to the very memory the benchmark measures.
 */
export async function plainNodeScript(source: string, outfile: string): Promise<string> {
  await build({
    entryPoints: [source],
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

/** Resident set size now (`VmRSS`) and at its peak (`VmHWM`) of a process, MiB (Linux /proc). */
export function processMemoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const mib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rss: mib('VmRSS'), peak: mib('VmHWM') };
}
