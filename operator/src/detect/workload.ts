import type { V1OwnerReference, V1Pod } from '@kubernetes/client-node';

export interface Workload {
  kind: 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Pod';
  name: string;
}

/** Label the Deployment controller puts on its pods and appends to its ReplicaSets' names. */
const TEMPLATE_HASH_LABEL = 'pod-template-hash';

/**
 * The workload a pod belongs to, as users name it: the Deployment (its ReplicaSet's name minus `-<pod-template-hash>`),
 * the StatefulSet or DaemonSet; else the pod's own name (`generateName` without its trailing `-` for pods of Jobs and
 * bare ReplicaSets, which get their name only after admission). Used for `spec.languageHints`, OTEL_SERVICE_NAME and
 * the status. A pod with neither name nor generateName (the API server rejects it anyway) is `unknown`.
 */
export function workloadOf(pod: V1Pod): Workload {
  const owner = controllerOf(pod.metadata?.ownerReferences);
  if (owner?.kind === 'ReplicaSet') {
    const deployment = deploymentName(owner.name, pod.metadata?.labels?.[TEMPLATE_HASH_LABEL]);
    if (deployment) return { kind: 'Deployment', name: deployment };
    return { kind: 'Pod', name: owner.name };
  }
  if (owner?.kind === 'StatefulSet' || owner?.kind === 'DaemonSet') return { kind: owner.kind, name: owner.name };
  const generated = pod.metadata?.generateName?.replace(/-+$/, '');
  return { kind: 'Pod', name: generated || pod.metadata?.name || 'unknown' };
}

/** The managing controller (`controller: true`), else the first owner (old objects may lack the flag). */
function controllerOf(owners: V1OwnerReference[] | undefined): V1OwnerReference | undefined {
  return owners?.find((o) => o.controller === true) ?? owners?.[0];
}

/**
 * `checkout-7d4b9c8f6d` with pod-template-hash `7d4b9c8f6d` → `checkout`. Without the label (a ReplicaSet created by
 * hand), a ReplicaSet is not a Deployment's: undefined.
 */
function deploymentName(replicaSet: string, hash: string | undefined): string | undefined {
  if (!hash || !replicaSet.endsWith(`-${hash}`)) return undefined;
  const name = replicaSet.slice(0, -(hash.length + 1));
  return name === '' ? undefined : name;
}
