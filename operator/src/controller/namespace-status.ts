/**
 * The SvcInstrumentation status: counts and the Ready condition from the per-workload results, and the comparison
 * that keeps the controller from writing a status that did not change.
 */
import type { Condition, SvcInstrumentationStatus, WorkloadStatus } from '../resource/types.js';

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

function readyCondition(
  workloads: readonly WorkloadStatus[],
): Omit<Condition, 'lastTransitionTime' | 'observedGeneration'> {
  const matching = workloads.filter((workload) => workload.state !== 'skipped');
  const skipped = workloads.length - matching.length;
  const named = (state: WorkloadStatus['state']) => matching.filter((workload) => workload.state === state);
  const list = (items: readonly WorkloadStatus[]) =>
    items.map((workload) => `${workload.kind} ${workload.name}`).join(', ');
  const failed = named('failed');
  if (failed.length > 0) {
    return {
      type: 'Ready',
      status: 'False',
      reason: 'AgentFailed',
      message: `${plural(failed.length, 'workload')} failed to get the agent: ${list(failed)}`,
    };
  }
  const outdated = named('outdated');
  if (outdated.length > 0) {
    return {
      type: 'Ready',
      status: 'False',
      reason: 'RestartNeeded',
      message: `${plural(outdated.length, 'workload')} need a restart to get the current agent: ${list(outdated)}`,
    };
  }
  const skippedNote = skipped > 0 ? ` (${skipped} skipped)` : '';
  if (matching.length === 0)
    return { type: 'Ready', status: 'True', reason: 'NoWorkloads', message: `no workload to instrument${skippedNote}` };
  // Pending workloads need nothing from anyone, but they are not counted as instrumented: no pod was seen with the agent.
  const injected = named('injected').length;
  const pending = named('pending').length;
  if (injected === 0)
    return {
      type: 'Ready',
      status: 'True',
      reason: 'NoRunningPods',
      message: `${plural(pending, 'matching workload')}, no running pods observed${skippedNote}`,
    };
  const pendingNote = pending > 0 ? `; ${pending} without running pods` : '';
  return {
    type: 'Ready',
    status: 'True',
    reason: 'Instrumented',
    message: `${injected} of ${matching.length} matching workloads instrumented${pendingNote}${skippedNote}`,
  };
}

/** A condition, keeping the previous lastTransitionTime unless its status flipped (Kubernetes API conventions). */
function withTransition(
  condition: Omit<Condition, 'lastTransitionTime' | 'observedGeneration'>,
  generation: number,
  previous: SvcInstrumentationStatus | undefined,
  now: Date,
): Condition {
  const before = previous?.conditions?.find((existing) => existing.type === condition.type);
  const lastTransitionTime =
    before && before.status === condition.status
      ? before.lastTransitionTime
      : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return { ...condition, lastTransitionTime, observedGeneration: generation };
}

export function namespaceStatus(input: {
  generation: number;
  workloads: readonly WorkloadStatus[];
  previous: SvcInstrumentationStatus | undefined;
  now: Date;
}): SvcInstrumentationStatus {
  const { workloads, generation } = input;
  const count = (state: WorkloadStatus['state']) => workloads.filter((workload) => workload.state === state).length;
  return {
    observedGeneration: generation,
    conditions: [withTransition(readyCondition(workloads), generation, input.previous, input.now)],
    counts: {
      matching: workloads.length - count('skipped'),
      injected: count('injected'),
      pending: count('pending'),
      outdated: count('outdated'),
      failed: count('failed'),
    },
    workloads: [...workloads].sort((a, b) => a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name)),
  };
}

/** The status of a second SvcInstrumentation in a namespace: it is ignored, and says which one applies. */
export function duplicateStatus(input: {
  generation: number;
  governing: string;
  previous: SvcInstrumentationStatus | undefined;
  now: Date;
}): SvcInstrumentationStatus {
  const condition = {
    type: 'Ready',
    status: 'False' as const,
    reason: 'Duplicate',
    message: `ignored: SvcInstrumentation ${input.governing} governs this namespace (one per namespace)`,
  };
  return {
    observedGeneration: input.generation,
    conditions: [withTransition(condition, input.generation, input.previous, input.now)],
    counts: { matching: 0, injected: 0, pending: 0, outdated: 0, failed: 0 },
    workloads: [],
  };
}
