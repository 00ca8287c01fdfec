/**
 * The whole operator as its image runs it (`node operator/dist/main.js`, built by the global setup), against the fake
 * API server after `svc-zero install`: it makes its webhook certificates and sets the caBundle, serves admission over
 * HTTPS from the controller's caches, logs discovery and detection, keeps the `oti` status, and stops on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import type { KubernetesObject, V1Pod } from '@kubernetes/client-node';
import fastJsonPatch from 'fast-json-patch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderManifests } from '../../../operator/src/manifests/index.js';
import {
  CRD_API_VERSION,
  CRD_KIND,
  INIT_CONTAINER,
  INJECTED_ANNOTATION,
  SYSTEM_NAMESPACE,
  WEBHOOK_CONFIGURATION,
  WEBHOOK_TLS_SECRET,
} from '../../../operator/src/markers.js';
import type { SvcInstrumentation } from '../../../operator/src/resource/types.js';
import { stopProcess } from '../../support/child-lifecycle';
import { call, decodePatch, post, review } from '../../support/operator/admission-review';
import { deploymentPod, instrumented, namespace } from '../../support/operator/admission';
import { startFakeKube, type FakeKube } from '../../support/operator/fake-kube';
import { eventually } from '../../support/until';

const MAIN = resolve(__dirname, '../../../operator/dist/main.js');
const APP = { name: 'checkout', image: 'node:20-alpine', command: ['node', 'server.js'] };

type LogLine = { level: string; msg: string } & Record<string, unknown>;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

/**
 * The operator's log as it is written: `next(match)` resolves with the first line (so far or to come) that matches, and
 * rejects once the process has exited without writing one. No deadline: the test's timeout bounds the wait.
 */
function logOf(child: ChildProcess) {
  const lines: LogLine[] = [];
  const waiting = new Set<{ match: (entry: LogLine) => boolean; found: (entry: LogLine) => void }>();
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const complete = buffered.split('\n');
    buffered = complete.pop() ?? '';
    for (const text of complete) {
      if (!text.trim()) continue;
      const entry = JSON.parse(text) as LogLine;
      lines.push(entry);
      for (const waiter of waiting) if (waiter.match(entry)) waiter.found(entry);
    }
  });
  const exited = new Promise<never>((_, fail) =>
    child.once('exit', (code, signal) => fail(new Error(`the operator exited (${signal ?? code})`))),
  );
  exited.catch(() => undefined); // only the waits that are under way when it exits fail
  const next = (match: (entry: LogLine) => boolean, what: string): Promise<LogLine> => {
    const seen = lines.find(match);
    if (seen) return Promise.resolve(seen);
    const found = new Promise<LogLine>((resolve) => {
      const waiter = {
        match,
        found: (entry: LogLine) => {
          waiting.delete(waiter);
          resolve(entry);
        },
      };
      waiting.add(waiter);
    });
    return Promise.race([found, exited]).catch((error: Error) => {
      throw new Error(`${error.message} before logging ${what}`);
    });
  };
  return { lines, next };
}

