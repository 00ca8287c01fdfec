/**
 * The svc-zero admission webhook over real HTTPS: a CA and serving certificate made by the operator's own code, a
 * client that trusts only that CA and checks the Service name, and admission.k8s.io/v1 AdmissionReview bodies shaped
 * like the ones kube-apiserver sends for a Deployment's pod (generateName, ownerReferences, the service-account
 * volume the ServiceAccount admission plugin added first).
 */
import type { OutgoingHttpHeaders } from 'node:http';
import { Agent } from 'node:https';
import { randomUUID } from 'node:crypto';
import fastJsonPatch from 'fast-json-patch';
import { Pod } from 'kubernetes-models/v1';
import {
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  type V1Namespace,
  type V1Pod,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookServer, type WebhookServer } from '../../../operator/src/admission/server';
import type { AdmissionLookup } from '../../../operator/src/cluster/lookup';
import { cachedLookup } from '../../../operator/src/controller/admission-lookup';
import { createCa, issueServingCertificate } from '../../../operator/src/certs/x509';
import { fixedTlsSource } from '../../../operator/src/certs/source';
import { serviceDnsNames } from '../../../operator/src/certs/manager';
import type { LogLevel } from '../../../operator/src/log';
import { mutatePod } from '../../../operator/src/mutate/index';
import { INJECTED_ANNOTATION, INIT_CONTAINER, SYSTEM_NAMESPACE, WEBHOOK_SERVICE } from '../../../operator/src/markers';
import type { SvcInstrumentation } from '../../../operator/src/resource/types';
import { startFakeKube } from '../../support/operator/fake-kube';
import { TEST_SETTINGS } from '../../support/operator/admission';
import {
  asApiServerSends,
  call,
  decodePatch,
  post,
  review,
  SERVICE_HOST,
  type Answer,
  type Client,
} from '../../support/operator/admission-review';

const settings = TEST_SETTINGS;

const namespaces: Record<string, V1Namespace> = {
  shop: {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'shop', labels: { 'kubernetes.io/metadata.name': 'shop' } },
  },
  plain: {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'plain', labels: { 'kubernetes.io/metadata.name': 'plain' } },
  },
};
const instrumentations: Record<string, SvcInstrumentation> = {
  shop: {
    apiVersion: 'svc.io/v1alpha1',
    kind: 'SvcInstrumentation',
    metadata: { name: 'default', namespace: 'shop', generation: 1 },
    spec: {
      ingestUrl: 'https://ingest.svc.example.com',
      apiKeySecretRef: { name: 'svc-zero-api-key' },
      env: 'production',
    },
  },
};

/** What the controller's caches would answer, in memory. */
const memoryLookup: AdmissionLookup = {
  namespace: async (name) => namespaces[name],
  instrumentation: async (namespace) => instrumentations[namespace],
};

/** The pod the ReplicaSet controller of Deployment `checkout` creates, as the API server hands it to webhooks. */
function deploymentPod(namespace = 'shop'): V1Pod {
  return asApiServerSends({
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      generateName: 'checkout-7c9d8f6b5d-',
      namespace,
      creationTimestamp: undefined,
      labels: { app: 'checkout', 'pod-template-hash': '7c9d8f6b5d' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-11-20T09:12:44Z' },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: 'checkout-7c9d8f6b5d',
          uid: '5b0c2f9e-8d1e-4f7a-9a51-3f3c8e0f2d11',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'checkout',
          image: 'node:20-alpine',
          command: ['node', 'server.js'],
          ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'NODE_ENV', value: 'production' },
            { name: 'NODE_OPTIONS', value: '--max-old-space-size=512' },
          ],
          resources: { limits: { memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
        },
      ],
    },
  });
}

/** Every answer must be a valid AdmissionReview v1 that allows the pod. */
function expectAllowed(answer: Answer, uid: string): void {
  expect(answer.status).toBe(200);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(answer.body).toMatchObject({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid, allowed: true },
  });
}

function expectUnchanged(answer: Answer, uid: string): void {
  expectAllowed(answer, uid);
  expect(answer.body.response.patch).toBeUndefined();
  expect(answer.body.response.patchType).toBeUndefined();
}

