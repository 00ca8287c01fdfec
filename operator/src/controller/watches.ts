/**
 * The six resources the controller watches across the cluster: namespaces, the three workload kinds, pods and
 * SvcInstrumentations. Every change is reported as the namespace it touches, which is what gets reconciled.
 */
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  type V1DaemonSet,
  type V1Deployment,
  type V1Namespace,
  type V1Pod,
  type V1StatefulSet,
} from '@kubernetes/client-node';
import type { Logger } from '../log.js';
import { CRD_GROUP, CRD_PLURAL, CRD_VERSION } from '../markers.js';
import type { SvcInstrumentation } from '../resource/types.js';
import { watchResource, type Watched } from './informers.js';

export type Instrumentation = SvcInstrumentation & KubernetesObject & { kind: string };

export interface ClusterWatches {
  namespaces: Watched<V1Namespace>;
  deployments: Watched<V1Deployment>;
  statefulSets: Watched<V1StatefulSet>;
  daemonSets: Watched<V1DaemonSet>;
  pods: Watched<V1Pod>;
  instrumentations: Watched<Instrumentation>;
  /** The six above, to wait for or stop together. */
  all: Watched<KubernetesObject>[];
}

export interface WatchClusterOptions {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  custom: CustomObjectsApi;
  log: Logger;
  retry: { initialMs: number; maxMs: number };
  /** A namespace, or an object in it, was added, changed or deleted. */
  touched(namespace: string): void;
}

export function watchCluster(options: WatchClusterOptions): ClusterWatches {
  const { kubeConfig, core, apps, custom, log, retry } = options;
  const touchNamespaceOf = (object: KubernetesObject) => {
    const namespace = object.metadata?.namespace;
    if (namespace) options.touched(namespace);
  };
  const watch = <T extends KubernetesObject>(
    name: string,
    path: string,
    list: () => Promise<KubernetesListObject<T>>,
    onChange: (object: T) => void = touchNamespaceOf,
  ): Watched<T> => watchResource<T>({ kubeConfig, name, path, list, onChange, log, retry });

  const namespaces = watch<V1Namespace>(
    'namespaces',
    '/api/v1/namespaces',
    () => core.listNamespace(),
    (object) => options.touched(object.metadata?.name ?? ''),
  );
  const deployments = watch<V1Deployment>('deployments', '/apis/apps/v1/deployments', () =>
    apps.listDeploymentForAllNamespaces(),
  );
  const statefulSets = watch<V1StatefulSet>('statefulsets', '/apis/apps/v1/statefulsets', () =>
    apps.listStatefulSetForAllNamespaces(),
  );
  const daemonSets = watch<V1DaemonSet>('daemonsets', '/apis/apps/v1/daemonsets', () =>
    apps.listDaemonSetForAllNamespaces(),
  );
  const pods = watch<V1Pod>('pods', '/api/v1/pods', () => core.listPodForAllNamespaces());
  const crd = { group: CRD_GROUP, version: CRD_VERSION, plural: CRD_PLURAL };
  const instrumentations = watch<Instrumentation>(
    `${CRD_PLURAL}.${CRD_GROUP}`,
    `/apis/${CRD_GROUP}/${CRD_VERSION}/${CRD_PLURAL}`,
    async () => (await custom.listClusterCustomObject(crd)) as KubernetesListObject<Instrumentation>,
  );
  const all: Watched<KubernetesObject>[] = [namespaces, deployments, statefulSets, daemonSets, pods, instrumentations];
  return { namespaces, deployments, statefulSets, daemonSets, pods, instrumentations, all };
}
