import type { V1ResourceRequirements } from '@kubernetes/client-node';

/** Languages detection can name; agents exist for the first three (see AGENT_LANGUAGES). */
export const LANGUAGES = ['nodejs', 'java', 'python', 'go', 'dotnet', 'ruby', 'php'] as const;
export type Language = (typeof LANGUAGES)[number];
/** Languages with an SDK agent image (operator/images/). */
export const AGENT_LANGUAGES = ['nodejs', 'java', 'python'] as const;
export type AgentLanguage = (typeof AGENT_LANGUAGES)[number];

/** `sdk`: an OpenTelemetry agent loaded into the app's runtime. `ebpf`: the svc-ebpf sidecar observes it from outside. */
export const STRATEGIES = ['sdk', 'ebpf'] as const;
export type Strategy = (typeof STRATEGIES)[number];

/** Image and resources of one agent (init image per language, or the eBPF sidecar). */
export interface AgentSpec {
  image?: string;
  resources?: V1ResourceRequirements;
}

/** `spec` of a SvcInstrumentation (short name `oti`), one per namespace. */
export interface SvcInstrumentationSpec {
  /**
   * Base URL of the ingest endpoints ({ingest_url}); agents post to `<ingestUrl>/otlp/v1/...`. Defaults to the
   * operator's install value `ingestUrl`, so a platform team sets it once and namespaces bring only their key.
   */
  ingestUrl?: string;
  /** Secret in the same namespace holding the ingest key; `key` defaults to `api-key`. Never a literal. */
  apiKeySecretRef: { name: string; key?: string };
  /** Defaults to `sdk`. */
  strategy?: Strategy;
  /** deployment.environment of the telemetry; defaults to the namespace name. */
  env?: string;
  /** Workload (Deployment, StatefulSet, DaemonSet) name → language, e.g. `{ "checkout": "java" }`. */
  languageHints?: Record<string, string>;
  /** Per-language agent images and resources, and the eBPF sidecar's. */
  agents?: Partial<Record<AgentLanguage | 'ebpf', AgentSpec>>;
  /** Detections below this confidence are not injected; defaults to DEFAULT_MIN_CONFIDENCE. */
  minConfidence?: number;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration: number;
}

/**
 * Where a workload stands: its pods carry the agent, need a restart to get it, failed to get it, or are left alone; or,
 * when none of its pods is running, `pending`: it would be injected, but no pod has been seen with the agent yet.
 */
export const WORKLOAD_STATES = ['injected', 'pending', 'outdated', 'failed', 'skipped'] as const;
export type WorkloadState = (typeof WORKLOAD_STATES)[number];
/** Workload kinds the operator reports on (pods of other owners are still mutated, under their own name). */
export const WORKLOAD_KINDS = ['Deployment', 'StatefulSet', 'DaemonSet'] as const;

export interface WorkloadStatus {
  kind: (typeof WORKLOAD_KINDS)[number];
  name: string;
  /** Detected language, or `unknown`. */
  lang: Language | 'unknown';
  framework: string;
  strategy: Strategy;
  /** 0 to 1. */
  confidence: number;
  /** Which signal decided: `env`, `label`, `hint`, `command`, `image`, `environment`, or `none`. */
  source: string;
  state: WorkloadState;
  reason?: string;
}

/** Workloads by state; `matching` is every workload not skipped. */
export interface WorkloadCounts {
  matching: number;
  injected: number;
  pending: number;
  outdated: number;
  failed: number;
}

export interface SvcInstrumentationStatus {
  observedGeneration?: number;
  conditions?: Condition[];
  counts?: WorkloadCounts;
  workloads?: WorkloadStatus[];
}

export interface SvcInstrumentation {
  apiVersion: string;
  kind: string;
  metadata: {
    name?: string;
    namespace?: string;
    generation?: number;
    resourceVersion?: string;
    uid?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec: SvcInstrumentationSpec;
  status?: SvcInstrumentationStatus;
}

/** Operator-wide settings (Helm values / operator flags) the mutation needs. */
export interface OperatorSettings {
  /** Version stamped on injected pods; a pod injected by another version counts as outdated. */
  version: string;
  /** Default agent images by language and for the eBPF sidecar, used when the `oti` names none. */
  images: Record<AgentLanguage | 'ebpf', string>;
  /** The deployment value `ebpf.resources.limits.memory` (SPEC 8), e.g. "512Mi". */
  ebpfMemoryLimit: string;
  /** The install value `ingestUrl`: used for an `oti` without `spec.ingestUrl`. */
  defaultIngestUrl?: string;
}

export const DEFAULT_MIN_CONFIDENCE = 0.6;
