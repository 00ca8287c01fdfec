import type { V1Namespace, V1Pod } from '@kubernetes/client-node';
import type { OperatorSettings, SvcInstrumentation } from '../resource/types.js';
import {
  AGENT_MOUNT_PATH,
  AGENT_VOLUME,
  EBPF_CONTAINER,
  EXCLUDE_ANNOTATION,
  EXCLUDE_LABEL,
  INIT_CONTAINER,
  INJECTED_ANNOTATION,
  SYSTEM_NAMESPACE,
} from '../markers.js';

const isTrue = (value: string | undefined): boolean => value?.trim().toLowerCase() === 'true';

/**
 * Why this pod must be left alone before anything is detected, or undefined. In order: the operator's own
 * namespace, an excluded namespace, an excluded pod, a pod this webhook already mutated (so re-admission and
 * reinvocation are no-ops), a Windows pod (the agents and the copy command are Linux-only).
 */
export function exclusionReason(namespace: V1Namespace, pod: V1Pod): string | undefined {
  const name = namespace.metadata?.name ?? '';
  if (name === SYSTEM_NAMESPACE) return `namespace ${SYSTEM_NAMESPACE} is the operator's own and is never mutated`;
  if (isTrue(namespace.metadata?.labels?.[EXCLUDE_LABEL])) return `namespace ${name} is labelled ${EXCLUDE_LABEL}=true`;
  const annotations = pod.metadata?.annotations;
  if (isTrue(annotations?.[EXCLUDE_ANNOTATION])) return `pod is annotated ${EXCLUDE_ANNOTATION}=true`;
  if (isTrue(annotations?.[INJECTED_ANNOTATION])) return `pod is already annotated ${INJECTED_ANNOTATION}=true`;
  if (pod.spec?.os?.name === 'windows') return 'pod runs on Windows; the agents are Linux-only';
  return undefined;
}

/**
 * Names the injection would add that the pod already uses without our `injected` marker (a spec copied from an
 * injected pod, or a user's own volume called `svc-agent`): adding ours would make an invalid pod or shadow theirs,
 * so the pod is skipped with this reason.
 */
export function nameConflict(pod: V1Pod, appIndex: number, strategy: 'sdk' | 'ebpf'): string | undefined {
  const spec = pod.spec;
  if (strategy === 'sdk') {
    if (spec?.volumes?.some((v) => v.name === AGENT_VOLUME)) return `pod already has a volume named ${AGENT_VOLUME}`;
    if ([...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].some((c) => c.name === INIT_CONTAINER)) {
      return `pod already has a container named ${INIT_CONTAINER}`;
    }
    const app = spec?.containers?.[appIndex];
    if (app?.volumeMounts?.some((m) => m.mountPath.replace(/\/+$/, '') === AGENT_MOUNT_PATH)) {
      return `container ${app.name} already mounts something at ${AGENT_MOUNT_PATH}`;
    }
  } else if ([...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].some((c) => c.name === EBPF_CONTAINER)) {
    return `pod already has a container named ${EBPF_CONTAINER}`;
  }
  return undefined;
}

/**
 * What is wrong with an SvcInstrumentation the mutation cannot use, or undefined. The CRD schema should already
 * reject these; this keeps a hand-edited or older object from turning into an exception in the admission path.
 */
export function instrumentationProblem(
  instrumentation: SvcInstrumentation,
  settings: OperatorSettings,
): string | undefined {
  const where = `SvcInstrumentation ${instrumentation.metadata?.name ?? ''} in ${instrumentation.metadata?.namespace ?? 'its namespace'}`;
  const spec = instrumentation.spec as Partial<SvcInstrumentation['spec']> | undefined;
  if (!spec) return `${where} has no spec`;
  if (ingestUrlOf(spec, settings) === undefined) {
    return `${where} has no spec.ingestUrl and the operator has no default (install value ingestUrl): set one of them`;
  }
  if (typeof spec.apiKeySecretRef?.name !== 'string' || spec.apiKeySecretRef.name === '')
    return `${where} has no spec.apiKeySecretRef.name`;
  if (spec.strategy !== undefined && spec.strategy !== 'sdk' && spec.strategy !== 'ebpf') {
    return `${where} has spec.strategy "${String(spec.strategy)}"; use sdk or ebpf`;
  }
  return undefined;
}

/** Where the agents send telemetry: the `oti`'s own URL, else the operator's install-time default. */
export function ingestUrlOf(spec: Partial<SvcInstrumentation['spec']>, settings: OperatorSettings): string | undefined {
  const url = typeof spec.ingestUrl === 'string' && spec.ingestUrl !== '' ? spec.ingestUrl : settings.defaultIngestUrl;
  return url === '' ? undefined : url;
}
