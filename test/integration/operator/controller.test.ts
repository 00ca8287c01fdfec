/**
 * The controller against the fake API server (real client-node informers and requests): what it logs, the
 * SvcInstrumentation status it writes (and when it does not), how it survives dropped and expired watches, and the
 * webhook lookups it answers before and after its caches sync.
 */
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  type V1Container,
  type V1ContainerStatus,
  type V1Namespace,
  type V1Pod,
} from '@kubernetes/client-node';
import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startController, type Controller, type ControllerOptions } from '../../../operator/src/controller/index.js';
import { createLogger } from '../../../operator/src/log.js';
import { mutatePod } from '../../../operator/src/mutate/index.js';
import type {
  OperatorSettings,
  SvcInstrumentation,
  SvcInstrumentationSpec,
  SvcInstrumentationStatus,
  WorkloadStatus,
} from '../../../operator/src/resource/types.js';
import { pruned, validateCustomResource } from '../../support/operator/crd-schema.js';
import { startFakeKube, svcInstrumentationCrd, type FakeKube } from '../../support/operator/fake-kube.js';
import { eventually } from '../../support/until.js';

const settings: OperatorSettings = {
  version: '0.1.0',
  images: {
    nodejs: 'svc/agent-nodejs:0.1.0',
    java: 'svc/agent-java:0.1.0',
    python: 'svc/agent-python:0.1.0',
    ebpf: 'svc/ebpf:0.1.0',
  },
  ebpfMemoryLimit: '512Mi',
};

interface LogLine {
  time: string;
  level: string;
  msg: string;
  [field: string]: unknown;
}

let fake: FakeKube;
let controller: Controller | undefined;
let lines: LogLine[];

beforeEach(async () => {
  fake = await startFakeKube();
  lines = [];
});
afterEach(async () => {
  await controller?.stop();
  controller = undefined;
  await fake.close();
});

async function start(overrides: Pick<ControllerOptions, 'resyncIntervalMs' | 'clock'> = {}): Promise<Controller> {
  const log = createLogger({ sink: (line) => lines.push(JSON.parse(line) as LogLine), level: 'debug' });
  controller = await startController({
    kubeConfig: fake.kubeConfig(),
    log,
    settings,
    clock: () => new Date('2025-06-01T12:00:00Z'),
    debounceMs: 20,
    retry: { initialMs: 50, maxMs: 400 },
    ...overrides,
  });
  return controller;
}

/** The polling of test/support/until.ts for a synchronous probe of the controller's state, where false means not yet. */
const until = <T>(probe: () => T | undefined | false, what: string): Promise<T> =>
  eventually(what, async () => probe() || undefined, { everyMs: 20 });

// ---------------------------------------------------------------------------------------------------------------
// Cluster objects

function namespace(name: string, labels: Record<string, string> = {}): V1Namespace {
  return fake.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } }) as V1Namespace;
}

function instrumentation(ns: string, spec: Partial<SvcInstrumentationSpec> = {}, name = 'default'): SvcInstrumentation {
  return fake.put({
    apiVersion: 'svc.io/v1alpha1',
    kind: 'SvcInstrumentation',
    metadata: { name, namespace: ns },
    spec: { ingestUrl: 'https://ingest.example.com', apiKeySecretRef: { name: 'svc-zero-api-key' }, ...spec },
  } as KubernetesObject) as unknown as SvcInstrumentation;
}

type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';

function workload(
  ns: string,
  kind: WorkloadKind,
  name: string,
  containers: V1Container[],
  annotations: Record<string, string> = {},
): KubernetesObject {
  const labels = { app: name };
  return fake.put({
    apiVersion: 'apps/v1',
    kind,
    metadata: { name, namespace: ns },
    spec: {
      selector: { matchLabels: labels },
      ...(kind === 'StatefulSet' ? { serviceName: name } : {}),
      template: { metadata: { labels, annotations }, spec: { containers } },
    },
  } as KubernetesObject);
}

