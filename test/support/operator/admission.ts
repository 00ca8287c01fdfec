/**
 * A pod's way through admission as the agents' tests need it: the mutation's JSON Patch applied by the API server,
 * which then names a pod created through `generateName`. What comes out is what the kubelet starts.
 */
import type { V1Container, V1Namespace, V1Pod, V1Secret } from '@kubernetes/client-node';
import jsonpatch, { type Operation } from 'fast-json-patch';
import {
  API_KEY_SECRET,
  API_KEY_SECRET_KEY,
  CRD_API_VERSION,
  CRD_KIND,
  DEFAULT_INSTRUMENTATION_NAME,
  INIT_CONTAINER,
} from '../../../operator/src/markers.js';
import { mutatePod, type MutationDecision } from '../../../operator/src/mutate/index.js';
import type { OperatorSettings, SvcInstrumentation } from '../../../operator/src/resource/types.js';

export const TEST_SETTINGS: OperatorSettings = {
  version: '0.1.0',
  images: {
    nodejs: 'ghcr.io/svc/svc-zero-agent-nodejs:0.1.0',
    java: 'ghcr.io/svc/svc-zero-agent-java:0.1.0',
    python: 'ghcr.io/svc/svc-zero-agent-python:0.1.0',
    ebpf: 'docker.io/otel/ebpf-instrument:v0.9.0',
  },
  ebpfMemoryLimit: '512Mi',
};

export function namespace(name: string): V1Namespace {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } };
}

/** The `oti` and Secret `svc-zero instrument --namespace=<ns> --api-key=<key>` creates. */
export function instrumented(
  ns: string,
  ingestUrl: string,
  apiKey: string,
  env?: string,
): { instrumentation: SvcInstrumentation; secret: V1Secret } {
  return {
    instrumentation: {
      apiVersion: CRD_API_VERSION,
      kind: CRD_KIND,
      metadata: { name: DEFAULT_INSTRUMENTATION_NAME, namespace: ns },
      spec: { ingestUrl, apiKeySecretRef: { name: API_KEY_SECRET }, ...(env ? { env } : {}) },
    },
    secret: {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: API_KEY_SECRET, namespace: ns },
      type: 'Opaque',
      data: { [API_KEY_SECRET_KEY]: Buffer.from(apiKey).toString('base64') },
    },
  };
}

/** A pod of Deployment `deployment` (ReplicaSet owner, pod-template-hash), as the ReplicaSet controller creates it. */
export function deploymentPod(deployment: string, ns: string, container: V1Container): V1Pod {
  const hash = '7d9f8c6b5d';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${deployment}-${hash}-`,
      namespace: ns,
      labels: { app: deployment, 'pod-template-hash': hash },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: `${deployment}-${hash}`,
          uid: '00000000-0000-4000-8000-000000000001',
          controller: true,
        },
      ],
    },
    spec: { containers: [container] },
  };
}

export interface Admitted {
  pod: V1Pod;
  decision: MutationDecision;
  /** The container that was instrumented, as patched. */
  app: V1Container;
  /** svc-agent-init, as patched. */
  init: V1Container;
}

/** Mutates `pod`, applies the patch, and names it like the API server; throws when nothing was injected. */
export function admit(
  pod: V1Pod,
  ns: V1Namespace,
  instrumentation: SvcInstrumentation,
  settings: OperatorSettings = TEST_SETTINGS,
): Admitted {
  const { patch, decision } = mutatePod({ pod, namespace: ns, instrumentation, settings });
  if (!decision.injected) throw new Error(`the mutation injected nothing: ${decision.reason}`);
  const admitted = jsonpatch.applyPatch(structuredClone(pod), patch as Operation[], true, false).newDocument;
  const metadata = admitted.metadata ?? {};
  if (!metadata.name) metadata.name = `${metadata.generateName ?? 'pod-'}x7k2p`;
  metadata.uid ??= '00000000-0000-4000-8000-0000000000aa';
  admitted.metadata = metadata;
  const app = admitted.spec?.containers.find((c) => c.name === decision.container);
  const init = admitted.spec?.initContainers?.find((c) => c.name === INIT_CONTAINER);
  if (!app || !init) throw new Error(`patched pod lacks container ${decision.container} or ${INIT_CONTAINER}`);
  return { pod: admitted, decision, app, init };
}
