/**
 * describeApiError on the errors client-node 1.4 really produces: API Status answers from the fake kube-apiserver,
 * a resource type the server does not serve, a port nobody listens on, and a cancelled request.
 */
import { createServer } from 'node:net';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig, Watch } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiStatusOf, describeApiError } from '../../../operator/src/kube/errors.js';
import { withSignal } from '../../../operator/src/kube/signal.js';
import { startFakeKube, type FakeKube } from '../../support/operator/fake-kube.js';

let fake: FakeKube;
let core: CoreV1Api;
beforeAll(async () => {
  fake = await startFakeKube({ crdInstalled: false });
  core = fake.kubeConfig().makeApiClient(CoreV1Api);
  fake.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
});
afterAll(() => fake.close());

const rejection = (call: Promise<unknown>) =>
  call.then(
    () => expect.fail('the call succeeded'),
    (error: unknown) => error,
  );

function kubeConfigFor(server: string, token: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: 'c', server, skipTLSVerify: true }],
    users: [{ name: 'u', token }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return config;
}

describe('describeApiError', () => {
  it('names the verb, resource and namespace of a missing permission', async () => {
    fake.forbid({ verb: 'create', resource: 'secrets', namespace: 'shop' });
    fake.forbid({ verb: 'list', resource: 'namespaces' });
    fake.forbid({ verb: 'watch', resource: 'namespaces' });
    const secret = await rejection(
      core.createNamespacedSecret({ namespace: 'shop', body: { metadata: { name: 'svc-zero-api-key' } } }),
    );
    expect(describeApiError(secret, 'creating Secret svc-zero-api-key in namespace shop')).toBe(
      'missing permission: cannot create secrets in namespace shop (user "fake-kube-user") while creating Secret svc-zero-api-key in namespace shop; ask a cluster admin for this RBAC permission',
    );
    const namespaces = await rejection(core.listNamespace());
    expect(describeApiError(namespaces, 'listing namespaces')).toMatch(
      /^missing permission: cannot list namespaces at cluster scope \(user "fake-kube-user"\)/,
    );
    // A watch's error carries only the status code.
    const watchError = await new Promise(
      (resolve) => void new Watch(fake.kubeConfig()).watch('/api/v1/namespaces', {}, () => undefined, resolve),
    );
    expect(describeApiError(watchError, 'watching namespaces')).toBe(
      'missing permission while watching namespaces: forbidden by the API server',
    );
  });

  it('explains 401, 404 (object and resource type), 409 (exists and conflict) and 422', async () => {
    const unauthenticated = await rejection(
      kubeConfigFor(fake.url, 'expired').makeApiClient(CoreV1Api).listNamespace(),
    );
    expect(apiStatusOf(unauthenticated)?.code).toBe(401);
    expect(describeApiError(unauthenticated, 'listing namespaces')).toMatch(
      /^not authenticated to the Kubernetes API while listing namespaces: the credentials in the kubeconfig were rejected/,
    );

    const missing = await rejection(core.readNamespace({ name: 'ghost' }));
    expect(describeApiError(missing, 'reading namespace ghost')).toBe(
      'reading namespace ghost failed: namespaces "ghost" not found',
    );
    const apps = fake.kubeConfig().makeApiClient(AppsV1Api);
    const deployment = await rejection(apps.readNamespacedDeployment({ namespace: 'shop', name: 'web' }));
    expect(describeApiError(deployment, 'reading Deployment web')).toBe(
      'reading Deployment web failed: deployments.apps "web" not found',
    );
    const noCrd = await rejection(
      fake.kubeConfig().makeApiClient(CustomObjectsApi).listNamespacedCustomObject({
        group: 'svc.io',
        version: 'v1alpha1',
        namespace: 'shop',
        plural: 'svcinstrumentations',
      }),
    );
    expect(describeApiError(noCrd, 'listing SvcInstrumentations')).toBe(
      'listing SvcInstrumentations failed: the API server does not serve this resource type (is its CustomResourceDefinition installed? install svc-zero first)',
    );

    const exists = await rejection(core.createNamespace({ body: { metadata: { name: 'shop' } } }));
    expect(describeApiError(exists, 'creating namespace shop')).toBe(
      'creating namespace shop failed: namespaces "shop" already exists',
    );
    const created = await core.createNamespacedConfigMap({ namespace: 'shop', body: { metadata: { name: 'cm' } } });
    await core.replaceNamespacedConfigMap({ namespace: 'shop', name: 'cm', body: { ...created, data: { a: '1' } } });
    const stale = await rejection(
      core.replaceNamespacedConfigMap({ namespace: 'shop', name: 'cm', body: { ...created, data: { a: '2' } } }),
    );
    expect(describeApiError(stale, 'updating ConfigMap cm')).toBe(
      'updating ConfigMap cm failed: the object was changed by someone else meanwhile (conflict); run the command again',
    );
    const invalid = await rejection(
      core.createNamespacedConfigMap({ namespace: 'shop', body: { metadata: { name: 'Bad_Name' } } }),
    );
    expect(describeApiError(invalid, 'creating ConfigMap Bad_Name')).toMatch(
      /^creating ConfigMap Bad_Name failed: the API server rejected the object as invalid: ConfigMap "Bad_Name" is invalid: metadata.name/,
    );
  });

  it('says the server cannot be reached (connection refused) and when a deadline cancelled the request', async () => {
    // A port that was just free: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address() as { port: number };
        server.close(() => resolve(address.port));
      });
    });
    const refused = await rejection(
      kubeConfigFor(`http://127.0.0.1:${port}`, 't').makeApiClient(CoreV1Api).listNamespace(),
    );
    expect(describeApiError(refused, 'listing namespaces')).toBe(
      `cannot reach the Kubernetes API server at http://127.0.0.1:${port} while listing namespaces: connection refused (is the cluster running, and is the server address in the kubeconfig right?)`,
    );

    fake.delay(2000, (_method, path) => path === '/api/v1/namespaces/shop');
    const cancelled = await rejection(core.readNamespace({ name: 'shop' }, withSignal(AbortSignal.timeout(100))));
    expect(describeApiError(cancelled, 'reading namespace shop')).toBe(
      'cannot reach the Kubernetes API server while reading namespace shop: no answer before the deadline (request cancelled)',
    );
    fake.delay(0);
    expect(describeApiError(new Error('something else\nwith detail'), 'doing a thing')).toBe(
      'doing a thing failed: something else',
    );
  });
});