const node: V1Container = { name: 'app', image: 'node:20-alpine', command: ['node', 'server.js'] };
const java: V1Container = { name: 'app', image: 'eclipse-temurin:21-jre', command: ['java', '-jar', '/app/api.jar'] };
const python: V1Container = { name: 'app', image: 'python:3.12-slim', command: ['gunicorn', 'app:app'] };
const redis: V1Container = { name: 'redis', image: 'redis:7' };

const running = (name: string): V1ContainerStatus => ({
  name,
  image: '',
  imageID: '',
  ready: true,
  restartCount: 0,
  state: { running: { startedAt: new Date() } },
});

/**
 * A pod of the workload as its controller would create it; with `inject`, as the webhook would have admitted it
 * (mutatePod's patch applied), so its markers are exactly what the mutation writes.
 */
function pod(
  ns: string,
  owner: KubernetesObject,
  suffix: string,
  options: { inject?: boolean; status?: V1Pod['status'] } = {},
): V1Pod {
  const kind = owner.kind as WorkloadKind;
  const name = owner.metadata?.name ?? '';
  const template = (
    owner as {
      spec: {
        template: {
          metadata: { labels: Record<string, string>; annotations?: Record<string, string> };
          spec: V1Pod['spec'];
        };
      };
    }
  ).spec.template;
  const hash = '5d8f7c9b6';
  const ownerReference =
    kind === 'Deployment'
      ? { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `${name}-${hash}`, uid: 'rs-uid', controller: true }
      : { apiVersion: 'apps/v1', kind, name, uid: 'owner-uid', controller: true };
  let created: V1Pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: kind === 'Deployment' ? `${name}-${hash}-${suffix}` : `${name}-${suffix}`,
      namespace: ns,
      labels: { ...template.metadata.labels, ...(kind === 'Deployment' ? { 'pod-template-hash': hash } : {}) },
      ...(template.metadata.annotations ? { annotations: template.metadata.annotations } : {}),
      ownerReferences: [ownerReference],
    },
    spec: structuredClone(template.spec),
  };
  if (options.inject) {
    const current = fake.get('svc.io/v1alpha1', 'SvcInstrumentation', ns, 'default') as unknown as SvcInstrumentation;
    const { patch, decision } = mutatePod({
      pod: created,
      namespace: fake.get('v1', 'Namespace', undefined, ns) as V1Namespace,
      instrumentation: current,
      settings,
    });
    if (!decision.injected) throw new Error(`test setup: ${name} would not be injected: ${decision.reason}`);
    created = fastJsonPatch.applyPatch(created, patch as Operation[], true, false).newDocument;
  }
  const containers = created.spec?.containers ?? [];
  created.status = options.status ?? {
    phase: 'Running',
    containerStatuses: containers.map((container) => running(container.name)),
  };
  return fake.put(created) as V1Pod;
}

// ---------------------------------------------------------------------------------------------------------------
// Reading results

function statusOf(ns: string, name = 'default'): SvcInstrumentationStatus | undefined {
  return (fake.get('svc.io/v1alpha1', 'SvcInstrumentation', ns, name) as unknown as SvcInstrumentation | undefined)
    ?.status;
}

function workloadIn(ns: string, name: string): WorkloadStatus | undefined {
  return statusOf(ns)?.workloads?.find((entry) => entry.name === name);
}

const statusWrites = (ns: string) =>
  fake.requests.filter(
    (request) =>
      request.method === 'PATCH' &&
      request.path === `/apis/svc.io/v1alpha1/namespaces/${ns}/svcinstrumentations/default/status`,
  ).length;

const detectionLines = (ns: string) => lines.filter((line) => line.namespace === ns && typeof line.lang === 'string');

