import type { Teardown } from './core';

/**
 * Replaces `target[key]` with `wrap(original)` and registers the undo with `teardown`.
 *
 * The undo only puts the original back when our wrapper is still in place. If something patched the same method
 * after us (another monitoring tool, a test spy), restoring would silently remove their wrapper too, so ours is
 * left in their chain but switched to a pass-through instead.
 */
export function patchMethod<T extends object, K extends keyof T>(
  teardown: Teardown,
  target: T,
  key: K,
  wrap: (original: T[K]) => T[K],
): void {
  const original = target[key];
  if (typeof original !== 'function') return;
  let active = true;
  const wrapped = wrap(original);
  const patched = function (this: unknown, ...args: unknown[]): unknown {
    const fn = (active ? wrapped : original) as (...params: unknown[]) => unknown;
    return fn.apply(this, args);
  } as T[K];
  target[key] = patched;
  teardown.add(() => {
    active = false;
    if (target[key] === patched) target[key] = original;
  });
}
