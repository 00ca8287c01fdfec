import { mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const LOCKS = fileURLToPath(new URL('../../.tmp/', import.meta.url));

/**
 * Runs `fn` while holding a lock directory under .tmp/, so that parallel test files do not build or pack over each
 * other. A lock older than `staleMs` belongs to a crashed run and is broken.
 */
export async function withLock<T>(name: string, staleMs: number, fn: () => Promise<T>): Promise<T> {
  const lock = join(LOCKS, `${name}.lock`);
  mkdirSync(LOCKS, { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > staleMs) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
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
  mkdirSync(LOCKS, { recursive: true });
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > staleMs) rmSync(lock, { recursive: true, force: true });
      Atomics.wait(pause, 0, 0, 250);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