/** A shop namespace: one workload per state, plus the pods that put it there. */
function seedShop(): void {
  namespace('shop');
  instrumentation('shop');
  const web = workload('shop', 'Deployment', 'web', [node]);
  pod('shop', web, 'a1', { inject: true });
  pod('shop', web, 'b2', { inject: true });
  const api = workload('shop', 'Deployment', 'api', [java]);
  pod('shop', api, 'c3'); // created before the instrumentation: no agent
  const worker = workload('shop', 'StatefulSet', 'worker', [python]);
  const stuck: V1ContainerStatus = {
    name: 'svc-agent-init',
    image: 'svc/agent-python:0.1.0',
    imageID: '',
    ready: false,
    restartCount: 0,
    state: { waiting: { reason: 'ImagePullBackOff', message: 'Back-off pulling image "svc/agent-python:0.1.0"' } },
  };
  pod('shop', worker, '0', { inject: true, status: { phase: 'Pending', initContainerStatuses: [stuck] } });
  workload('shop', 'Deployment', 'cache', [redis]);
  workload('shop', 'DaemonSet', 'collector', [node], { 'svc.io/exclude': 'true' });
}

describe('svc-zero controller', () => {
  it('logs discovery and one detection line per workload, and writes counts and per-workload results', async () => {
    seedShop();
    namespace('plain');
    workload('plain', 'Deployment', 'other', [node]);
    await (await start()).synced();

    const discovered = lines.filter((line) => /discovered \d+ workloads/.test(line.msg));
    expect(discovered.map((line) => line.msg)).toEqual(['discovered 5 workloads in namespace shop']);
    expect(discovered[0]).toMatchObject({ level: 'info', namespace: 'shop', workloads: 5 });

    const detections = detectionLines('shop');
    expect(detections).toHaveLength(5);
    const web = detections.find((line) => line.workload === 'web');
    expect(web).toMatchObject({
      kind: 'Deployment',
      lang: 'nodejs',
      strategy: 'sdk',
      source: 'command',
      state: 'injected',
    });
    expect(web?.msg).toMatch(
      /^Deployment shop\/web: lang=nodejs framework=\S+ strategy=sdk confidence=0\.\d+ \(injected\)$/,
    );
    for (const line of detections) {
      expect(typeof line.framework).toBe('string');
      expect(line.confidence).toBeGreaterThanOrEqual(0);
      expect(line.confidence).toBeLessThanOrEqual(1);
    }
    expect(detectionLines('plain')).toEqual([]);

    const status = statusOf('shop');
    expect(status?.observedGeneration).toBe(1);
    expect(status?.counts).toEqual({ matching: 3, injected: 1, pending: 0, outdated: 1, failed: 1 });
    expect(status?.conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'AgentFailed',
        message: '1 workload failed to get the agent: StatefulSet worker',
        lastTransitionTime: '2025-06-01T12:00:00Z',
        observedGeneration: 1,
      },
    ]);
    expect(workloadIn('shop', 'web')).toMatchObject({
      kind: 'Deployment',
      lang: 'nodejs',
      strategy: 'sdk',
      source: 'command',
      state: 'injected',
    });
    expect(workloadIn('shop', 'api')).toMatchObject({ lang: 'java', state: 'outdated' });
    expect(workloadIn('shop', 'api')?.reason).toContain('kubectl rollout restart deployment/api -n shop');
    expect(workloadIn('shop', 'worker')).toMatchObject({ kind: 'StatefulSet', lang: 'python', state: 'failed' });
    expect(workloadIn('shop', 'worker')?.reason).toContain('svc-agent-init ImagePullBackOff');
    expect(workloadIn('shop', 'cache')).toMatchObject({
      lang: 'unknown',
      confidence: 0,
      source: 'none',
      state: 'skipped',
    });
    expect(workloadIn('shop', 'collector')).toMatchObject({
      kind: 'DaemonSet',
      state: 'skipped',
      reason: 'pod is annotated svc.io/exclude=true',
    });
    expect(statusOf('shop')?.workloads?.map((entry) => `${entry.kind}/${entry.name}`)).toEqual([
      'DaemonSet/collector',
      'Deployment/api',
      'Deployment/cache',
      'Deployment/web',
      'StatefulSet/worker',
    ]);
  });

  it('reports a workload without running pods as pending, not injected, until an injected pod is running', async () => {
    namespace('shop');
    instrumentation('shop');
    const web = workload('shop', 'Deployment', 'web', [node]);
    await (await start()).synced();

    expect(workloadIn('shop', 'web')).toMatchObject({
      lang: 'nodejs',
      strategy: 'sdk',
      state: 'pending',
      reason: 'no running pods observed',
    });
    expect(statusOf('shop')?.counts).toEqual({ matching: 1, injected: 0, pending: 1, outdated: 0, failed: 0 });
    expect(statusOf('shop')?.conditions?.[0]).toMatchObject({
      status: 'True',
      reason: 'NoRunningPods',
      message: '1 matching workload, no running pods observed',
    });
    expect(detectionLines('shop').map((line) => line.state)).toEqual(['pending']);
    // What the operator wrote is what the real CRD stores: the state is in its enum, no field is pruned.
    const stored = fake.get('svc.io/v1alpha1', 'SvcInstrumentation', 'shop', 'default');
    expect(validateCustomResource(stored), JSON.stringify(validateCustomResource.errors)).toBe(true);
    expect(pruned(stored)).toEqual([]);

    pod('shop', web, 'a1', { inject: true });
    await until(() => workloadIn('shop', 'web')?.state === 'injected', 'web to become injected');
    expect(workloadIn('shop', 'web')?.reason).toBeUndefined();
    expect(statusOf('shop')?.counts).toEqual({ matching: 1, injected: 1, pending: 0, outdated: 0, failed: 0 });
    expect(statusOf('shop')?.conditions?.[0]).toMatchObject({
      status: 'True',
      reason: 'Instrumented',
      message: '1 of 1 matching workloads instrumented',
    });
    expect(detectionLines('shop').map((line) => line.state)).toEqual(['pending', 'injected']);
  });

  it('writes the status and logs again only when something changed, not on resyncs', async () => {
    seedShop();
    // Every reconcile of an instrumented namespace reads the clock once: counting the reads counts the reconciles.
    let reconciles = 0;
    await (
      await start({ resyncIntervalMs: 100, clock: () => (reconciles++, new Date('2025-06-01T12:00:00Z')) })
    ).synced();
    const writes = statusWrites('shop');
    const logged = lines.length;
    expect(writes).toBe(1);

    // An irrelevant change (a pod label) and several resyncs (reconciles seen, not waited for): nothing to write, nothing to log.
    const web = fake.get('apps/v1', 'Deployment', 'shop', 'web') as KubernetesObject;
    const existing = fake.get('v1', 'Pod', 'shop', 'web-5d8f7c9b6-a1') as V1Pod;
    fake.put({
      ...existing,
      metadata: { ...existing.metadata, labels: { ...existing.metadata?.labels, touched: 'yes' } },
    } as V1Pod);
    const seen = reconciles;
    await until(() => reconciles >= seen + 3, 'three more reconciles');
    await controller?.idle();
    expect(statusWrites('shop')).toBe(writes);
    expect(lines.slice(logged).filter((line) => line.level !== 'debug')).toEqual([]);

    // A change that matters: a new pod of `web` without the agent makes it outdated. It comes on the same pod watch
    // as the label change, so after it: the one write and the lines it causes show the label change caused none.
    pod('shop', web, 'z9');
    await until(() => workloadIn('shop', 'web')?.state === 'outdated', 'web to become outdated');
    await controller?.idle();
    expect(statusWrites('shop')).toBe(writes + 1);
    expect(
      detectionLines('shop')
        .filter((line) => line.workload === 'web')
        .map((line) => line.state),
    ).toEqual(['injected', 'outdated']);
  });

  it('follows new workloads, pods getting the agent, recovered pods, and SvcInstrumentation changes (observedGeneration)', async () => {
    seedShop();
    await (await start()).synced();

    // A new Deployment through the API, as kubectl would create it.
    await fake
      .kubeConfig()
      .makeApiClient((await import('@kubernetes/client-node')).AppsV1Api)
      .createNamespacedDeployment({
        namespace: 'shop',
        body: {
          metadata: { name: 'checkout' },
          spec: {
            selector: { matchLabels: { app: 'checkout' } },
            template: { metadata: { labels: { app: 'checkout' } }, spec: { containers: [java] } },
          },
        },
      });
    await until(() => workloadIn('shop', 'checkout'), 'checkout in the status');
    expect(lines.some((line) => line.msg === 'discovered 6 workloads in namespace shop')).toBe(true);
    expect(workloadIn('shop', 'checkout')).toMatchObject({
      lang: 'java',
      state: 'pending',
      reason: 'no running pods observed',
    });

    // api's old pod is replaced by one the webhook injected; worker's init container recovers.
    const api = fake.get('apps/v1', 'Deployment', 'shop', 'api') as KubernetesObject;
    fake.remove('v1', 'Pod', 'shop', 'api-5d8f7c9b6-c3');
    pod('shop', api, 'd4', { inject: true });
    const worker = fake.get('v1', 'Pod', 'shop', 'worker-0') as V1Pod;
    fake.put({
      ...worker,
      status: {
        phase: 'Running',
        initContainerStatuses: [
          { ...worker.status!.initContainerStatuses![0]!, state: { terminated: { exitCode: 0, reason: 'Completed' } } },
        ],
        containerStatuses: [running('app')],
      },
    } as V1Pod);
    await until(
      () => statusOf('shop')?.counts?.injected === 3 && statusOf('shop'),
      'every matching workload with pods injected',
    );
    expect(statusOf('shop')?.counts).toEqual({ matching: 4, injected: 3, pending: 1, outdated: 0, failed: 0 });
    expect(statusOf('shop')?.conditions?.[0]).toMatchObject({
      status: 'True',
      reason: 'Instrumented',
      message: '3 of 4 matching workloads instrumented; 1 without running pods (2 skipped)',
      observedGeneration: 1,
    });

    // The SvcInstrumentation's spec changes (new ingest URL): generation 2, every injected pod is outdated.
    const current = fake.get(
      'svc.io/v1alpha1',
      'SvcInstrumentation',
      'shop',
      'default',
    ) as unknown as SvcInstrumentation;
    fake.put({
      ...current,
      spec: { ...current.spec, ingestUrl: 'https://ingest-eu.example.com' },
    } as unknown as KubernetesObject);
    await until(() => statusOf('shop')?.observedGeneration === 2, 'observedGeneration 2');
    expect(statusOf('shop')?.conditions?.[0]).toMatchObject({
      status: 'False',
      reason: 'RestartNeeded',
      observedGeneration: 2,
    });
    expect(workloadIn('shop', 'web')).toMatchObject({ state: 'outdated' });
    expect(workloadIn('shop', 'web')?.reason).toContain('earlier SvcInstrumentation configuration');

    // Deleted: the namespace is no longer instrumented; re-created: discovered again, generation 1.
    fake.remove('svc.io/v1alpha1', 'SvcInstrumentation', 'shop', 'default');
    await until(
      () => lines.find((line) => line.msg === 'namespace shop is no longer instrumented (no SvcInstrumentation)'),
      'the removal line',
    );
    const before = lines.length;
    instrumentation('shop', { languageHints: { cache: 'nodejs' } });
    await until(
      () => statusOf('shop')?.observedGeneration === 1 && workloadIn('shop', 'cache')?.source === 'hint',
      'the new instrumentation status',
    );
    expect(lines.slice(before).some((line) => line.msg === 'discovered 6 workloads in namespace shop')).toBe(true);
    expect(workloadIn('shop', 'cache')).toMatchObject({
      lang: 'nodejs',
      confidence: 1,
      source: 'hint',
      state: 'pending',
    });
  });

  it('reports the eBPF strategy, its Pod Security fallback to sdk, and an OOM-killed sidecar', async () => {
    namespace('edge');
    instrumentation('edge', { strategy: 'ebpf' });
    const gateway = workload('edge', 'Deployment', 'gateway', [
      { name: 'app', image: 'golang:1.22', command: ['/bin/gateway'] },
    ]);
    const sidecar: V1ContainerStatus = {
      name: 'svc-ebpf',
      image: 'svc/ebpf:0.1.0',
      imageID: '',
      ready: true,
      restartCount: 3,
      state: { running: { startedAt: new Date() } },
      lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
    };
    pod('edge', gateway, 'e5', {
      inject: true,
      status: { phase: 'Running', containerStatuses: [running('app'), sidecar] },
    });
    namespace('secure', { 'pod-security.kubernetes.io/enforce': 'restricted' });
    instrumentation('secure', { strategy: 'ebpf' });
    workload('secure', 'Deployment', 'shop-ui', [node]);
    await (await start()).synced();

    expect(workloadIn('edge', 'gateway')).toMatchObject({ lang: 'go', strategy: 'ebpf', state: 'failed' });
    expect(workloadIn('edge', 'gateway')?.reason).toContain('raise ebpf.resources.limits.memory');
    expect(workloadIn('secure', 'shop-ui')).toMatchObject({ lang: 'nodejs', strategy: 'sdk', state: 'pending' });
    expect(workloadIn('secure', 'shop-ui')?.reason).toMatch(
      /^no running pods observed; strategy ebpf fell back to sdk: /,
    );
    expect(detectionLines('secure')[0]).toMatchObject({ strategy: 'sdk' });
  });

  it('keeps going after the server drops its watches or answers 410, for both ways a watch hears it', async () => {
    seedShop();
    await (await start()).synced();
    const web = fake.get('apps/v1', 'Deployment', 'shop', 'web') as KubernetesObject;
    const lists = () =>
      fake.requests.filter(
        (request) => request.method === 'GET' && request.path === '/api/v1/pods' && !request.query.includes('watch'),
      ).length;
    await until(() => fake.watches().length === 6, 'six watches');

    fake.dropWatches();
    pod('shop', web, 'x1');
    await until(() => workloadIn('shop', 'web')?.state === 'outdated', 'the change after a dropped watch');

    // History compacted while the streams are down: the resumed watch gets an ERROR 410 event and lists again.
    const listed = lists();
    fake.dropWatches();
    fake.remove('v1', 'Pod', 'shop', 'web-5d8f7c9b6-x1');
    fake.compact();
    await until(() => workloadIn('shop', 'web')?.state === 'injected', 'the change after a 410 event');
    expect(lists()).toBeGreaterThan(listed);

    // Same with an HTTP 410 answer.
    fake.expiredWatch = 'status';
    const relisted = lists();
    fake.dropWatches();
    pod('shop', web, 'y2');
    fake.compact();
    await until(() => workloadIn('shop', 'web')?.state === 'outdated', 'the change after an HTTP 410');
    expect(lists()).toBeGreaterThan(relisted);
    expect(lines.filter((line) => line.level === 'warn' || line.level === 'error')).toEqual([]);
  });

  it('waits for the CRD, then syncs, with one warning instead of one per retry', async () => {
    await fake.close();
    fake = await startFakeKube({ crdInstalled: false });
    namespace('shop');
    const started = await start();
    // The same failure again, twice, is logged at debug level: no second warning came before those retries.
    const crdFailures = () =>
      lines.filter(
        (line) => line.resource === 'svcinstrumentations.svc.io' && (line.level === 'warn' || line.level === 'debug'),
      );
    await until(() => crdFailures().length >= 3, 'two retries after the warning');
    expect(
      crdFailures()
        .map((line) => line.level)
        .slice(0, 3),
    ).toEqual(['warn', 'debug', 'debug']);
    const warnings = lines.filter((line) => line.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.msg).toContain('CustomResourceDefinition');

    fake.put(svcInstrumentationCrd());
    instrumentation('shop');
    workload('shop', 'Deployment', 'web', [node]);
    await started.synced();
    await until(() => statusOf('shop')?.counts, 'the status');
    expect(statusOf('shop')?.counts).toEqual({ matching: 1, injected: 0, pending: 1, outdated: 0, failed: 0 });
    expect(lines.some((line) => line.msg === 'watching svcinstrumentations.svc.io again')).toBe(true);
  });

  it('answers lookups from the API before sync (honouring the abort signal) and from its caches after', async () => {
    namespace('shop', { team: 'a' });
    instrumentation('shop');
    namespace('slow');
    // Hold every list: the caches cannot sync.
    fake.delay(
      2500,
      (method, path) =>
        method === 'GET' && ['/api/v1/namespaces', '/apis/svc.io/v1alpha1/svcinstrumentations'].includes(path),
    );
    const started = await start();

    const found = await started.lookup.namespace('shop', AbortSignal.timeout(1000));
    expect(found?.metadata?.labels).toMatchObject({ team: 'a' });
    expect((await started.lookup.instrumentation('shop', AbortSignal.timeout(1000)))?.metadata.name).toBe('default');
    expect(await started.lookup.namespace('ghost', AbortSignal.timeout(1000))).toBeUndefined();
    expect(await started.lookup.instrumentation('slow', AbortSignal.timeout(1000))).toBeUndefined();
    const paths = fake.requests.map((request) => request.path);
    expect(paths).toContain('/api/v1/namespaces/shop');
    expect(paths).toContain('/apis/svc.io/v1alpha1/namespaces/shop/svcinstrumentations');

    // A slow API server: the webhook's deadline cancels the request. The rejection comes before the answer to a request
    // asked at the same time and held for much less than the slow one: the lookup did not wait for its answer.
    fake.delay(3000, (method, path) => method === 'GET' && path === '/api/v1/namespaces/slow');
    fake.delay(1000, (method, path) => method === 'GET' && path === '/api/v1/namespaces/reference');
    let referenceAnswered = false;
    const reference = fake
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .readNamespace({ name: 'reference' })
      .catch(() => undefined)
      .finally(() => (referenceAnswered = true));
    await expect(started.lookup.namespace('slow', AbortSignal.timeout(150))).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(referenceAnswered, 'the reference request was still held').toBe(false);
    await reference;
    await expect(started.lookup.instrumentation('shop', AbortSignal.abort())).rejects.toThrow();

    // After sync: answered from the caches, without a request.
    await started.synced();
    const requests = fake.requests.length;
    expect((await started.lookup.namespace('shop', AbortSignal.timeout(1000)))?.metadata?.name).toBe('shop');
    expect((await started.lookup.instrumentation('shop', AbortSignal.timeout(1000)))?.spec.ingestUrl).toBe(
      'https://ingest.example.com',
    );
    expect(await started.lookup.instrumentation('slow', AbortSignal.timeout(1000))).toBeUndefined();
    expect(fake.requests.length).toBe(requests);

    // A namespace the cache has not seen: asked again.
    expect(await started.lookup.instrumentation('brand-new', AbortSignal.timeout(1000))).toBeUndefined();
    expect(fake.requests.at(-1)?.path).toBe('/apis/svc.io/v1alpha1/namespaces/brand-new/svcinstrumentations');
  });

  it('writes the status only through the status subresource, and marks a second SvcInstrumentation as ignored', async () => {
    namespace('shop');
    instrumentation('shop');
    instrumentation('shop', {}, 'extra');
    workload('shop', 'Deployment', 'web', [node]);
    await (await start()).synced();
    await until(() => statusOf('shop', 'extra'), 'the duplicate status');
    expect(statusOf('shop', 'extra')?.conditions?.[0]).toMatchObject({ status: 'False', reason: 'Duplicate' });
    expect(statusOf('shop')?.counts?.matching).toBe(1);
    const writes = fake.requests.filter(
      (request) => request.path.startsWith('/apis/svc.io') && request.method !== 'GET',
    );
    expect(
      writes.every(
        (request) => request.path.endsWith('/status') && request.contentType === 'application/merge-patch+json',
      ),
    ).toBe(true);
    const spec = await fake.kubeConfig().makeApiClient(CustomObjectsApi).getNamespacedCustomObject({
      group: 'svc.io',
      version: 'v1alpha1',
      namespace: 'shop',
      plural: 'svcinstrumentations',
      name: 'default',
    });
    expect((spec as { metadata: { generation: number } }).metadata.generation).toBe(1);
  });
});
