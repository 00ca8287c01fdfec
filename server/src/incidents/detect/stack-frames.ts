import type { ExceptionFacts, SymbolicatedFrame, Symbolicator } from '../../sourcemaps/types';
import type { ErrorOccurrence } from './error-records';

/**
 * The symbolicated frames of one batch's errors. Loading them reads maps and may parse megabytes, so it happens
 * before the counting transaction, never inside it (consume.ts); counting only looks them up.
 */
export interface StackFrames {
  /** The frames of an error: null without a stack or a symbolicator, undefined when not loaded yet. */
  of(occurrence: ErrorOccurrence): readonly SymbolicatedFrame[] | null | undefined;
  /** Symbolicates the stacks of these errors (each distinct stack once). */
  load(occurrences: readonly ErrorOccurrence[]): Promise<void>;
}

function exceptionFacts(o: ErrorOccurrence): ExceptionFacts | null {
  const { stacktrace } = o.raw;
  return stacktrace ? { projectId: o.projectId, stacktrace, debugIds: o.debugIds, release: o.release } : null;
}

const keyOf = (f: ExceptionFacts) => JSON.stringify([f.projectId, f.release, f.stacktrace, [...f.debugIds].sort()]);

/** The frames of one batch (a batch holds a bounded number of errors, so the cache needs no other bound). */
export function stackFrames(symbolicator: Symbolicator | undefined): StackFrames {
  const loaded = new Map<string, readonly SymbolicatedFrame[]>();
  return {
    of(occurrence) {
      const facts = exceptionFacts(occurrence);
      return facts && symbolicator ? loaded.get(keyOf(facts)) : null;
    },
    async load(occurrences) {
      if (!symbolicator) return;
      for (const o of occurrences) {
        const facts = exceptionFacts(o);
        if (!facts) continue;
        const key = keyOf(facts);
        if (!loaded.has(key)) loaded.set(key, await symbolicator.symbolicate(facts));
      }
    },
  };
}
