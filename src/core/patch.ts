import type { Teardown } from './core';

/**
 * Replaces `target[key]` with `wrap(original)` and registers the undo with `teardown`. Returns false, leaving the
 * method alone, when it cannot be replaced (a frozen or read-only object): one unpatchable API must not stop the SDK.
 *
 * The undo only puts the original back when our wrapper is still in place. If something patched the same method
 * after us (another monitoring tool, a test spy), restoring would silently remove their wrapper too, so ours is
 * left in their chain but switched to a pass-through instead. A method that was inherited (`history.pushState`
 * lives on `History.prototype`) is restored by deleting our own property, not by shadowing the prototype's.
 */
export function patchMethod<T extends object, K extends keyof T>(
  teardown: Teardown,
  target: T,
  key: K,
  wrap: (original: T[K]) => T[K],
): boolean {
  const original = target[key];
  if (typeof original !== 'function') return false;
  const ownDescriptor = Object.getOwnPropertyDescriptor(target, key);
  let active = true;
  const wrapped = wrap(original);
  const patched = function (this: unknown, ...args: unknown[]): unknown {
    const fn = (active ? wrapped : original) as (...params: unknown[]) => unknown;
    return fn.apply(this, args);
  } as T[K];
  try {
    target[key] = patched;
  } catch {
    return false;
  }
  if (target[key] !== patched) return false;
  teardown.add(() => {
    active = false;
    if (target[key] !== patched) return;
    if (ownDescriptor !== undefined) Object.defineProperty(target, key, ownDescriptor);
    else delete target[key];
  });
  return true;
}
