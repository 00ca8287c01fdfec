/**
 * Where one workload stands, from what a new pod of it would get (the mutation's decision for its pod template) and
 * what its live pods carry. Pure, so the rules are tested without a cluster.
 */
import type { V1ContainerStatus, V1Pod } from '@kubernetes/client-node';
import { DETECTION_ANNOTATION, EBPF_CONTAINER, INIT_CONTAINER, INJECTED_ANNOTATION } from '../markers.js';
import type { MutationDecision } from '../mutate/index.js';
import { parseDetection } from '../mutate/index.js';
import type { Strategy, WorkloadStatus } from '../resource/types.js';

export type WorkloadKind = WorkloadStatus['kind'];

/** The reason of a `pending` workload. */
export const NO_RUNNING_PODS = 'no running pods observed';

export interface WorkloadInput {
  kind: WorkloadKind;
  name: string;
  namespace: string;
  /** mutatePod's decision for a pod made from the workload's template now. */
  decision: MutationDecision;
  /** Which detection signal decided (`env`, `label`, `hint`, `command`, ...), `none` when nothing was detected. */
  source: string;
  /** The SvcInstrumentation's strategy, shown when the decision names none (skipped before a strategy was chosen). */
  requestedStrategy: Strategy;
  /** The workload's pods that are not finished (phase other than Succeeded/Failed) and not being deleted. */
  pods: readonly V1Pod[];
  /** What a pod injected now records in `svc.io/detection`: operator version and configuration fingerprint. */
  expected: { version: string; config: string };
}

/** Waiting reasons that mean the container will not start without someone changing something. */
const STUCK = new Set([
  'CrashLoopBackOff',
  'ImagePullBackOff',
  'ErrImagePull',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

/** Why svc-zero's own containers keep this pod from running properly, or undefined. */
export function agentFailure(pod: V1Pod): string | undefined {
  const ours: (V1ContainerStatus | undefined)[] = [
    pod.status?.initContainerStatuses?.find((status) => status.name === INIT_CONTAINER),
    pod.status?.containerStatuses?.find((status) => status.name === EBPF_CONTAINER),
  ];
  for (const status of ours) {
    if (!status) continue;
    const waiting = status.state?.waiting;
    if (waiting?.reason && STUCK.has(waiting.reason))
      return `${status.name} ${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
    const terminated =
      status.state?.terminated ?? (status.name === EBPF_CONTAINER ? status.lastState?.terminated : undefined);
    if (terminated?.reason === 'OOMKilled' && status.name === EBPF_CONTAINER) {
      return `${EBPF_CONTAINER} was killed for memory (OOMKilled); the workload may have unusually many connections: raise ebpf.resources.limits.memory`;
    }
    if (terminated && terminated.exitCode !== 0)
      return `${status.name} exited with code ${terminated.exitCode}${terminated.reason ? ` (${terminated.reason})` : ''}`;
  }
  return undefined;
}

/** Why this pod does not carry the agent a new pod would get, or undefined when it does. */
export function podOutdated(
  pod: V1Pod,
  decision: MutationDecision,
  expected: WorkloadInput['expected'],
): string | undefined {
  const annotations = pod.metadata?.annotations ?? {};
  if (annotations[INJECTED_ANNOTATION] !== 'true')
    return 'runs without the agent (created before the instrumentation, or while the webhook was unreachable)';
  const record = parseDetection(annotations[DETECTION_ANNOTATION] ?? '');
  if (record.version !== expected.version)
    return `was injected by svc-zero ${record.version ?? '(unknown version)'}, not ${expected.version}`;
  if (record.config !== expected.config) return 'was injected under an earlier SvcInstrumentation configuration';
  if (
    record.lang !== decision.lang ||
    record.strategy !== decision.strategy ||
    record.container !== decision.container
  ) {
    return `was injected as ${record.lang}/${record.strategy} in container ${record.container}; a new pod gets ${decision.lang}/${decision.strategy} in container ${decision.container}`;
  }
  return undefined;
}

export function workloadStatus(input: WorkloadInput): WorkloadStatus {
  const { decision, kind, name, namespace, pods } = input;
  const base = {
    kind,
    name,
    lang: decision.lang ?? 'unknown',
    framework: decision.framework ?? 'unknown',
    strategy: decision.strategy ?? input.requestedStrategy,
    confidence: decision.confidence ?? 0,
    source: input.source,
  } satisfies Omit<WorkloadStatus, 'state'>;
  if (!decision.injected) return { ...base, state: 'skipped', reason: decision.reason };

  const fallback = decision.fallback ? `strategy ebpf fell back to sdk: ${decision.fallback}` : undefined;
  const notes = (...parts: (string | undefined)[]) => parts.filter((part) => part !== undefined).join('; ');
  // Without a running pod no injection has been seen (a workload scaled to zero, or whose pods are not created yet):
  // say that, rather than claim one from what the template would get.
  if (pods.length === 0) return { ...base, state: 'pending', reason: notes(NO_RUNNING_PODS, fallback) };

  const restart = `kubectl rollout restart ${kind.toLowerCase()}/${name} -n ${namespace}`;
  const failed = pods.map((pod) => ({ pod, why: agentFailure(pod) })).filter((entry) => entry.why !== undefined);
  const first = failed[0];
  if (first)
    return {
      ...base,
      state: 'failed',
      reason: `${failed.length} of ${pods.length} pods: pod ${first.pod.metadata?.name} ${first.why}`,
    };
  const outdated = pods
    .map((pod) => ({ pod, why: podOutdated(pod, decision, input.expected) }))
    .filter((entry) => entry.why !== undefined);
  const stale = outdated[0];
  if (stale) {
    return {
      ...base,
      state: 'outdated',
      reason: `${outdated.length} of ${pods.length} pods need a restart: pod ${stale.pod.metadata?.name} ${stale.why}; run ${restart}`,
    };
  }
  const reason = notes(fallback);
  return { ...base, state: 'injected', ...(reason ? { reason } : {}) };
}