describe('the svc-zero operator process', () => {
  let fake: FakeKube;
  let child: ChildProcess;
  let port: number;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let log: ReturnType<typeof logOf>;

  beforeAll(async () => {
    fake = await startFakeKube();
    // What `svc-zero install` leaves in the cluster: the CRD, RBAC, the empty TLS Secret, the webhook configuration.
    for (const object of renderManifests()) fake.put(object);
    fake.put(namespace('shop'));
    const { instrumentation, secret } = instrumented('shop', 'https://ingest.example.com', 'svc_ingest_key');
    fake.put(secret);
    fake.put(instrumentation as unknown as KubernetesObject);
    fake.put({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'checkout', namespace: 'shop' },
      spec: {
        selector: { matchLabels: { app: 'checkout' } },
        template: { metadata: { labels: { app: 'checkout' } }, spec: { containers: [APP] } },
      },
    } as KubernetesObject);

    port = await freePort();
    child = spawn(process.execPath, [MAIN], {
      env: {
        PATH: process.env.PATH,
        KUBECONFIG: fake.kubeconfigPath,
        POD_NAMESPACE: SYSTEM_NAMESPACE,
        POD_NAME: 'svc-zero-operator-0',
        SVC_ZERO_WEBHOOK_PORT: String(port),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    exited = new Promise((done) => child.once('exit', (code, signal) => done({ code, signal })));
    log = logOf(child);
    await log.next((entry) => entry.msg.startsWith('admission webhook listening'), 'that the webhook listens');
  });

  afterAll(async () => {
    if (child.exitCode === null) await stopProcess(child);
    await fake.close();
  });

  it('makes its webhook certificates and puts their CA in the caBundle of svc-zero', () => {
    const secret = fake.get('v1', 'Secret', SYSTEM_NAMESPACE, WEBHOOK_TLS_SECRET) as KubernetesObject & {
      data: Record<string, string>;
    };
    expect(Object.keys(secret.data).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    const configuration = fake.get(
      'admissionregistration.k8s.io/v1',
      'MutatingWebhookConfiguration',
      undefined,
      WEBHOOK_CONFIGURATION,
    ) as KubernetesObject & {
      webhooks: { clientConfig: { caBundle?: string } }[];
    };
    for (const webhook of configuration.webhooks) expect(webhook.clientConfig.caBundle).toBe(secret.data['ca.crt']);
  });

  it('instruments a pod created in an instrumented namespace, over HTTPS trusted through the caBundle', async () => {
    const secret = fake.get('v1', 'Secret', SYSTEM_NAMESPACE, WEBHOOK_TLS_SECRET) as KubernetesObject & {
      data: Record<string, string>;
    };
    const ca = Buffer.from(secret.data['ca.crt']!, 'base64').toString('utf8');
    const pod = deploymentPod('checkout', 'shop', APP);
    const answer = await post(port, { ca }, review(pod, {}, 'uid-1'));
    expect(answer.body.response).toMatchObject({ uid: 'uid-1', allowed: true });
    const mutated = fastJsonPatch.applyPatch(structuredClone(pod), decodePatch(answer), true, false)
      .newDocument as V1Pod;
    expect(mutated.metadata?.annotations?.[INJECTED_ANNOTATION]).toBe('true');
    expect(mutated.spec?.initContainers?.map((container) => container.name)).toEqual([INIT_CONTAINER]);

    // A namespace without an `oti`: allowed, untouched.
    fake.put(namespace('plain'));
    const plain = await post(
      port,
      { ca },
      review(deploymentPod('checkout', 'plain', APP), { namespace: 'plain' }, 'uid-2'),
    );
    expect(plain.body.response).toEqual({ uid: 'uid-2', allowed: true });
    expect((await call(port, { ca }, { method: 'GET', path: '/readyz' })).status).toBe(200);
  });

  it('logs discovered N workloads and one detection line per workload, and writes the oti status', async () => {
    await log.next((entry) => /discovered 1 workloads/.test(entry.msg), 'the discovery line');
    const detection = await log.next((entry) => entry.workload === 'checkout' && 'lang' in entry, 'the detection line');
    expect(detection).toMatchObject({ namespace: 'shop', lang: 'nodejs', strategy: 'sdk' });
    expect(typeof detection.framework).toBe('string');
    expect(detection.confidence).toBeGreaterThan(0);
    expect(detection.confidence).toBeLessThanOrEqual(1);

    // The fake API server tells of no writes: polled, with no deadline but the test's.
    const status = await eventually('the oti status', async () => {
      const instrumentation = fake.get(CRD_API_VERSION, CRD_KIND, 'shop', 'default') as unknown as SvcInstrumentation;
      return instrumentation.status?.counts;
    });
    expect(status.matching).toBe(1);
    const instrumentation = fake.get(CRD_API_VERSION, CRD_KIND, 'shop', 'default') as unknown as SvcInstrumentation;
    expect(instrumentation.status?.observedGeneration).toBe(instrumentation.metadata.generation);
    expect(instrumentation.status?.workloads).toEqual([
      expect.objectContaining({ kind: 'Deployment', name: 'checkout', lang: 'nodejs', strategy: 'sdk' }),
    ]);
  });

  it('stops on SIGTERM with exit code 0, after which the port refuses connections (pods are then admitted uninstrumented: failurePolicy Ignore)', async () => {
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    await expect(post(port, { ca: 'unused' }, review(deploymentPod('checkout', 'shop', APP)))).rejects.toThrow(
      /ECONNREFUSED/,
    );
    expect(log.lines.some((entry) => entry.msg === 'SIGTERM received: stopping')).toBe(true);
  });
});

describe('the svc-zero operator process without a cluster', () => {
  it('exits 1 with a line that says where it looked for a kubeconfig', async () => {
    const empty = join(__dirname, 'no-such-kubeconfig');
    const child = spawn(process.execPath, [MAIN], {
      env: { PATH: process.env.PATH, KUBECONFIG: empty, HOME: '/nonexistent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    const code = await new Promise<number | null>((done) => child.once('exit', done));
    expect(code).toBe(1);
    const failure = out
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as LogLine)
      .find((entry) => entry.level === 'error');
    expect(failure?.msg).toBe('svc-zero operator could not start');
    expect(String(failure?.error)).toContain(empty);
  });
});
