import { createHash } from 'node:crypto';
import type { OperatorSettings, SvcInstrumentationSpec } from '../resource/types.js';
import { ingestUrlOf } from './eligibility.js';

/** What `svc.io/detection` records on an injected pod, readable by people (`kubectl describe pod`) and the controller. */
export interface DetectionRecord {
  lang: string;
  framework: string;
  strategy: string;
  confidence: number;
  container: string;
  source: string;
  /** OperatorSettings.version that injected the pod. */
  version: string;
  /** configFingerprint() of the namespace's configuration at injection time. */
  config: string;
}

const FIELDS = ['lang', 'framework', 'strategy', 'confidence', 'container', 'source', 'version', 'config'] as const;

/** `lang=nodejs framework=express strategy=sdk confidence=0.9 container=app source=command version=0.1.0 config=…`. */
export function formatDetection(record: DetectionRecord): string {
  return FIELDS.map((field) => `${field}=${String(record[field])}`).join(' ');
}

/** The fields of a `svc.io/detection` value (unknown words are ignored, missing fields absent). */
export function parseDetection(value: string): Partial<Record<(typeof FIELDS)[number], string>> {
  const record: Partial<Record<(typeof FIELDS)[number], string>> = {};
  for (const word of value.split(/\s+/)) {
    const eq = word.indexOf('=');
    const key = word.slice(0, eq);
    if (eq > 0 && (FIELDS as readonly string[]).includes(key))
      record[key as (typeof FIELDS)[number]] = word.slice(eq + 1);
  }
  return record;
}

/**
 * A short digest of everything namespace-wide that shapes an injection: the operator version, the SvcInstrumentation
 * spec fields the mutation reads, and the default images and eBPF memory limit. A pod whose `config` differs from the
 * current one was injected under another configuration and needs a restart to pick it up (status: outdated).
 * languageHints and minConfidence are left out: they change what is detected, which the controller compares itself.
 */
export function configFingerprint(spec: SvcInstrumentationSpec, settings: OperatorSettings): string {
  const relevant = {
    version: settings.version,
    ingestUrl: ingestUrlOf(spec, settings) ?? null,
    apiKeySecretRef: spec.apiKeySecretRef,
    strategy: spec.strategy ?? 'sdk',
    env: spec.env ?? null,
    agents: spec.agents ?? null,
    images: settings.images,
    ebpfMemoryLimit: settings.ebpfMemoryLimit,
  };
  return createHash('sha256').update(stableJson(relevant)).digest('hex').slice(0, 12);
}

/**
 * JSON with object keys sorted and undefined members left out, so equal values compare and hash equally whatever
 * order the API server returned them in.
 */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
