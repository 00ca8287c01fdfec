/**
 * The fake API server speaks kube-apiserver's wire format: proven here with the real @kubernetes/client-node
 * (typed APIs, KubernetesObjectApi with discovery, Watch, informers), so the controller and CLI tests that run
 * against it exercise the same requests and answers a cluster would give.
 */
import {
  ApiException,
  AppsV1Api,
  AuthorizationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  Watch,
  type KubernetesObject,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeKube, svcInstrumentationCrd, type FakeKube } from '../../support/operator/fake-kube.js';
import { eventually } from '../../support/until.js';

let fake: FakeKube;
let kc: KubeConfig;
let core: CoreV1Api;

beforeEach(async () => {
  fake = await startFakeKube();
  kc = fake.kubeConfig();
  core = kc.makeApiClient(CoreV1Api);
});
afterEach(async () => {
  await fake.close();
});

const pod = (name: string, labels: Record<string, string> = {}): V1Pod => ({
  metadata: { name, labels },
  spec: { containers: [{ name: 'app', image: 'node:20' }] },
});

/** The error an API call rejects with, parsed: HTTP code and the Status body (undefined when the body is not JSON). */
async function failure(
  call: Promise<unknown>,
): Promise<{ code: number; status?: { reason?: string; message?: string; code?: number }; body: unknown }> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof ApiException)) throw new Error(`expected an ApiException, got ${String(error)}`);
  let status: { reason?: string; message?: string; code?: number } | undefined;
  try {
    status = typeof error.body === 'string' ? JSON.parse(error.body) : undefined;
  } catch {
    status = undefined;
  }
  return { code: error.code, ...(status ? { status } : {}), body: error.body };
}

/** The polling of test/support/until.ts for a synchronous condition; the test's timeout bounds it. */
async function until(condition: () => boolean, what: string): Promise<void> {
  await eventually(what, async () => condition() || undefined, { everyMs: 10 });
}

interface Recorded {
  events: string[];
  done: unknown[];
  abort(): void;
}

async function watch(path: string, query: Record<string, string>): Promise<Recorded> {
  const recorded: Recorded = { events: [], done: [], abort: () => undefined };
  const controller = await new Watch(kc).watch(
    path,
    query,
    (type, object: KubernetesObject & { code?: number; reason?: string }) =>
      recorded.events.push(
        type === 'ERROR'
          ? `ERROR ${object.code} ${object.reason}`
          : `${type} ${object.metadata?.name ?? ''}@${object.metadata?.resourceVersion}`,
      ),
    (error) => recorded.done.push(error),
  );
  recorded.abort = () => controller.abort();
  return recorded;
}

