import type { V1Container, V1Namespace, V1Pod } from '@kubernetes/client-node';
import { detectLanguage, literalEnvValue, workloadOf, type Detection, type Workload } from '../detect/index.js';
import {
  API_KEY_SECRET_KEY,
  DETECTION_ANNOTATION,
  ENVIRONMENT_ENV,
  INJECTED_ANNOTATION,
  STRATEGY_FALLBACK_ANNOTATION,
  WARNINGS_ANNOTATION,
} from '../markers.js';
import {
  AGENT_LANGUAGES,
  DEFAULT_MIN_CONFIDENCE,
  type AgentLanguage,
  type Language,
  type OperatorSettings,
  type Strategy,
  type SvcInstrumentation,
  type SvcInstrumentationSpec,
} from '../resource/types.js';
import { configFingerprint, formatDetection } from './annotations.js';
import { mergeAppEnv } from './app-env.js';
import { selectAppContainer } from './container.js';
import { ebpfBlocker, ebpfSidecar } from './ebpf.js';
import { exclusionReason, ingestUrlOf, instrumentationProblem, nameConflict } from './eligibility.js';
import { agentMount, agentVolume, initContainer } from './init-container.js';
import { PatchBuilder, type JsonPatchOperation, type Segments } from './patch.js';
import { SERVICE_NAME_ENV, type TelemetryContext } from './telemetry-env.js';

export type { JsonPatchOperation } from './patch.js';
export { configFingerprint, parseDetection, formatDetection, stableJson, type DetectionRecord } from './annotations.js';
export { isKnownSidecar, selectAppContainer } from './container.js';
export { EBPF_CAPABILITIES } from './ebpf.js';

export interface MutationInput {
  pod: V1Pod;
  namespace: V1Namespace;
  instrumentation: SvcInstrumentation | undefined;
  settings: OperatorSettings;
}

export interface MutationDecision {
  injected: boolean;
  /** One sentence: what was injected, or why the pod was left alone. */
  reason: string;
  /** Workload name (Deployment, StatefulSet, DaemonSet, or the pod's own). */
  workload: string;
  container?: string;
  lang?: Language | 'unknown';
  framework?: string;
  /** The strategy applied (after any fallback). */
  strategy?: Strategy;
  confidence?: number;
  /** Which signal decided the language (see Detection.source). */
  source?: string;
  warnings: string[];
  /** Why the requested `ebpf` strategy became `sdk`. */
  fallback?: string;
}

export interface MutationResult {
  patch: JsonPatchOperation[];
  decision: MutationDecision;
}

/**
 * Decides whether and how to instrument a pod at admission and returns the JSON Patch that does it (empty when the
 * pod is left alone). Pure: the same input gives the same output, nothing is read or written elsewhere, and applying
 * the patch then calling it again gives an empty patch (the `svc.io/injected` marker). Rules in docs/zero-mutation.md.
 */
export function mutatePod(input: MutationInput): MutationResult {
  const plan = decide(input);
  if ('skip' in plan) return { patch: [], decision: { injected: false, warnings: [], ...plan.skip } };

  const builder = new PatchBuilder(input.pod);
  const warnings = [...plan.warnings];
  if (plan.agentLang) warnings.push(...injectSdk(builder, plan, plan.agentLang, input.settings));
  else warnings.push(...injectEbpf(builder, plan, input.pod, input.settings));
  annotate(builder, plan, input.settings, warnings);
  return {
    patch: builder.operations,
    decision: {
      injected: true,
      reason: plan.agentLang
        ? `injected the ${plan.agentLang} agent into container ${plan.container.name}`
        : `added the eBPF sidecar for container ${plan.container.name}`,
      workload: plan.workload.name,
      container: plan.container.name,
      lang: plan.detection.lang,
      framework: plan.detection.framework,
      confidence: plan.detection.confidence,
      source: plan.detection.source,
      strategy: plan.strategy,
      ...(plan.fallback ? { fallback: plan.fallback } : {}),
      warnings,
    },
  };
}

/** Everything decided about a pod that will be instrumented. */
interface Plan {
  workload: Workload;
  container: V1Container;
  index: number;
  detection: Detection;
  spec: SvcInstrumentationSpec;
  strategy: Strategy;
  fallback?: string;
  /** Set for the sdk strategy: the agent to load. */
  agentLang?: AgentLanguage;
  ctx: TelemetryContext;
  warnings: string[];
}

type Skip = { skip: Omit<MutationDecision, 'injected' | 'warnings'> & { warnings?: string[] } };

