/**
 * One namespace's reconcile: for every Deployment, StatefulSet and DaemonSet, what the mutation would do to a new pod
 * of it (mutatePod on the pod template, so the status can never disagree with the webhook) and what its live pods
 * carry; logs discovery and detection results when they change; writes the SvcInstrumentation status through the
 * status subresource only when it changed.
 */
import type {
  ObjectCache,
  V1DaemonSet,
  V1Deployment,
  V1Namespace,
  V1Pod,
  V1PodTemplateSpec,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { workloadOf } from '../detect/index.js';
import type { Logger } from '../log.js';
import { configFingerprint, mutatePod, stableJson, type MutationDecision } from '../mutate/index.js';
import type {
  OperatorSettings,
  SvcInstrumentation,
  SvcInstrumentationStatus,
  WorkloadStatus,
} from '../resource/types.js';
import { chooseInstrumentation } from './instrumentation.js';
import { duplicateStatus, namespaceStatus } from './namespace-status.js';
import { workloadStatus, type WorkloadKind } from './workload-status.js';

export interface Caches {
  namespaces: ObjectCache<V1Namespace>;
  instrumentations: ObjectCache<SvcInstrumentation>;
  deployments: ObjectCache<V1Deployment>;
  statefulSets: ObjectCache<V1StatefulSet>;
  daemonSets: ObjectCache<V1DaemonSet>;
  pods: ObjectCache<V1Pod>;
}

export interface ReconcilerOptions {
  caches: Caches;
  settings: OperatorSettings;
  log: Logger;
  clock: () => Date;
  /** Merge-patches `status` of the named SvcInstrumentation through the status subresource. */
  writeStatus(namespace: string, name: string, status: Record<string, unknown>): Promise<void>;
}

interface Workload {
  kind: WorkloadKind;
  name: string;
  template: V1PodTemplateSpec | undefined;
}

/**
 * The pod a workload's controller would create now: its template, named and owned the way workloadOf() reads it
 * (a Deployment's pods belong to a ReplicaSet named `<deployment>-<pod-template-hash>`).
 */
function templatePod(namespace: string, workload: Workload): V1Pod {
  const hash = 'template';
  const deployment = workload.kind === 'Deployment';
  const owner = deployment
    ? { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${workload.name}-${hash}`, uid: '', controller: true }
    : { apiVersion: 'apps/v1', kind: workload.kind, name: workload.name, uid: '', controller: true };
  const metadata = workload.template?.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      ...metadata,
      namespace,
      generateName: `${workload.name}-`,
      labels: { ...metadata.labels, ...(deployment ? { 'pod-template-hash': hash } : {}) },
      ownerReferences: [owner],
    },
    spec: workload.template?.spec ?? { containers: [] },
  };
}

/** Pods that count for a workload's state: not finished and not on their way out. */
const live = (pod: V1Pod) =>
  pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && !pod.metadata?.deletionTimestamp;

const key = (...parts: string[]) => parts.join('/');

export class Reconciler {
  /** Per instrumented namespace, the workload count last logged. */
  private readonly discovered = new Map<string, number>();
  /** Per workload (`ns/kind/name`), the result last logged. */
  private readonly reported = new Map<string, string>();
  /** Per SvcInstrumentation, the status last written and the resourceVersion the cache had then. */
  private readonly written = new Map<string, { status: string; resourceVersion: string | undefined }>();

  constructor(private readonly options: ReconcilerOptions) {}

  async reconcile(namespace: string): Promise<void> {
    const { caches } = this.options;
    const instrumentations = caches.instrumentations.list(namespace);
    const ns = caches.namespaces.get(namespace);
    const governing = chooseInstrumentation(instrumentations);
    if (!governing || !ns) {
      this.forget(namespace);
      return;
    }

    const workloads = this.workloadsIn(namespace);
    const results = workloads.map((workload) => this.evaluate(ns, governing, workload));
    this.logResults(namespace, governing, results);

    const now = this.options.clock();
    await this.write(
      governing,
      namespaceStatus({
        generation: governing.metadata.generation ?? 0,
        workloads: results,
        previous: governing.status,
        now,
      }),
    );
    for (const other of instrumentations) {
      if (other === governing) continue;
      await this.write(
        other,
        duplicateStatus({
          generation: other.metadata.generation ?? 0,
          governing: governing.metadata.name ?? '',
          previous: other.status,
          now,
        }),
      );
    }
  }

  private workloadsIn(namespace: string): Workload[] {
    const { caches } = this.options;
    const of = (kind: WorkloadKind, objects: readonly (V1Deployment | V1StatefulSet | V1DaemonSet)[]) =>
      objects.map((object) => ({ kind, name: object.metadata?.name ?? '', template: object.spec?.template }));
    return [
      ...of('Deployment', caches.deployments.list(namespace)),
      ...of('StatefulSet', caches.statefulSets.list(namespace)),
      ...of('DaemonSet', caches.daemonSets.list(namespace)),
    ];
  }

  private evaluate(namespace: V1Namespace, instrumentation: SvcInstrumentation, workload: Workload): WorkloadStatus {
    const name = namespace.metadata?.name ?? '';
    const { settings, log } = this.options;
    const pod = templatePod(name, workload);
    let decision: MutationDecision;
    try {
      decision = mutatePod({ pod, namespace, instrumentation, settings }).decision;
    } catch (error) {
      // mutatePod throws only on a programmer error; one workload must not stop the namespace's status.
      log.error(`evaluating ${workload.kind} ${name}/${workload.name} failed`, {
        namespace: name,
        workload: workload.name,
        error,
      });
      decision = {
        injected: false,
        reason: `internal error: ${(error as Error).message}`,
        workload: workload.name,
        warnings: [],
      };
    }
    const pods = this.options.caches.pods.list(name).filter((candidate) => {
      if (!live(candidate)) return false;
      const owner = workloadOf(candidate);
      return owner.kind === workload.kind && owner.name === workload.name;
    });
    return workloadStatus({
      kind: workload.kind,
      name: workload.name,
      namespace: name,
      decision,
      source: decision.source ?? 'none',
      requestedStrategy: instrumentation.spec.strategy ?? 'sdk',
      pods,
      expected: { version: settings.version, config: configFingerprint(instrumentation.spec, settings) },
    });
  }

  /** `discovered N workloads` when the count changes, and one line per workload whose result changed. */
  private logResults(namespace: string, instrumentation: SvcInstrumentation, results: readonly WorkloadStatus[]): void {
    const { log } = this.options;
    if (this.discovered.get(namespace) !== results.length) {
      log.info(`discovered ${results.length} workloads in namespace ${namespace}`, {
        namespace,
        instrumentation: instrumentation.metadata.name,
        workloads: results.length,
      });
      this.discovered.set(namespace, results.length);
    }
    const current = new Set<string>();
    for (const result of results) {
      const id = key(namespace, result.kind, result.name);
      current.add(id);
      const signature = stableJson(result);
      if (this.reported.get(id) === signature) continue;
      this.reported.set(id, signature);
      const { kind, name, lang, framework, strategy, confidence, source, state, reason } = result;
      log.info(
        `${kind} ${namespace}/${name}: lang=${lang} framework=${framework} strategy=${strategy} confidence=${confidence} (${state})`,
        {
          namespace,
          kind,
          workload: name,
          lang,
          framework,
          strategy,
          confidence,
          source,
          state,
          reason,
        },
      );
    }
    for (const id of this.reported.keys())
      if (id.startsWith(`${namespace}/`) && !current.has(id)) this.reported.delete(id);
  }

  private forget(namespace: string): void {
    if (this.discovered.delete(namespace))
      this.options.log.info(`namespace ${namespace} is no longer instrumented (no SvcInstrumentation)`, { namespace });
    for (const id of this.reported.keys()) if (id.startsWith(`${namespace}/`)) this.reported.delete(id);
    for (const id of this.written.keys()) if (id.startsWith(`${namespace}/`)) this.written.delete(id);
  }

  private async write(instrumentation: SvcInstrumentation, desired: SvcInstrumentationStatus): Promise<void> {
    const namespace = instrumentation.metadata.namespace ?? '';
    const name = instrumentation.metadata.name ?? '';
    const id = key(namespace, name);
    const wanted = stableJson(desired);
    if (stableJson(instrumentation.status ?? {}) === wanted) {
      this.written.delete(id);
      return;
    }
    // Written already, and the cache has not seen that write yet: writing again would change nothing.
    const last = this.written.get(id);
    if (last?.status === wanted && last.resourceVersion === instrumentation.metadata.resourceVersion) return;
    // A merge patch keeps keys it does not mention: clear status fields someone else left there.
    const cleared = Object.fromEntries(Object.keys(instrumentation.status ?? {}).map((field) => [field, null]));
    await this.options.writeStatus(namespace, name, { ...cleared, ...desired });
    this.written.set(id, { status: wanted, resourceVersion: instrumentation.metadata.resourceVersion });
    this.options.log.debug(`status of SvcInstrumentation ${namespace}/${name} updated`, {
      namespace,
      instrumentation: name,
      counts: desired.counts,
    });
  }
}