describe('fake kube-apiserver', () => {
  it('writes a kubeconfig that client-node loads, and requires the bearer token (401 Status otherwise)', async () => {
    const fromFile = new KubeConfig();
    fromFile.loadFromFile(fake.kubeconfigPath);
    expect(fromFile.getCurrentCluster()?.server).toBe(fake.url);
    const names = (await fromFile.makeApiClient(CoreV1Api).listNamespace()).items.map((item) => item.metadata?.name);
    expect(names).toEqual(['default', 'kube-system']);

    const anonymous = new KubeConfig();
    anonymous.loadFromOptions({
      clusters: [{ name: 'c', server: fake.url, skipTLSVerify: true }],
      users: [{ name: 'u', token: 'wrong' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const denied = await failure(anonymous.makeApiClient(CoreV1Api).listNamespace());
    expect(denied.code).toBe(401);
    const raw = await fetch(`${fake.url}/api/v1/namespaces`);
    expect(raw.status).toBe(401);
    expect(await raw.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
  });

  it('lists with kind XList and a resourceVersion, items without kind (built-in), label and field selectors, and pages', async () => {
    await core.createNamespace({ body: { metadata: { name: 'shop' } } });
    for (const [name, tier] of [
      ['a', 'web'],
      ['b', 'db'],
      ['c', 'web'],
    ] as const)
      await core.createNamespacedPod({ namespace: 'shop', body: pod(name, { tier }) });
    const response = await fetch(`${fake.url}/api/v1/namespaces/shop/pods?labelSelector=tier%3Dweb`, {
      headers: { authorization: `Bearer ${fake.token}` },
    });
    const list = (await response.json()) as {
      kind: string;
      apiVersion: string;
      metadata: { resourceVersion: string };
      items: { kind?: string; metadata: { name: string } }[];
    };
    expect(list.kind).toBe('PodList');
    expect(list.apiVersion).toBe('v1');
    expect(Number(list.metadata.resourceVersion)).toBeGreaterThan(0);
    expect(list.items.map((item) => item.metadata.name)).toEqual(['a', 'c']);
    expect(list.items[0]?.kind).toBeUndefined();

    expect(
      (await core.listNamespacedPod({ namespace: 'shop', labelSelector: 'tier in (db,cache)' })).items.map(
        (p) => p.metadata?.name,
      ),
    ).toEqual(['b']);
    expect(
      (await core.listNamespacedPod({ namespace: 'shop', labelSelector: 'tier!=web' })).items.map(
        (p) => p.metadata?.name,
      ),
    ).toEqual(['b']);
    expect(
      (await core.listPodForAllNamespaces({ fieldSelector: 'metadata.name=c' })).items.map(
        (p) => p.metadata?.namespace,
      ),
    ).toEqual(['shop']);
    const first = await core.listNamespacedPod({ namespace: 'shop', limit: 2 });
    expect(first.items).toHaveLength(2);
    const second = await core.listNamespacedPod({
      namespace: 'shop',
      limit: 2,
      _continue: first.metadata?._continue ?? '',
    });
    expect(second.items.map((p) => p.metadata?.name)).toEqual(['c']);
  });

  it('creates with server-set uid, creationTimestamp, generation, resourceVersion; 409 AlreadyExists; 404 for a missing namespace', async () => {
    const before = Date.now() - 1000;
    const created = await core.createNamespace({ body: { metadata: { name: 'shop' } } });
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.metadata?.creationTimestamp?.getTime()).toBeGreaterThanOrEqual(before);
    expect(created.metadata?.labels).toEqual({ 'kubernetes.io/metadata.name': 'shop' });
    expect(created.status?.phase).toBe('Active');
    const deployment = await kc.makeApiClient(AppsV1Api).createNamespacedDeployment({
      namespace: 'shop',
      body: {
        metadata: { name: 'web' },
        spec: {
          selector: { matchLabels: { app: 'web' } },
          template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'node:20' }] } },
        },
      },
    });
    expect(deployment.metadata?.generation).toBe(1);

    const again = await failure(core.createNamespace({ body: { metadata: { name: 'shop' } } }));
    expect(again.code).toBe(409);
    expect(again.status).toMatchObject({
      kind: 'Status',
      reason: 'AlreadyExists',
      message: 'namespaces "shop" already exists',
      code: 409,
    });

    const nowhere = await failure(
      core.createNamespacedSecret({ namespace: 'ghost', body: { metadata: { name: 'k' }, stringData: { a: 'b' } } }),
    );
    expect(nowhere.code).toBe(404);
    expect(nowhere.status).toMatchObject({ reason: 'NotFound', message: 'namespaces "ghost" not found' });

    const badName = await failure(
      core.createNamespacedConfigMap({ namespace: 'shop', body: { metadata: { name: 'Not_Valid' } } }),
    );
    expect(badName.code).toBe(422);
    expect(badName.status?.reason).toBe('Invalid');

    const generated = await core.createNamespacedPod({
      namespace: 'shop',
      body: { metadata: { generateName: 'web-' }, spec: { containers: [{ name: 'app', image: 'node:20' }] } },
    });
    expect(generated.metadata?.name).toMatch(/^web-[0-9a-f]{5}$/);
  });

  it('rejects a stale resourceVersion with 409 Conflict and bumps generation only for spec changes', async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    const body = {
      metadata: { name: 'web' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'node:20' }] } },
      },
    };
    const created = await apps.createNamespacedDeployment({ namespace: 'default', body });
    const scaled = await apps.replaceNamespacedDeployment({
      namespace: 'default',
      name: 'web',
      body: { ...created, spec: { ...created.spec!, replicas: 3 } },
    });
    expect(scaled.metadata?.generation).toBe(2);
    const labelled = await apps.replaceNamespacedDeployment({
      namespace: 'default',
      name: 'web',
      body: { ...scaled, metadata: { ...scaled.metadata, labels: { team: 'a' } } },
    });
    expect(labelled.metadata?.generation).toBe(2);
    expect(Number(labelled.metadata?.resourceVersion)).toBeGreaterThan(Number(scaled.metadata?.resourceVersion));

    const stale = await failure(
      apps.replaceNamespacedDeployment({
        namespace: 'default',
        name: 'web',
        body: { ...created, spec: { ...created.spec!, replicas: 5 } },
      }),
    );
    expect(stale.code).toBe(409);
    expect(stale.status).toMatchObject({
      reason: 'Conflict',
      message:
        'Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again',
    });
    const stalePatch = await failure(
      apps.patchNamespacedDeployment(
        {
          namespace: 'default',
          name: 'web',
          body: { metadata: { resourceVersion: created.metadata?.resourceVersion }, spec: { replicas: 9 } },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(stalePatch.code).toBe(409);

    // An update that changes nothing gets no new resourceVersion (and no watch event).
    const unchanged = await apps.replaceNamespacedDeployment({ namespace: 'default', name: 'web', body: labelled });
    expect(unchanged.metadata?.resourceVersion).toBe(labelled.metadata?.resourceVersion);
  });

  it('keeps .status to the status subresource, for built-in and custom resources', async () => {
    const created = await core.createNamespacedPod({
      namespace: 'default',
      body: { ...pod('p'), status: { phase: 'Running' } },
    });
    expect(created.status?.phase).toBe('Pending');
    const ignored = await core.replaceNamespacedPod({
      namespace: 'default',
      name: 'p',
      body: { ...created, status: { phase: 'Failed' } },
    });
    expect(ignored.status?.phase).toBe('Pending');
    const running = await core.replaceNamespacedPodStatus({
      namespace: 'default',
      name: 'p',
      body: { ...ignored, metadata: { ...ignored.metadata, labels: { x: 'y' } }, status: { phase: 'Running' } },
    });
    expect(running.status?.phase).toBe('Running');
    expect(running.metadata?.labels).toEqual({});

    const custom = kc.makeApiClient(CustomObjectsApi);
    const target = { group: 'svc.io', version: 'v1alpha1', namespace: 'default', plural: 'svcinstrumentations' };
    const oti = (await custom.createNamespacedCustomObject({
      ...target,
      body: {
        apiVersion: 'svc.io/v1alpha1',
        kind: 'SvcInstrumentation',
        metadata: { name: 'default' },
        spec: { ingestUrl: 'http://i' },
        status: { counts: {} },
      },
    })) as KubernetesObject & { status?: unknown };
    expect(oti.status).toBeUndefined();
    expect(oti.metadata?.generation).toBe(1);
    const withStatus = (await custom.patchNamespacedCustomObjectStatus(
      {
        ...target,
        name: 'default',
        body: { spec: { ingestUrl: 'http://ignored' }, status: { observedGeneration: 1 } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as KubernetesObject & { spec: { ingestUrl: string }; status: unknown };
    expect(withStatus.status).toEqual({ observedGeneration: 1 });
    expect(withStatus.spec.ingestUrl).toBe('http://i');
    expect(withStatus.metadata?.generation).toBe(1);
    const respec = (await custom.patchNamespacedCustomObject(
      { ...target, name: 'default', body: { spec: { strategy: 'ebpf' }, status: { observedGeneration: 7 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    )) as KubernetesObject & { status: unknown };
    expect(respec.metadata?.generation).toBe(2);
    expect(respec.status).toEqual({ observedGeneration: 1 });
    expect(
      fake.requests
        .filter((request) => request.method === 'PATCH')
        .map((request) => [request.path, request.contentType]),
    ).toEqual([
      ['/apis/svc.io/v1alpha1/namespaces/default/svcinstrumentations/default/status', 'application/merge-patch+json'],
      ['/apis/svc.io/v1alpha1/namespaces/default/svcinstrumentations/default', 'application/merge-patch+json'],
    ]);
  });

  it('applies JSON patch, merge patch, strategic merge (as merge) and server-side apply; refuses other media types', async () => {
    await core.createNamespacedConfigMap({
      namespace: 'default',
      body: { metadata: { name: 'cm', labels: { a: '1' } }, data: { x: '1', y: '2' } },
    });
    const jsonPatched = await core.patchNamespacedConfigMap({
      namespace: 'default',
      name: 'cm',
      body: [
        { op: 'add', path: '/metadata/labels/b~1c', value: '2' },
        { op: 'remove', path: '/data/y' },
      ],
    });
    expect(jsonPatched.metadata?.labels).toEqual({ a: '1', 'b/c': '2' });
    expect(jsonPatched.data).toEqual({ x: '1' });
    const failedTest = await failure(
      core.patchNamespacedConfigMap({
        namespace: 'default',
        name: 'cm',
        body: [{ op: 'test', path: '/data/x', value: 'other' }],
      }),
    );
    expect(failedTest.code).toBe(422);

    const merged = await core.patchNamespacedConfigMap(
      { namespace: 'default', name: 'cm', body: { metadata: { labels: { a: null } }, data: { z: '3' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(merged.metadata?.labels).toEqual({ 'b/c': '2' });
    expect(merged.data).toEqual({ x: '1', z: '3' });
    const strategic = await core.patchNamespacedConfigMap(
      { namespace: 'default', name: 'cm', body: { data: { w: '4' } } },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(strategic.data).toEqual({ x: '1', z: '3', w: '4' });

    const objects = KubernetesObjectApi.makeApiClient(kc);
    const applied = (await objects.patch(
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'applied', namespace: 'default' },
        data: { k: 'v' },
      } as KubernetesObject,
      undefined,
      undefined,
      'svc-zero',
      true,
      PatchStrategy.ServerSideApply,
    )) as KubernetesObject & { data: unknown };
    expect(applied.data).toEqual({ k: 'v' });
    expect(fake.requests.at(-1)).toMatchObject({
      method: 'PATCH',
      path: '/api/v1/namespaces/default/configmaps/applied',
      contentType: 'application/apply-patch+yaml',
    });

    const raw = await fetch(`${fake.url}/api/v1/namespaces/default/configmaps/cm`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${fake.token}`, 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(raw.status).toBe(415);
  });

  it('serves KubernetesObjectApi: discovery, then generic create, read, replace, patch, delete', async () => {
    const objects = KubernetesObjectApi.makeApiClient(kc);
    const spec = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'default' },
      spec: {
        serviceName: 'db',
        selector: { matchLabels: { app: 'db' } },
        template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'pg', image: 'postgres:16' }] } },
      },
    };
    const created = await objects.create(spec as KubernetesObject);
    expect(created.metadata?.uid).toBeTruthy();
    const read = await objects.read({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'default' },
    });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    const replaced = await objects.replace({ ...read, metadata: { ...read.metadata, labels: { tier: 'db' } } });
    expect(replaced.metadata?.labels).toEqual({ tier: 'db' });
    const patched = await objects.patch(
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: 'default', annotations: { a: 'b' } },
      },
      undefined,
      undefined,
      undefined,
      undefined,
      PatchStrategy.MergePatch,
    );
    expect(patched.metadata?.annotations).toEqual({ a: 'b' });
    const webhook = await objects.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'svc-zero' },
      webhooks: [],
    } as KubernetesObject);
    expect(webhook.metadata?.namespace).toBeUndefined();
    await objects.delete({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'db', namespace: 'default' },
    });
    expect(fake.get('apps/v1', 'StatefulSet', 'default', 'db')).toBeUndefined();
    expect(fake.requests.map((request) => request.path)).toEqual(
      expect.arrayContaining(['/apis/apps/v1', '/apis/admissionregistration.k8s.io/v1']),
    );
    const missing = await failure(
      objects.read({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', namespace: 'default' } }),
    );
    expect(missing.status).toMatchObject({
      reason: 'NotFound',
      message: 'statefulsets.apps "db" not found',
      code: 404,
    });
  });

  it('serves svc.io only while its CRD exists (plain 404 otherwise), and deleting the CRD deletes its objects', async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    const target = { group: 'svc.io', version: 'v1alpha1', namespace: 'default', plural: 'svcinstrumentations' };
    await custom.createNamespacedCustomObject({
      ...target,
      body: { apiVersion: 'svc.io/v1alpha1', kind: 'SvcInstrumentation', metadata: { name: 'default' }, spec: {} },
    });
    const groups = async () =>
      (
        (await (await fetch(`${fake.url}/apis`, { headers: { authorization: `Bearer ${fake.token}` } })).json()) as {
          groups: { name: string }[];
        }
      ).groups.map((group) => group.name);
    expect(await groups()).toContain('svc.io');

    fake.remove('apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, 'svcinstrumentations.svc.io');
    expect(await groups()).not.toContain('svc.io');
    const gone = await failure(custom.listNamespacedCustomObject(target));
    expect(gone.code).toBe(404);
    expect(gone.body).toBe('404 page not found\n');
    const discovery = await failure(
      KubernetesObjectApi.makeApiClient(kc).read({
        apiVersion: 'svc.io/v1alpha1',
        kind: 'SvcInstrumentation',
        metadata: { name: 'default', namespace: 'default' },
      }),
    );
    expect(discovery.code).toBe(404);

    fake.put(svcInstrumentationCrd());
    expect((await custom.listNamespacedCustomObject(target)).items).toEqual([]);
  });

  it('starts without the CRD when asked', async () => {
    const bare = await startFakeKube({ crdInstalled: false });
    try {
      const error = await failure(
        bare.kubeConfig().makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
          group: 'svc.io',
          version: 'v1alpha1',
          namespace: 'default',
          plural: 'svcinstrumentations',
        }),
      );
      expect(error.code).toBe(404);
    } finally {
      await bare.close();
    }
  });

  it('answers forbid() rules with 403 Status messages like RBAC, and SelfSubjectAccessReviews accordingly', async () => {
    await core.createNamespace({ body: { metadata: { name: 'shop' } } });
    fake.forbid({ verb: 'create', resource: 'secrets', namespace: 'shop' });
    fake.forbid({ verb: 'list', resource: 'namespaces' });
    fake.forbid({ verb: 'patch', resource: 'svcinstrumentations/status' });
    const secret = await failure(core.createNamespacedSecret({ namespace: 'shop', body: { metadata: { name: 'k' } } }));
    expect(secret.code).toBe(403);
    expect(secret.status).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      message:
        'secrets is forbidden: User "fake-kube-user" cannot create resource "secrets" in API group "" in the namespace "shop"',
    });
    await core.createNamespacedSecret({ namespace: 'default', body: { metadata: { name: 'k' } } });
    const namespaces = await failure(core.listNamespace());
    expect(namespaces.status?.message).toBe(
      'namespaces is forbidden: User "fake-kube-user" cannot list resource "namespaces" in API group "" at the cluster scope',
    );
    const status = await failure(
      kc.makeApiClient(CustomObjectsApi).patchNamespacedCustomObjectStatus(
        {
          group: 'svc.io',
          version: 'v1alpha1',
          namespace: 'shop',
          plural: 'svcinstrumentations',
          name: 'default',
          body: { status: {} },
        },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(status.status?.message).toBe(
      'svcinstrumentations.svc.io "default" is forbidden: User "fake-kube-user" cannot patch resource "svcinstrumentations/status" in API group "svc.io" in the namespace "shop"',
    );

    const authorization = kc.makeApiClient(AuthorizationV1Api);
    const review = (attributes: {
      verb: string;
      resource: string;
      namespace?: string;
      group?: string;
      subresource?: string;
    }) =>
      authorization
        .createSelfSubjectAccessReview({ body: { spec: { resourceAttributes: attributes } } })
        .then((answer) => answer.status?.allowed);
    expect(await review({ verb: 'create', resource: 'secrets', namespace: 'shop' })).toBe(false);
    expect(await review({ verb: 'create', resource: 'secrets', namespace: 'default' })).toBe(true);
    expect(
      await review({
        verb: 'patch',
        resource: 'svcinstrumentations',
        group: 'svc.io',
        subresource: 'status',
        namespace: 'x',
      }),
    ).toBe(false);
    expect(await review({ verb: 'get', resource: 'pods', namespace: 'shop' })).toBe(true);
  });

  it('watches from a resourceVersion: later events only, ADDED for existing without one, selectors turning MODIFIED into ADDED/DELETED, bookmarks', async () => {
    await core.createNamespacedPod({ namespace: 'default', body: pod('old', { tier: 'web' }) });
    const list = await core.listNamespacedPod({ namespace: 'default' });
    const fromList = await watch('/api/v1/namespaces/default/pods', {
      resourceVersion: list.metadata?.resourceVersion ?? '',
    });
    const fresh = await watch('/api/v1/pods', {});
    const selected = await watch('/api/v1/namespaces/default/pods', {
      labelSelector: 'tier=web',
      allowWatchBookmarks: 'true',
      resourceVersion: list.metadata?.resourceVersion ?? '',
    });
    await until(() => fake.watches().length === 3, 'three watches');
    const created = await core.createNamespacedPod({ namespace: 'default', body: pod('new', { tier: 'db' }) });
    const moved = await core.patchNamespacedPod(
      { namespace: 'default', name: 'new', body: { metadata: { labels: { tier: 'web' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const left = await core.patchNamespacedPod(
      { namespace: 'default', name: 'old', body: { metadata: { labels: { tier: 'db' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    const deleted = await core.deleteNamespacedPod({ namespace: 'default', name: 'new' });
    fake.bookmark();
    const rv = (object: { metadata?: { resourceVersion?: string } }) => object.metadata?.resourceVersion;
    await until(() => selected.events.length >= 4, 'selected events');
    expect(fromList.events).toEqual([
      `ADDED new@${rv(created)}`,
      `MODIFIED new@${rv(moved)}`,
      `MODIFIED old@${rv(left)}`,
      `DELETED new@${rv(deleted)}`,
    ]);
    expect(fresh.events[0]).toMatch(/^ADDED old@/);
    expect(fresh.events.slice(1)).toEqual(fromList.events);
    expect(selected.events).toEqual([
      `ADDED new@${rv(moved)}`,
      `DELETED old@${rv(left)}`,
      `DELETED new@${rv(deleted)}`,
      `BOOKMARK @${rv(deleted)}`,
    ]);
    for (const recorded of [fromList, fresh, selected]) recorded.abort();
  });

  it('answers a watch from a compacted resourceVersion with 410: an ERROR event by default, an HTTP 410 Status when set', async () => {
    const list = await core.listNamespacedPod({ namespace: 'default' });
    await core.createNamespacedPod({ namespace: 'default', body: pod('p') });
    fake.compact();
    const expiredEvent = await watch('/api/v1/namespaces/default/pods', {
      resourceVersion: list.metadata?.resourceVersion ?? '',
    });
    await until(() => expiredEvent.done.length === 1, 'the watch to end');
    expect(expiredEvent.events).toEqual(['ERROR 410 Expired']);
    expect(expiredEvent.done).toEqual([null]);

    fake.expiredWatch = 'status';
    const expiredStatus = await watch('/api/v1/namespaces/default/pods', {
      resourceVersion: list.metadata?.resourceVersion ?? '',
    });
    expect(expiredStatus.events).toEqual([]);
    expect((expiredStatus.done[0] as { statusCode?: number }).statusCode).toBe(410);

    // Resuming from the current resourceVersion still works after compaction.
    const current = await core.listNamespacedPod({ namespace: 'default' });
    const resumed = await watch('/api/v1/namespaces/default/pods', {
      resourceVersion: current.metadata?.resourceVersion ?? '',
    });
    await core.deleteNamespacedPod({ namespace: 'default', name: 'p' });
    await until(() => resumed.events.length === 1, 'the delete');
    expect(resumed.events[0]).toMatch(/^DELETED p@/);
    resumed.abort();
  });

  it('keeps an informer (makeInformer) in sync across dropped watches and 410 relists', async () => {
    const informer = makeInformer(kc, '/api/v1/namespaces/default/pods', () =>
      core.listNamespacedPod({ namespace: 'default' }),
    );
    const seen: string[] = [];
    informer.on('add', (object) => seen.push(`add ${object.metadata?.name}`));
    informer.on('update', (object) => seen.push(`update ${object.metadata?.name}`));
    informer.on('delete', (object) => seen.push(`delete ${object.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (error) => errors.push(error));
    await core.createNamespacedPod({ namespace: 'default', body: pod('a') });
    await informer.start();
    await until(() => fake.watches().length === 1, 'the informer watch');
    await core.createNamespacedPod({ namespace: 'default', body: pod('b') });
    await until(() => seen.includes('add b'), 'add b');

    // The server drops the stream: the informer re-watches from its last resourceVersion and misses nothing.
    fake.dropWatches();
    await core.deleteNamespacedPod({ namespace: 'default', name: 'a' });
    await until(() => seen.includes('delete a'), 'delete a after the drop');

    // A change and a compaction while the stream is down (all in this tick, before the client reconnects): the
    // resumed watch gets 410 and the informer lists again.
    fake.dropWatches();
    fake.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'c', namespace: 'default' },
      spec: { containers: [{ name: 'app', image: 'node:20' }] },
    } as V1Pod);
    fake.compact();
    await until(() => seen.includes('add c'), 'add c after the relist');
    expect(
      informer
        .list()
        .map((object) => object.metadata?.name)
        .sort(),
    ).toEqual(['b', 'c']);
    expect(
      fake.requests.filter((request) => request.method === 'GET' && !request.query.includes('watch')).length,
    ).toBeGreaterThanOrEqual(2);
    expect(errors).toEqual([]);
    await informer.stop();
  });

  it('delays matching requests, cascades namespace deletion, and records every request', async () => {
    await core.createNamespace({ body: { metadata: { name: 'gone' } } });
    await core.createNamespacedPod({ namespace: 'gone', body: pod('p') });
    await core.createNamespace({ body: { metadata: { name: 'other' } } });
    // Settle flags record which of two requests asked together was answered first: the order, not how fast.
    const tracked = (name: string) => {
      const read = { answered: false, done: Promise.resolve() };
      read.done = core.readNamespace({ name }).then(() => void (read.answered = true));
      return read;
    };
    fake.delay(300, (method, path) => method === 'GET' && path === '/api/v1/namespaces/gone');
    const started = Date.now();
    const held = tracked('gone');
    // A request the rule does not match is answered at once, while the matching one is still held.
    await tracked('other').done;
    expect(held.answered, 'the matching request was still held').toBe(false);
    await held.done;
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    // delay(0) removes the rule: a read of `gone` is now answered before a read of `other` held by a new rule.
    fake.delay(0);
    fake.delay(300, (method, path) => method === 'GET' && path === '/api/v1/namespaces/other');
    const reference = tracked('other');
    await tracked('gone').done;
    expect(reference.answered, 'the held reference request was still held').toBe(false);
    await reference.done;
    fake.delay(0);

    await core.deleteNamespace({ name: 'gone' });
    expect(fake.list('v1', 'Pod', 'gone')).toEqual([]);
    expect(fake.requests.at(-1)).toMatchObject({ method: 'DELETE', path: '/api/v1/namespaces/gone', query: '' });
  });
});