interface Logged {
  level: LogLevel;
  msg: string;
  fields: Record<string, unknown>;
}

async function serve(
  options: {
    lookup?: AdmissionLookup;
    deadlineMs?: number;
    isReady?: () => boolean;
    maxBodyBytes?: number;
    drainBytes?: number;
    drainMs?: number;
  } = {},
) {
  const logs: Logged[] = [];
  const server = await startWebhookServer({
    port: 0,
    host: '127.0.0.1',
    lookup: options.lookup ?? memoryLookup,
    settings,
    deadlineMs: options.deadlineMs,
    isReady: options.isReady,
    maxBodyBytes: options.maxBodyBytes,
    drainBytes: options.drainBytes,
    drainMs: options.drainMs,
    tls: fixedTlsSource({ ...serving, ca: ca.certPem }),
    log: (level, msg, fields = {}) => logs.push({ level, msg, fields }),
  });
  return { server, logs };
}

let ca: { certPem: string; keyPem: string };
let serving: { cert: string; key: string };

beforeAll(async () => {
  ca = await createCa({ now: Date.now(), validityMs: 24 * 3600_000, commonName: 'svc-zero-webhook-ca' });
  const pair = await issueServingCertificate({
    ca,
    now: Date.now(),
    validityMs: 3600_000,
    dnsNames: serviceDnsNames(WEBHOOK_SERVICE, SYSTEM_NAMESPACE),
  });
  serving = { cert: pair.certPem, key: pair.keyPem };
});

