import type { DebugLog, Teardown } from './core';

/** A {@link Teardown} plus the function that runs it. */
export interface TeardownList extends Teardown {
  /** Runs every disposer, last registered first; a failing disposer is reported and the others still run. */
  run(): void;
}

export function createTeardown(debug: DebugLog): TeardownList {
  const disposers: Array<() => void> = [];
  const add = (dispose: () => void): void => {
    disposers.push(dispose);
  };
  return {
    add,
    listen(target, type, listener, options) {
      const guarded = (event: Event): void => {
        try {
          listener(event);
        } catch (error) {
          debug.error(`"${type}" listener failed`, error);
        }
      };
      target.addEventListener(type, guarded, options);
      add(() => target.removeEventListener(type, guarded, options));
    },
    run() {
      while (disposers.length > 0) {
        const dispose = disposers.pop() as () => void;
        try {
          dispose();
        } catch (error) {
          debug.error('cleanup failed', error);
        }
      }
    },
  };
}
