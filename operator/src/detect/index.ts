import type { V1Container } from '@kubernetes/client-node';
import type { Language } from '../resource/types.js';
import { commandSignal } from './command.js';
import { environmentSignals } from './environment.js';
import { explicitLanguage } from './explicit.js';
import { imageSignal } from './image.js';
import type { Signal } from './signal.js';

export { normalizeLanguage } from './languages.js';
export { parseImageReference, type ImageReference } from './image.js';
export { workloadOf, type Workload } from './workload.js';
export { effectiveEnvIndex, literalEnvValue } from './container-env.js';

export interface Detection {
  lang: Language | 'unknown';
  /** e.g. express, nextjs, spring-boot, django, or `unknown`. */
  framework: string;
  /** 0 to 1: 1 for an explicit marker, at most HEURISTIC_CAP for heuristics, 0 when nothing was found. */
  confidence: number;
  /** Which signal decided: `env`, `label`, `hint`, `command`, `image`, `environment`, or `none`. */
  source: string;
  /** Explicit markers that named no known language and were ignored (the mutation reports them). */
  warnings?: string[];
}

export interface DetectionInput {
  /** Workload name (Deployment, StatefulSet, DaemonSet, or the pod's own), the key of `hints`. */
  workload: string;
  podLabels?: Record<string, string>;
  container: V1Container;
  /** `spec.languageHints` of the namespace's SvcInstrumentation. */
  hints?: Record<string, string>;
}

/** Heuristics never reach the certainty of an explicit marker, however many agree. */
export const HEURISTIC_CAP = 0.95;
/** How much a competing language's evidence takes away from the winner: conflict halves trust in proportion. */
const CONFLICT_WEIGHT = 0.5;

/**
 * The container's language, framework and how sure we are. Explicit markers decide outright (confidence 1): container
 * env `SVC_LANGUAGE`, pod label `svc.io/language`, `spec.languageHints[workload]`. Otherwise heuristics vote: the
 * command line (0.8; 0.7 for a bare script extension), the image (official base 0.7, Go 0.6, a word in the app's image
 * name 0.6) and env variable names (0.5). Agreeing signals combine as 1 − Π(1 − c); each competing language multiplies
 * the winner by (1 − 0.5·c_other); the result is capped at 0.95 and rounded to two decimals. Pure and cheap: it runs
 * on every pod admission.
 */
export function detectLanguage(input: DetectionInput): Detection {
  const explicit = explicitLanguage(input.container, input.podLabels, input.hints, input.workload);
  const warnings = explicit.ignored.length > 0 ? { warnings: explicit.ignored } : {};
  const heuristics = heuristicSignals(input.container);

  if (explicit.found) {
    const { lang, source } = explicit.found;
    return { lang, framework: frameworkFor(lang, heuristics), confidence: 1, source, ...warnings };
  }

  const byLanguage = new Map<Language, Signal[]>();
  for (const signal of heuristics) byLanguage.set(signal.lang, [...(byLanguage.get(signal.lang) ?? []), signal]);
  if (byLanguage.size === 0)
    return { lang: 'unknown', framework: 'unknown', confidence: 0, source: 'none', ...warnings };

  const scored = [...byLanguage.entries()].map(([lang, signals]) => ({
    lang,
    signals,
    combined: combine(signals.map((s) => s.confidence)),
  }));
  // Highest combined confidence wins; on a tie the language with the strongest single signal (command before image).
  scored.sort((a, b) => b.combined - a.combined || strongest(b.signals).confidence - strongest(a.signals).confidence);
  const [winner, ...others] = scored;
  if (!winner) return { lang: 'unknown', framework: 'unknown', confidence: 0, source: 'none', ...warnings };
  const penalty = others.reduce((factor, other) => factor * (1 - CONFLICT_WEIGHT * other.combined), 1);
  const confidence = round(Math.min(HEURISTIC_CAP, winner.combined * penalty));
  return {
    lang: winner.lang,
    framework: frameworkFor(winner.lang, heuristics),
    confidence,
    source: strongest(winner.signals).source,
    ...warnings,
  };
}

/** In order of preference: command, image, environment (a framework named by the command line beats one from a name). */
function heuristicSignals(container: V1Container): Signal[] {
  const signals: Signal[] = [];
  const command = commandSignal(container);
  if (command) signals.push(command);
  const image = imageSignal(container.image);
  if (image) signals.push(image);
  signals.push(...environmentSignals(container));
  return signals;
}

function frameworkFor(lang: Language, signals: readonly Signal[]): string {
  return signals.find((s) => s.lang === lang && s.framework)?.framework ?? 'unknown';
}

function combine(confidences: readonly number[]): number {
  return 1 - confidences.reduce((doubt, c) => doubt * (1 - c), 1);
}

function strongest(signals: readonly Signal[]): Signal {
  // Signals arrive ordered command, image, environment; reduce keeps the first on ties.
  return signals.reduce((best, s) => (s.confidence > best.confidence ? s : best));
}

/** Two decimals, halves up: the 1e-9 absorbs binary noise (0.7 × 0.65 is 0.45499999… in floating point). */
function round(value: number): number {
  return Math.round(value * 100 + 1e-9) / 100;
}
