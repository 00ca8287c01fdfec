import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LOCKS = fileURLToPath(new URL('../../.tmp/', import.meta.url));

/** One try at taking the lock directory `lock`; a lock older than `staleMs` is broken first. */
function tryLock(lock: string, staleMs: number): boolean {
  mkdirSync(LOCKS, { recursive: true });
  try {
    mkdirSync(lock);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > staleMs) rmSync(lock, { recursive: true, force: true });
    return false;
  }
}

/**
 * Runs `fn` while holding a lock directory under .tmp/, so that parallel test files do not build or pack over each
 * other. A lock older than `staleMs` belongs to a crashed run and is broken.
 */
export async function withLock<T>(name: string, staleMs: number, fn: () => Promise<T>): Promise<T> {
  const lock = join(LOCKS, `${name}.lock`);
  while (!tryLock(lock, staleMs)) await new Promise((resolve) => setTimeout(resolve, 250));
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * {@link withLock} for a synchronous `fn`, waiting synchronously: for helpers called where nothing can be awaited.
 * It blocks the calling thread while another process holds the lock.
 */
export function withLockSync<T>(name: string, staleMs: number, fn: () => T): T {
  const lock = join(LOCKS, `${name}.lock`);
  const pause = new Int32Array(new SharedArrayBuffer(4));
  while (!tryLock(lock, staleMs)) Atomics.wait(pause, 0, 0, 250);
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * The locks under which the test helpers build and pack the packages (build-sdk.ts, examples.ts, playwright-package.ts,
 * build-plugin.test.ts): a command that packs or publishes them, whose `prepack` may build, holds them all.
 */
const PACKAGE_LOCKS = [
  'sdk-build',
  'sdk-pack',
  'bundler-plugin-build',
  'build-plugin-pack',
  'playwright-package-build',
];

/** Runs `fn` holding every lock of {@link PACKAGE_LOCKS}, taken in one order (no two holders wait for each other). */
export async function withPackageLocks<T>(fn: () => Promise<T>, names: readonly string[] = PACKAGE_LOCKS): Promise<T> {
  const [first, ...rest] = names;
  return first === undefined ? fn() : withLock(first, 180_000, () => withPackageLocks(fn, rest));
}