describe('admission webhook over HTTPS', () => {
  let server: WebhookServer;
  let logs: Logged[];
  let client: Client;

  beforeAll(async () => {
    ({ server, logs } = await serve());
    client = {
      ca: ca.certPem,
      agent: new Agent({ keepAlive: true, maxSockets: 8, ca: ca.certPem, servername: SERVICE_HOST }),
    };
  });
  afterAll(async () => {
    client.agent?.destroy();
    await server.close();
  });

  it("answers a Deployment's pod with the same uid and a base64 JSON Patch that instruments it", async () => {
    const pod = deploymentPod();
    const uid = randomUUID();
    const answer = await post(server.port, client, review(pod, {}, uid));
    expectAllowed(answer, uid);
    const patch = decodePatch(answer);

    // Applied as the API server applies it (RFC 6902, validated), the patch gives the instrumented pod ...
    const patched = fastJsonPatch.applyPatch(structuredClone(pod), patch, true, false).newDocument as V1Pod;
    expect(patched.metadata?.annotations?.[INJECTED_ANNOTATION]).toBe('true');
    expect(patched.spec?.initContainers?.map((c) => c.name)).toContain(INIT_CONTAINER);
    const app = patched.spec!.containers[0]!;
    const env = Object.fromEntries((app.env ?? []).map((e) => [e.name, e]));
    expect(env.SVC_INGEST_URL?.value).toBe('https://ingest.svc.example.com');
    expect(env.SVC_API_KEY?.value).toBeUndefined();
    expect(env.SVC_API_KEY?.valueFrom?.secretKeyRef?.name).toBe('svc-zero-api-key');
    // ... that keeps the app's own NODE_OPTIONS and appends the agent,
    expect(env.NODE_OPTIONS?.value).toMatch(/^--max-old-space-size=512 --require \S+$/);
    // ... leaves what the API server and the ReplicaSet controller set,
    expect(patched.metadata?.ownerReferences).toEqual(pod.metadata?.ownerReferences);
    expect(patched.metadata?.generateName).toBe('checkout-7c9d8f6b5d-');
    expect(patched.spec?.volumes?.map((v) => v.name)).toContain('kube-api-access-8x2kq');
    expect(app.volumeMounts?.map((m) => m.mountPath)).toContain('/var/run/secrets/kubernetes.io/serviceaccount');
    // ... is still a valid Pod,
    expect(() => new Pod(patched as never).validate()).not.toThrow();
    // ... and is exactly what the mutation decided (nothing lost in transport).
    expect(patch).toEqual(
      mutatePod({ pod, namespace: namespaces.shop!, instrumentation: instrumentations.shop, settings }).patch,
    );

    const line = logs.find((l) => l.fields.uid === uid);
    expect(line).toMatchObject({
      level: 'info',
      msg: 'pod instrumented',
      fields: { namespace: 'shop', pod: 'checkout-7c9d8f6b5d-*', workload: 'checkout', injected: true },
    });
    expect(logs.filter((l) => l.fields.uid === uid)).toHaveLength(1);

    // Mutating the instrumented pod again changes nothing.
    const again = await post(server.port, client, review(patched));
    expectUnchanged(again, (again.body as any).response.uid);
  });

  it('takes the namespace from the request when the object carries none', async () => {
    const pod = deploymentPod();
    delete pod.metadata!.namespace;
    const uid = randomUUID();
    const answer = await post(server.port, client, review(pod, {}, uid));
    expectAllowed(answer, uid);
    expect(decodePatch(answer).length).toBeGreaterThan(0);
  });

  it('leaves a pod alone in a namespace without an SvcInstrumentation, and logs why', async () => {
    const uid = randomUUID();
    const answer = await post(server.port, client, review(deploymentPod('plain'), { namespace: 'plain' }, uid));
    expectUnchanged(answer, uid);
    const line = logs.find((l) => l.fields.uid === uid);
    expect(line).toMatchObject({ msg: 'pod not instrumented', fields: { namespace: 'plain', injected: false } });
    expect(String(line?.fields.reason)).not.toBe('');
  });

  it('leaves a pod alone in a namespace that does not exist', async () => {
    const uid = randomUUID();
    const answer = await post(server.port, client, review(deploymentPod('gone'), { namespace: 'gone' }, uid));
    expectUnchanged(answer, uid);
    expect(logs.find((l) => l.fields.uid === uid)?.fields.reason).toBe('namespace gone not found');
  });

  describe('malformed requests are allowed unchanged, with the uid when it can be read', () => {
    const uid = '7a3c1f0e-2b4d-4e6f-8a9b-0c1d2e3f4a5b';
    const cases: [string, () => unknown, string][] = [
      [
        'wrong apiVersion',
        () => ({ ...review(deploymentPod(), {}, uid), apiVersion: 'admission.k8s.io/v1beta1' }),
        uid,
      ],
      ['wrong kind', () => ({ ...review(deploymentPod(), {}, uid), kind: 'TokenReview' }), uid],
      ['missing request', () => ({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }), ''],
      ['request without uid', () => review(deploymentPod(), { uid: undefined }), ''],
      ['uid that is not a string', () => review(deploymentPod(), { uid: 42 }), ''],
      ['missing object', () => review(undefined, {}, uid), uid],
      ['object that is not a pod', () => review({ kind: 'Pod', metadata: { name: 'x' } }, {}, uid), uid],
      ['an UPDATE', () => review(deploymentPod(), { operation: 'UPDATE', oldObject: deploymentPod() }, uid), uid],
      [
        'a Deployment',
        () =>
          review(
            deploymentPod(),
            {
              kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
              resource: { group: 'apps', version: 'v1', resource: 'deployments' },
            },
            uid,
          ),
        uid,
      ],
      ['a pod subresource', () => review(deploymentPod(), { subResource: 'ephemeralcontainers' }, uid), uid],
      ['JSON that is an array', () => [review(deploymentPod(), {}, uid)], ''],
      ['JSON null', () => null, ''],
    ];
    for (const [name, body, expectedUid] of cases) {
      it(name, async () => {
        const before = logs.length;
        const answer = await post(server.port, client, body());
        expectUnchanged(answer, expectedUid);
        expect(logs.slice(before)).toEqual([
          expect.objectContaining({ level: 'warn', msg: 'admission request not understood; pod allowed unchanged' }),
        ]);
      });
    }

    it('a body that is not JSON', async () => {
      expectUnchanged(
        await call(server.port, client, { body: '{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionRev' }),
        '',
      );
    });

    it('an empty body', async () => {
      expectUnchanged(await call(server.port, client, { body: '' }), '');
    });

    it('a GET', async () => {
      expectUnchanged(await call(server.port, client, { method: 'GET', headers: { 'content-type': undefined } }), '');
    });

    it('a body that is not application/json', async () => {
      expectUnchanged(
        await call(server.port, client, {
          body: JSON.stringify(review(deploymentPod())),
          headers: { 'content-type': 'application/yaml' },
        }),
        '',
      );
    });

    it('a body over the limit with no uid in it (8 MiB of spaces announced by its Content-Length): read to its end, answered with an empty uid', async () => {
      const huge = Buffer.alloc(8 * 1024 * 1024, 0x20);
      const answer = await call(server.port, client, { body: huge, headers: { 'content-length': huge.length } });
      expectUnchanged(answer, '');
      expect(answer.requestError).toBeUndefined();
      expect(answer.headers.connection).not.toBe('close');
    });
    it('and the keep-alive connection still serves the next review', async () => {
      const next = randomUUID();
      const answer = await post(server.port, client, review(deploymentPod(), {}, next));
      expectAllowed(answer, next);
      expect(decodePatch(answer).length).toBeGreaterThan(0);
    });
  });

  describe('a review over the body limit is read to its end and answered with its uid, allowed, without a patch', () => {
    /** The Deployment pod with an annotation that takes the review past the 3 MiB limit. */
    function hugePod(): V1Pod {
      const pod = deploymentPod();
      pod.metadata!.annotations!['example.com/blob'] = 'x'.repeat(4 * 1024 * 1024);
      return pod;
    }

    /** Its own keep-alive connection, so the test can tell whether the next review reuses it. */
    async function overLimit(body: Buffer, headers: OutgoingHttpHeaders = {}): Promise<Answer> {
      const agent = new Agent({ keepAlive: true, maxSockets: 1, ca: ca.certPem, servername: SERVICE_HOST });
      try {
        const answer = await call(server.port, { ca: ca.certPem, agent }, { body, headers });
        // The whole body went out (no EPIPE or ECONNRESET) and the connection stays usable.
        expect(answer.requestError).toBeUndefined();
        expect(answer.headers.connection).not.toBe('close');
        const next = randomUUID();
        const following = await post(server.port, { ca: ca.certPem, agent }, review(deploymentPod(), {}, next));
        expectAllowed(following, next);
        expect(following.reusedSocket).toBe(true);
        return answer;
      } finally {
        agent.destroy();
      }
    }

    it('sent chunked (a pod with a huge annotation)', async () => {
      const uid = randomUUID();
      const answer = await overLimit(Buffer.from(JSON.stringify(review(hugePod(), {}, uid))), {
        'transfer-encoding': 'chunked',
      });
      expectUnchanged(answer, uid);
      expect(logs.find((l) => l.fields.uid === uid)).toMatchObject({
        level: 'warn',
        fields: { reason: 'body larger than 3145728 bytes' },
      });
    });

    it('announced by its Content-Length', async () => {
      const uid = randomUUID();
      const body = Buffer.from(JSON.stringify(review(hugePod(), {}, uid)));
      expectUnchanged(await overLimit(body, { 'content-length': body.length }), uid);
    });

    it('with request.uid after the pod and after request.userInfo.uid', async () => {
      const uid = randomUUID();
      const { uid: _first, ...request } = review(hugePod(), {}, uid).request as Record<string, unknown>;
      // Go's encoder writes request.uid first; another encoder (or a proxy) may not, and userInfo has a uid of its own.
      const body = Buffer.from(
        JSON.stringify({ kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request: { ...request, uid } }),
      );
      expect(body.indexOf('"uid"')).toBeLessThan(body.indexOf(`"uid":"${uid}"`));
      expectUnchanged(await overLimit(body), uid);
    });

    it("without a request.uid (only the pod's and userInfo's): answered with an empty uid", async () => {
      const pod = hugePod();
      pod.metadata!.uid = randomUUID();
      const body = Buffer.from(JSON.stringify(review(pod, { uid: undefined })));
      expectUnchanged(await overLimit(body), '');
    });
  });

  describe('bounds on reading a body over the limit', () => {
    let bounded: WebhookServer;
    let boundedLogs: Logged[];
    const maxBodyBytes = 64 * 1024;

    beforeAll(async () => {
      ({ server: bounded, logs: boundedLogs } = await serve({
        maxBodyBytes,
        drainBytes: 4 * maxBodyBytes,
        drainMs: 200,
      }));
    });
    afterAll(() => bounded.close());

    const padded = (uid: string, bytes: number) => {
      const pod = deploymentPod();
      pod.metadata!.annotations!['example.com/blob'] = 'x'.repeat(bytes);
      return Buffer.from(JSON.stringify(review(pod, {}, uid)));
    };

    it('past the drain byte bound: answered with the uid, then the connection is closed', async () => {
      const uid = randomUUID();
      const answer = await call(
        bounded.port,
        { ca: ca.certPem },
        { body: padded(uid, 16 * maxBodyBytes), headers: { 'transfer-encoding': 'chunked' } },
      );
      expectUnchanged(answer, uid);
      expect(answer.headers.connection).toBe('close');
    });

    it('a body that stalls: answered with the uid once the drain time bound passes, then the connection is closed', async () => {
      const uid = randomUUID();
      const body = padded(uid, 8 * maxBodyBytes);
      // Announces the whole body, sends half of it and waits: the answer comes from the server's bound, not an end.
      const answer = await call(
        bounded.port,
        { ca: ca.certPem },
        { body: body.subarray(0, body.length / 2), headers: { 'content-length': body.length }, end: false },
      );
      expectUnchanged(answer, uid);
      expect(answer.headers.connection).toBe('close');
      expect(boundedLogs.find((l) => l.fields.uid === uid)?.fields.reason).toBe(
        `body larger than ${maxBodyBytes} bytes`,
      );
    });
  });

  it('answers concurrent reviews, each with its own uid and patch', async () => {
    const uids = Array.from({ length: 64 }, () => randomUUID());
    const answers = await Promise.all(
      uids.map((uid, i) =>
        post(
          server.port,
          client,
          i % 2 === 0 ? review(deploymentPod(), {}, uid) : review(deploymentPod('plain'), { namespace: 'plain' }, uid),
        ),
      ),
    );
    answers.forEach((answer, i) => {
      expectAllowed(answer, uids[i]!);
      if (i % 2 === 0) expect(decodePatch(answer).length).toBeGreaterThan(0);
      else expect(answer.body.response.patch).toBeUndefined();
    });
    for (const uid of uids) expect(logs.filter((l) => l.fields.uid === uid)).toHaveLength(1);
  });

  it('serves /healthz and /readyz, and 404 elsewhere', async () => {
    expect(await call(server.port, client, { method: 'GET', path: '/healthz' })).toMatchObject({
      status: 200,
      body: 'ok\n',
    });
    expect(await call(server.port, client, { method: 'GET', path: '/readyz' })).toMatchObject({ status: 200 });
    expect((await call(server.port, client, { method: 'GET', path: '/metrics' })).status).toBe(404);
  });

  it('presents a certificate for the Service name that only its CA vouches for', async () => {
    const body = review(deploymentPod());
    await expect(
      post(
        server.port,
        { ca: ca.certPem, servername: `${WEBHOOK_SERVICE}.${SYSTEM_NAMESPACE}.svc.cluster.local` },
        body,
      ),
    ).resolves.toMatchObject({ status: 200 });
    await expect(post(server.port, { ca: ca.certPem, servername: 'webhook.example.com' }, body)).rejects.toMatchObject({
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    });
    const other = await createCa({ now: Date.now(), validityMs: 3600_000, commonName: 'someone-else' });
    await expect(post(server.port, { ca: other.certPem }, body)).rejects.toThrow(/certificate/);
  });
});

