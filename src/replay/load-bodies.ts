import type * as Bodies from './bodies';
import { sharedLoad, type LoadSlot } from './load-recorder-slot';

/** The body reading and redaction module (bodies.ts). */
export type BodyModule = typeof Bodies;

const slot: LoadSlot<BodyModule> = {};

/** Longest wait for the module: past it, recipe steps are recorded without bodies rather than held forever. */
export const BODY_MODULE_TIMEOUT_MS = 10_000;

/**
 * Loads bodies.ts on demand: a dynamic import, so bundlers emit it as a lazy chunk (the script-tag build inlines it,
 * rollup.config.mjs). Rejects after {@link BODY_MODULE_TIMEOUT_MS}; the next call then tries again.
 */
export function loadBodies(): Promise<BodyModule> {
  return sharedLoad(
    slot,
    () =>
      new Promise<BodyModule>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('timed out')), BODY_MODULE_TIMEOUT_MS);
        import('./bodies').then(resolve, reject).finally(() => clearTimeout(timer));
      }),
  );
}
