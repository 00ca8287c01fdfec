import type { V1Container } from '@kubernetes/client-node';
import { LANGUAGE_ENV, LANGUAGE_LABEL } from '../markers.js';
import type { Language } from '../resource/types.js';
import { literalEnvValue } from './container-env.js';
import { normalizeLanguage } from './languages.js';

/** A language the user stated; it decides outright (confidence 1). */
export interface ExplicitLanguage {
  lang: Language;
  source: 'env' | 'label' | 'hint';
}

export interface ExplicitResult {
  found?: ExplicitLanguage;
  /** Markers that were set but named no language we know; they are ignored and reported. */
  ignored: string[];
}

/**
 * The user's own statements, in the documented order: the container's `SVC_LANGUAGE` (closest to the process), the
 * pod label `svc.io/language`, then `spec.languageHints[workload]` of the namespace's SvcInstrumentation. A
 * `SVC_LANGUAGE` taken from a ConfigMap or Secret (`valueFrom`) cannot be read at admission and is skipped.
 */
export function explicitLanguage(
  container: V1Container,
  podLabels: Record<string, string> | undefined,
  hints: Record<string, string> | undefined,
  workload: string,
): ExplicitResult {
  const ignored: string[] = [];
  const candidates: { value: string | undefined; source: ExplicitLanguage['source']; what: string }[] = [
    { value: literalEnvValue(container, LANGUAGE_ENV), source: 'env', what: `env ${LANGUAGE_ENV}` },
    { value: podLabels?.[LANGUAGE_LABEL], source: 'label', what: `label ${LANGUAGE_LABEL}` },
    {
      value: hints && Object.hasOwn(hints, workload) ? hints[workload] : undefined,
      source: 'hint',
      what: `spec.languageHints.${workload}`,
    },
  ];
  for (const { value, source, what } of candidates) {
    if (value === undefined || value.trim() === '') continue;
    const lang = normalizeLanguage(value);
    if (lang) return { found: { lang, source }, ignored };
    ignored.push(
      `${what}="${value}" names no known language (nodejs, java, python, go, dotnet, ruby, php) and is ignored`,
    );
  }
  return { ignored };
}