/** The rules of docs/zero-mutation.md sections 1 to 3 and the strategy choice, in order. */
function decide({ pod, namespace, instrumentation, settings }: MutationInput): Plan | Skip {
  const workload = workloadOf(pod);
  const skip = (reason: string, extra: Partial<MutationDecision> = {}): Skip => ({
    skip: { reason, workload: workload.name, ...extra },
  });

  const excluded = exclusionReason(namespace, pod);
  if (excluded) return skip(excluded);
  const namespaceName = namespace.metadata?.name ?? pod.metadata?.namespace ?? '';
  if (!instrumentation) return skip(`namespace ${namespaceName} has no SvcInstrumentation (oti)`);
  const invalid = instrumentationProblem(instrumentation, settings);
  if (invalid) return skip(invalid);
  const spec = instrumentation.spec;

  const selection = selectAppContainer(pod);
  if (!selection.ok) return skip(selection.reason);
  const { container, index } = selection;

  const detection = detectLanguage({
    workload: workload.name,
    podLabels: pod.metadata?.labels,
    container,
    hints: spec.languageHints,
  });
  const detected: Partial<MutationDecision> = {
    container: container.name,
    lang: detection.lang,
    framework: detection.framework,
    confidence: detection.confidence,
    source: detection.source,
    warnings: detection.warnings ?? [],
  };
  const minConfidence = spec.minConfidence ?? DEFAULT_MIN_CONFIDENCE;
  const confirm = 'set label svc.io/language, env SVC_LANGUAGE or spec.languageHints';
  if (detection.lang === 'unknown')
    return skip(`language of container ${container.name} not detected; ${confirm}`, detected);
  if (detection.confidence < minConfidence) {
    return skip(
      `language of container ${container.name} detected as ${detection.lang} with confidence ${detection.confidence}, below ${minConfidence}; confirm it: ${confirm}`,
      detected,
    );
  }

  const requested: Strategy = spec.strategy ?? 'sdk';
  const fallback = requested === 'ebpf' ? ebpfBlocker(namespace, pod) : undefined;
  const strategy: Strategy = fallback ? 'sdk' : requested;
  const decided: Partial<MutationDecision> = { ...detected, strategy, ...(fallback ? { fallback } : {}) };
  const agentLang = strategy === 'sdk' ? asAgentLanguage(detection.lang) : undefined;
  if (strategy === 'sdk' && !agentLang) {
    return skip(
      `no SDK agent for ${detection.lang}${fallback ? ` (eBPF fallback: ${fallback})` : '; use strategy ebpf'}`,
      decided,
    );
  }
  const conflict = nameConflict(pod, index, strategy);
  if (conflict) return skip(conflict, decided);

  const ctx: TelemetryContext = {
    namespace: namespaceName,
    workload,
    container: container.name,
    // Checked by instrumentationProblem above.
    ingestUrl: ingestUrlOf(spec, settings)!,
    apiKeySecret: { name: spec.apiKeySecretRef.name, key: spec.apiKeySecretRef.key ?? API_KEY_SECRET_KEY },
    // The app's own SVC_ENV wins (it is kept in env), so deployment.environment.name agrees with it.
    environment: literalEnvValue(container, ENVIRONMENT_ENV) ?? spec.env ?? namespaceName,
  };
  return {
    workload,
    container,
    index,
    detection,
    spec,
    strategy,
    ...(fallback ? { fallback } : {}),
    ...(agentLang ? { agentLang } : {}),
    ctx,
    warnings: detection.warnings ?? [],
  };
}

/** Section 4: init container, volume, read-only mount and env of the application container. Returns warnings. */
function injectSdk(builder: PatchBuilder, plan: Plan, lang: AgentLanguage, settings: OperatorSettings): string[] {
  const agent = plan.spec.agents?.[lang];
  const containerPath: Segments = ['spec', 'containers', plan.index];
  builder.append(['spec', 'initContainers'], initContainer(agent?.image ?? settings.images[lang], agent?.resources));
  builder.append(['spec', 'volumes'], agentVolume());
  builder.append([...containerPath, 'volumeMounts'], agentMount());
  return mergeAppEnv(builder, containerPath, plan.container, plan.ctx, lang);
}

/** Section 5: the svc-ebpf sidecar and a shared process namespace; the application container is not touched. */
function injectEbpf(builder: PatchBuilder, plan: Plan, pod: V1Pod, settings: OperatorSettings): string[] {
  const warnings: string[] = [];
  const ports = (plan.container.ports ?? []).map((p) => p.containerPort);
  if (ports.length === 0) {
    warnings.push(
      `container ${plan.container.name} declares no containerPort, so the eBPF sidecar instruments every process in the pod: declare the ports to narrow it`,
    );
  }
  if (pod.spec?.shareProcessNamespace !== true) builder.setKey(['spec'], 'shareProcessNamespace', true);
  builder.append(
    ['spec', 'containers'],
    ebpfSidecar(plan.ctx, {
      image: plan.spec.agents?.ebpf?.image ?? settings.images.ebpf,
      spec: plan.spec.agents?.ebpf,
      memoryLimit: settings.ebpfMemoryLimit,
      serviceName: literalEnvValue(plan.container, SERVICE_NAME_ENV) || plan.workload.name,
      ports,
    }),
  );
  return warnings;
}

/** Section 6: the markers that make re-admission a no-op and tell people (and the controller) what happened. */
function annotate(builder: PatchBuilder, plan: Plan, settings: OperatorSettings, warnings: string[]): void {
  const annotations: Segments = ['metadata', 'annotations'];
  builder.setKey(annotations, INJECTED_ANNOTATION, 'true');
  builder.setKey(
    annotations,
    DETECTION_ANNOTATION,
    formatDetection({
      lang: plan.detection.lang,
      framework: plan.detection.framework,
      strategy: plan.strategy,
      confidence: plan.detection.confidence,
      container: plan.container.name,
      source: plan.detection.source,
      version: settings.version,
      config: configFingerprint(plan.spec, settings),
    }),
  );
  if (plan.fallback) builder.setKey(annotations, STRATEGY_FALLBACK_ANNOTATION, plan.fallback);
  // Warnings are sentences without semicolons, so `; ` separates them unambiguously.
  if (warnings.length > 0) builder.setKey(annotations, WARNINGS_ANNOTATION, warnings.join('; '));
}

function asAgentLanguage(lang: Language): AgentLanguage | undefined {
  return (AGENT_LANGUAGES as readonly string[]).includes(lang) ? (lang as AgentLanguage) : undefined;
}