/** Sends the Deployment pod's review under `uid`; expects it allowed without a patch and returns how long that took (ms). */
async function admittedUnchangedIn(server: WebhookServer, uid: string): Promise<number> {
  const started = performance.now();
  const answer = await post(server.port, { ca: ca.certPem }, review(deploymentPod(), {}, uid));
  const elapsed = performance.now() - started;
  expectUnchanged(answer, uid);
  return elapsed;
}

describe('slow or failing dependencies', () => {
  it('answers allowed without a patch at the lookup deadline when the lookup never answers', async () => {
    const never: AdmissionLookup = {
      namespace: () => new Promise(() => undefined),
      instrumentation: () => new Promise(() => undefined),
    };
    const { server, logs } = await serve({ lookup: never, deadlineMs: 300 });
    try {
      const uid = randomUUID();
      // The lookup never answers, so the answer is the deadline's (the test's timeout bounds the wait).
      expect(await admittedUnchangedIn(server, uid)).toBeGreaterThanOrEqual(290);
      expect(logs.find((l) => l.fields.uid === uid)).toMatchObject({
        level: 'warn',
        fields: { injected: false, reason: 'lookup deadline 300 ms exceeded' },
      });
    } finally {
      await server.close();
    }
  });

  it('uses a 2 s deadline by default, well within the API server timeout of 10 s', async () => {
    let aborted: unknown;
    const hanging: AdmissionLookup = {
      namespace: (_name, signal) =>
        new Promise((_, reject) =>
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            reject(signal.reason);
          }),
        ),
      instrumentation: async () => undefined,
    };
    const { server, logs } = await serve({ lookup: hanging });
    try {
      const uid = randomUUID();
      expect(await admittedUnchangedIn(server, uid)).toBeGreaterThanOrEqual(1990);
      // The 2 s deadline answered, not some later timeout.
      expect(logs.find((l) => l.fields.uid === uid)).toMatchObject({
        fields: { injected: false, reason: 'lookup deadline 2000 ms exceeded' },
      });
      // The lookup was told to stop, so it does not keep working for nobody.
      expect(aborted).toBeInstanceOf(Error);
    } finally {
      await server.close();
    }
  });

  it('answers allowed without a patch when the lookup fails', async () => {
    const failing: AdmissionLookup = {
      namespace: async () => Promise.reject(new Error('connect ECONNREFUSED 10.96.0.1:443')),
      instrumentation: async () => undefined,
    };
    const { server, logs } = await serve({ lookup: failing });
    try {
      const uid = randomUUID();
      expectUnchanged(await post(server.port, { ca: ca.certPem }, review(deploymentPod(), {}, uid)), uid);
      expect(logs.find((l) => l.fields.uid === uid)).toMatchObject({
        level: 'error',
        fields: { reason: 'connect ECONNREFUSED 10.96.0.1:443' },
      });
    } finally {
      await server.close();
    }
  });

  it("answers allowed without a patch at the deadline when the controller's lookup waits on a slow API server", async () => {
    const fake = await startFakeKube();
    fake.put(namespaces.shop as KubernetesObject);
    fake.put(instrumentations.shop as KubernetesObject);
    const kubeConfig = fake.kubeConfig();
    // The controller's caches before their first list: every lookup goes to the API server.
    const unsynced = {
      cache: { get: () => undefined, list: () => [] },
      synced: false,
      ready: new Promise<void>(() => undefined),
      stop: async () => undefined,
    };
    const lookup = cachedLookup({
      namespaces: unsynced,
      instrumentations: unsynced,
      core: kubeConfig.makeApiClient(CoreV1Api),
      custom: kubeConfig.makeApiClient(CustomObjectsApi),
    });
    const { server, logs } = await serve({ lookup, deadlineMs: 500 });
    try {
      // Answered by the API server in time: instrumented (so the slow case below is the deadline at work).
      const quick = randomUUID();
      expect(
        decodePatch(await post(server.port, { ca: ca.certPem }, review(deploymentPod(), {}, quick))).length,
      ).toBeGreaterThan(0);

      fake.delay(8000);
      const slow = randomUUID();
      // Answered by the deadline, before the API server: the log says which.
      await admittedUnchangedIn(server, slow);
      expect(logs.find((l) => l.fields.uid === slow)).toMatchObject({
        level: 'warn',
        fields: { injected: false, reason: 'lookup deadline 500 ms exceeded' },
      });
    } finally {
      await server.close();
      await fake.close();
    }
  });

  it('reports not ready on /readyz until told otherwise', async () => {
    let ready = false;
    const { server } = await serve({ isReady: () => ready });
    try {
      expect((await call(server.port, { ca: ca.certPem }, { method: 'GET', path: '/readyz' })).status).toBe(503);
      ready = true;
      expect((await call(server.port, { ca: ca.certPem }, { method: 'GET', path: '/readyz' })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
