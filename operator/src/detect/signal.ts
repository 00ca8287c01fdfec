import type { Language } from '../resource/types.js';

/**
 * One piece of evidence about a container's language: which language, how sure this kind of evidence is on its own
 * (0 to 1), where it came from, and the framework it suggests when it suggests one. Each heuristic module returns at
 * most one signal per language, so many weak hints of one family (ten NODE_* variables) cannot add up to certainty.
 */
export interface Signal {
  lang: Language;
  confidence: number;
  /** `env`, `label`, `hint`, `command`, `image` or `environment` (see docs/zero-mutation.md). */
  source: string;
  framework?: string;
}

/** Keeps the strongest signal per language (ties: the first, so callers order their rules by preference). */
export function strongestPerLanguage(signals: readonly Signal[]): Signal[] {
  const best = new Map<Language, Signal>();
  for (const signal of signals) {
    const current = best.get(signal.lang);
    if (!current || signal.confidence > current.confidence) {
      // A later, stronger signal keeps an earlier framework if it has none of its own.
      best.set(
        signal.lang,
        current?.framework && !signal.framework ? { ...signal, framework: current.framework } : signal,
      );
    } else if (!current.framework && signal.framework) {
      best.set(signal.lang, { ...current, framework: signal.framework });
    }
  }
  return [...best.values()];
}
