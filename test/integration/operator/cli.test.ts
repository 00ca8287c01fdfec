/**
 * The `svc-zero` CLI against the in-process fake Kubernetes API server (real REST wire format on loopback): what a
 * user sees on stdout/stderr, the exit code, and what ends up in the cluster. One case runs the built bin as a child
 * process, as users run it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { KubernetesObject } from '@kubernetes/client-node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { renderManifests } from '../../../operator/src/manifests/index.js';
import { run, type CliIo } from '../../../operator/src/cli/run.js';
import {
  API_KEY_SECRET,
  CRD_API_VERSION,
  CRD_KIND,
  WEBHOOK_CONFIGURATION,
  WEBHOOK_TLS_SECRET,
} from '../../../operator/src/markers.js';
import { startFakeKube, type FakeKube } from '../../support/operator/fake-kube.js';

const ROOT = resolve(__dirname, '../../..');
// What `npx svc-zero` runs: the link npm made to the committed launcher, which imports operator/dist/cli.js.
const CLI_BIN = join(ROOT, 'node_modules/.bin/svc-zero');
const KEY = 'ik_live_8f2c1e0d9b7a4c3e';
const OTHER_KEY = 'ik_live_rotated_55aa';
const INGEST = 'https://ingest.example.com';

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process; the environment has no KUBECONFIG and an empty HOME, so only flags point at a cluster. */
async function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Result> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: { HOME: emptyHome, ...env },
    sleep: (ms) => new Promise((done) => setTimeout(done, Math.min(ms, 50))),
  };
  const code = await run(args, io);
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

let emptyHome: string;
let fake: FakeKube;
const kube = () => `--kubeconfig=${fake.kubeconfigPath}`;
const secret = (namespace = 'shop') =>
  fake.get('v1', 'Secret', namespace, API_KEY_SECRET) as
    | (KubernetesObject & { data?: Record<string, string>; type?: string })
    | undefined;
const oti = (namespace = 'shop') =>
  fake.get(CRD_API_VERSION, CRD_KIND, namespace, 'default') as
    | (KubernetesObject & { spec: Record<string, any>; status?: unknown })
    | undefined;
const writes = () => fake.requests.filter((request) => !['GET'].includes(request.method));
const namespace = (name: string) => fake.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

beforeAll(() => {
  emptyHome = mkdtempSync(join(tmpdir(), 'svc-zero-home-'));
});
afterAll(() => rmSync(emptyHome, { recursive: true, force: true }));

describe('svc-zero instrument / uninstrument', () => {
  beforeEach(async () => {
    fake = await startFakeKube();
    namespace('shop');
  });
  afterEach(() => fake.close());

  it('creates the Secret and the oti "default" with the right fields, and never prints the key', async () => {
    const result = await cli([
      'instrument',
      '--namespace=shop',
      `--api-key=${KEY}`,
      `--ingest-url=${INGEST}`,
      '--env=production',
      '--language-hint=checkout=java',
      '--language-hint=web=node',
      kube(),
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/secret\/svc-zero-api-key\s+created/);
    expect(result.stdout).toMatch(
      /svcinstrumentation\/default\s+created\s+ingest https:\/\/ingest.example.com, strategy sdk, env production/,
    );
    expect(result.stdout).toContain('kubectl -n shop rollout restart deployment,statefulset,daemonset');
    expect(result.stdout + result.stderr).not.toContain(KEY);

    expect(secret()).toMatchObject({
      type: 'Opaque',
      metadata: { labels: { 'app.kubernetes.io/managed-by': 'svc-zero' } },
    });
    expect(Buffer.from(secret()!.data!['api-key']!, 'base64').toString()).toBe(KEY);
    expect(oti()?.spec).toEqual({
      ingestUrl: INGEST,
      apiKeySecretRef: { name: 'svc-zero-api-key', key: 'api-key' },
      env: 'production',
      languageHints: { checkout: 'java', web: 'nodejs' },
    });
  });

  it('is idempotent: the same command again reports unchanged and writes nothing', async () => {
    const args = [
      'instrument',
      '--namespace=shop',
      `--api-key=${KEY}`,
      `--ingest-url=${INGEST}`,
      '--strategy=ebpf',
      kube(),
    ];
    expect((await cli(args)).code).toBe(0);
    const versions = [secret()?.metadata?.resourceVersion, oti()?.metadata?.resourceVersion];
    fake.requests.length = 0;

    const again = await cli(args);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/secret\/svc-zero-api-key\s+unchanged/);
    expect(again.stdout).toMatch(/svcinstrumentation\/default\s+unchanged/);
    expect(again.stdout).toContain('Nothing to change: shop is already instrumented this way.');
    expect(writes()).toEqual([]);
    expect([secret()?.metadata?.resourceVersion, oti()?.metadata?.resourceVersion]).toEqual(versions);
  });

  it('a new key updates only the Secret; flags not given keep their values', async () => {
    await cli([
      'instrument',
      '--namespace=shop',
      `--api-key=${KEY}`,
      `--ingest-url=${INGEST}`,
      '--strategy=ebpf',
      '--language-hint=checkout=java',
      kube(),
    ]);
    const otiVersion = oti()?.metadata?.resourceVersion;

    const rotated = await cli(['instrument', '--namespace=shop', `--api-key=${OTHER_KEY}`, kube()]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/secret\/svc-zero-api-key\s+updated/);
    expect(rotated.stdout).toMatch(/svcinstrumentation\/default\s+unchanged/);
    expect(rotated.stdout + rotated.stderr).not.toContain(OTHER_KEY);
    expect(Buffer.from(secret()!.data!['api-key']!, 'base64').toString()).toBe(OTHER_KEY);
    expect(oti()?.metadata?.resourceVersion).toBe(otiVersion);

    const hinted = await cli([
      'instrument',
      '--namespace=shop',
      `--api-key=${OTHER_KEY}`,
      '--language-hint=worker=python',
      kube(),
    ]);
    expect(hinted.stdout).toMatch(/svcinstrumentation\/default\s+updated .*\(changed: languageHints\)/);
    expect(oti()?.spec).toMatchObject({
      strategy: 'ebpf',
      ingestUrl: INGEST,
      languageHints: { checkout: 'java', worker: 'python' },
    });
  });

  it("exactly SPEC 2.8's command: without an ingest URL the oti leaves it to the operator's install value; SVC_INGEST_URL fills it", async () => {
    const bare = await cli(['instrument', '--namespace=shop', `--api-key=${KEY}`, kube()]);
    expect(bare.code, bare.stderr).toBe(0);
    expect(bare.stdout).toMatch(/svcinstrumentation\/default\s+created\s+ingest the operator's default, strategy sdk/);
    expect(oti()?.spec).not.toHaveProperty('ingestUrl');
    const status = await cli(['status', '--namespace=shop', kube()]);
    expect(status.stdout).toContain('(operator default)');
    await cli(['uninstrument', '--namespace=shop', kube()]);

    const badEnv = await cli(['instrument', '--namespace=shop', `--api-key=${KEY}`, kube()], {
      SVC_INGEST_URL: 'ingest.example.com',
    });
    expect(badEnv.code).toBe(2);
    expect(badEnv.stderr).toContain('SVC_INGEST_URL must be an http(s) URL');

    const fromEnv = await cli(['instrument', '--namespace=shop', kube()], { SVC_INGEST_URL: INGEST, SVC_API_KEY: KEY });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    expect(oti()?.spec.ingestUrl).toBe(INGEST);
  });

  it('uninstrument deletes both and says running pods keep the agent until restarted; again, nothing to do', async () => {
    await cli(['instrument', '--namespace=shop', `--api-key=${KEY}`, `--ingest-url=${INGEST}`, kube()]);
    const result = await cli(['uninstrument', '--namespace=shop', kube()]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/svcinstrumentation\/default\s+deleted/);
    expect(result.stdout).toMatch(/secret\/svc-zero-api-key\s+deleted/);
    expect(result.stdout).toContain('Running pods keep the agent until they are restarted');
    expect(secret()).toBeUndefined();
    expect(oti()).toBeUndefined();

    const again = await cli(['uninstrument', '--namespace=shop', kube()]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('shop was not instrumented; nothing changed.');
  });

  it('bad usage exits 2 with a message naming the flag, before any request', async () => {
    const cases: [string[], RegExp][] = [
      [['instrument', `--api-key=${KEY}`], /missing --namespace=<namespace>/],
      [['instrument', '--namespace=shop'], /missing --api-key=<API_KEY>/],
      [
        ['instrument', '--namespace=shop', `--api-key=${KEY}`, '--strategy=magic'],
        /--strategy must be sdk or ebpf, got "magic"/,
      ],
      [['instrument', '--namespace=Shop!', `--api-key=${KEY}`], /"Shop!" is not a namespace name/],
      [
        ['instrument', '--namespace=shop', `--api-key=${KEY}`, '--language-hint=checkout=cobol'],
        /unknown language "cobol"/,
      ],
      [
        ['instrument', '--namespace=shop', `--api-key=${KEY}`, '--ingest-url=ftp://x'],
        /--ingest-url must be an http\(s\) URL/,
      ],
      [['instrument', '--namespace=shop', '--api-key=two words'], /whitespace or control characters/],
      [['instrument', '--namespace=shop', '--frobnicate'], /unknown option --frobnicate for svc-zero instrument/],
      [['status', '--output=yaml'], /--output must be table or json/],
      [['launch'], /unknown command "launch"/],
    ];
    for (const [args, message] of cases) {
      const result = await cli([...args, kube()]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toMatch(message);
    }
    expect(fake.requests).toEqual([]);
  });
});

describe('svc-zero: clear errors', () => {
  afterEach(async () => {
    await fake?.close();
  });

  it('no kubeconfig anywhere: says where it looked (flag, KUBECONFIG, ~/.kube/config)', async () => {
    fake = await startFakeKube();
    const result = await cli(['status']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^svc-zero: no Kubernetes configuration found/);
    expect(result.stderr).toContain('KUBECONFIG is not set');
    expect(result.stderr).toContain(join(emptyHome, '.kube', 'config'));
    const missingFile = await cli(['status', '--kubeconfig=/nowhere/config']);
    expect(missingFile.stderr).toContain('kubeconfig /nowhere/config (from --kubeconfig) does not exist');
    const badContext = await cli(['status', kube(), '--context=prod']);
    expect(badContext.stderr).toMatch(/context "prod" is not in the kubeconfig.*available contexts: fake/);
  });

  it('unknown namespace: names it', async () => {
    fake = await startFakeKube();
    const result = await cli(['instrument', '--namespace=nope', `--api-key=${KEY}`, `--ingest-url=${INGEST}`, kube()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('namespace "nope" does not exist');
    expect(writes()).toEqual([]);
  });

  it('missing permission: says which verb, resource and namespace, and the RBAC that would allow it', async () => {
    fake = await startFakeKube();
    namespace('shop');
    fake.forbid({ verb: 'create', resource: 'secrets', namespace: 'shop' });
    const result = await cli(['instrument', '--namespace=shop', `--api-key=${KEY}`, `--ingest-url=${INGEST}`, kube()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('missing permission: cannot create secrets in namespace shop');
    expect(result.stderr).toContain('kubectl -n shop create role svc-zero-user --verb=get,create --resource=secrets');
    expect(result.stderr).toContain(
      'kubectl -n shop create rolebinding svc-zero-user --role=svc-zero-user --user=fake-kube-user',
    );
    expect(result.stderr).not.toContain(KEY);
    expect(oti()).toBeUndefined();
  });

  it('a user who may not read namespaces can still instrument one (the namespace check is skipped, not failed)', async () => {
    fake = await startFakeKube();
    namespace('shop');
    fake.forbid({ verb: 'get', resource: 'namespaces' });
    const result = await cli(['instrument', '--namespace=shop', `--api-key=${KEY}`, `--ingest-url=${INGEST}`, kube()]);
    expect(result.code, result.stderr).toBe(0);
    expect(oti()).toBeDefined();
  });

  it('CRD not installed: tells to run svc-zero install, for instrument and status', async () => {
    fake = await startFakeKube({ crdInstalled: false });
    namespace('shop');
    for (const args of [['instrument', '--namespace=shop', `--api-key=${KEY}`, `--ingest-url=${INGEST}`], ['status']]) {
      const result = await cli([...args, kube()]);
      expect(result.code, args[0]).toBe(1);
      expect(result.stderr).toContain('the SvcInstrumentation CRD (svcinstrumentations.svc.io) is not installed');
      expect(result.stderr).toContain('run svc-zero install first');
    }
    expect(secret()).toBeUndefined();
  });

  it('API server unreachable: says so, with the context and server it tried', async () => {
    fake = await startFakeKube();
    const { url } = fake;
    // A kubeconfig for a server that has gone away (closing the fake removes its own kubeconfig file).
    const kubeconfigPath = join(emptyHome, 'stale-kubeconfig');
    writeFileSync(kubeconfigPath, readFileSync(fake.kubeconfigPath));
    await fake.close();
    const result = await cli(['status', `--kubeconfig=${kubeconfigPath}`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('cannot reach the Kubernetes API server');
    expect(result.stderr).toContain('connection refused');
    expect(result.stderr).toContain(`context "fake" (${url})`);
    fake = await startFakeKube(); // for afterEach
  });
});

describe('svc-zero status', () => {
  beforeEach(async () => {
    fake = await startFakeKube();
    for (const name of ['shop', 'billing']) namespace(name);
  });
  afterEach(() => fake.close());

  it('lists instrumented namespaces and per-workload detection and state; --output=json for scripts', async () => {
    await cli(['instrument', '--namespace=shop', `--api-key=${KEY}`, `--ingest-url=${INGEST}`, kube()]);
    await cli([
      'instrument',
      '--namespace=billing',
      `--api-key=${KEY}`,
      `--ingest-url=${INGEST}`,
      '--strategy=ebpf',
      kube(),
    ]);
    const shop = oti('shop')!;
    fake.put({
      ...shop,
      status: {
        observedGeneration: 1,
        conditions: [
          {
            type: 'Ready',
            status: 'True',
            reason: 'Reconciled',
            message: '2 workloads',
            lastTransitionTime: '2025-01-01T00:00:00Z',
            observedGeneration: 1,
          },
        ],
        counts: { matching: 3, injected: 1, pending: 1, outdated: 1, failed: 0 },
        workloads: [
          {
            kind: 'Deployment',
            name: 'checkout',
            lang: 'java',
            framework: 'spring-boot',
            strategy: 'sdk',
            confidence: 1,
            source: 'hint',
            state: 'injected',
          },
          {
            kind: 'StatefulSet',
            name: 'queue',
            lang: 'python',
            framework: 'celery',
            strategy: 'sdk',
            confidence: 0.9,
            source: 'command',
            state: 'pending',
            reason: 'no running pods observed',
          },
          {
            kind: 'Deployment',
            name: 'web',
            lang: 'nodejs',
            framework: 'express',
            strategy: 'sdk',
            confidence: 0.86,
            source: 'command',
            state: 'outdated',
            reason: 'pods started before the oti',
          },
        ],
      },
    } as KubernetesObject);

    const table = await cli(['status', kube()]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.split('\n');
    expect(lines[0]).toMatch(
      /^NAMESPACE\s+OTI\s+STRATEGY\s+READY\s+MATCHING\s+INJECTED\s+PENDING\s+OUTDATED\s+FAILED\s+INGEST$/,
    );
    expect(lines[1]).toMatch(/^billing\s+default\s+ebpf\s+Unknown\s+-\s+-\s+-\s+-\s+-\s+https:\/\/ingest.example.com$/);
    expect(lines[2]).toMatch(/^shop\s+default\s+sdk\s+True\s+3\s+1\s+1\s+1\s+0\s+https:\/\/ingest.example.com$/);
    expect(table.stdout).toMatch(/NAMESPACE\s+WORKLOAD\s+LANG\s+FRAMEWORK\s+STRATEGY\s+CONFIDENCE\s+STATE\s+REASON/);
    expect(table.stdout).toMatch(/shop\s+deployment\/checkout\s+java\s+spring-boot\s+sdk\s+1.00\s+injected/);
    expect(table.stdout).toMatch(
      /shop\s+deployment\/web\s+nodejs\s+express\s+sdk\s+0.86\s+outdated\s+pods started before the oti/,
    );
    expect(table.stdout).toMatch(
      /shop\s+statefulset\/queue\s+python\s+celery\s+sdk\s+0.90\s+pending\s+no running pods observed/,
    );
    expect(table.stdout).toContain('The operator has not reported on billing yet');
    expect(table.stdout).toContain('Outdated workloads run pods without the current agent');

    const json = await cli(['status', '--namespace=shop', '--output=json', kube()]);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout);
    expect(parsed).toHaveLength(1);
    expect(parsed[0]).toMatchObject({
      namespace: 'shop',
      name: 'default',
      strategy: 'sdk',
      ready: 'True',
      counts: { matching: 3, injected: 1, pending: 1, outdated: 1, failed: 0 },
    });
    expect(
      parsed[0].workloads.map((w: { name: string; lang: string; confidence: number; state: string }) => [
        w.name,
        w.lang,
        w.confidence,
        w.state,
      ]),
    ).toEqual([
      ['checkout', 'java', 1, 'injected'],
      ['queue', 'python', 0.9, 'pending'],
      ['web', 'nodejs', 0.86, 'outdated'],
    ]);
  });

  it('nothing instrumented: says how to start; an unknown --namespace is an error', async () => {
    const empty = await cli(['status', kube()]);
    expect(empty.code).toBe(0);
    expect(empty.stdout).toContain('No namespace is instrumented');
    const unknown = await cli(['status', '--namespace=nope', kube()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('namespace "nope" does not exist');
  });
});

describe('svc-zero install', () => {
  beforeEach(async () => {
    fake = await startFakeKube({ crdInstalled: false });
  });
  afterEach(() => fake.close());

  const stored = (object: KubernetesObject) =>
    fake.get(object.apiVersion!, object.kind!, object.metadata?.namespace, object.metadata!.name!) as any;

  it('--render prints the manifests (what operator/deploy/manifests/svc-zero.yaml holds) without a cluster', async () => {
    const result = await cli(['install', '--render', '--set', 'ebpf.resources.limits.memory=1Gi']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('kind: CustomResourceDefinition');
    expect(result.stdout).toContain('value: 1Gi');
    const bad = await cli(['install', '--render', '--set', 'webhook.timeoutSeconds=60']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('webhook.timeoutSeconds must be an integer from 1 to 30');
  });

  it('applies every object in order, CRD first; afterwards instrument works (the CRD is served)', async () => {
    const result = await cli(['install', kube()]);
    expect(result.code, result.stderr).toBe(0);
    const objects = renderManifests();
    for (const object of objects) {
      expect(stored(object), `${object.kind}/${object.metadata?.name}`).toBeDefined();
      expect(result.stdout).toMatch(new RegExp(`${object.kind!.toLowerCase()}/${object.metadata!.name}\\s+created`));
    }
    const posts = fake.requests.filter((request) => request.method === 'POST').map((request) => request.path);
    expect(posts[0]).toBe('/api/v1/namespaces');
    expect(posts[1]).toBe('/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    expect(posts.at(-1)).toBe('/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations');
    // The CRD arrived whole: enums and int-or-string markers included (a typed client would have dropped them).
    const schema = stored(objects[1]!).spec.versions[0].schema.openAPIV3Schema;
    expect(schema.properties.spec.properties.strategy.enum).toEqual(['sdk', 'ebpf']);
    expect(
      schema.properties.spec.properties.agents.properties.java.properties.resources.properties.limits
        .additionalProperties['x-kubernetes-int-or-string'],
    ).toBe(true);

    namespace('shop');
    const instrument = await cli([
      'instrument',
      '--namespace=shop',
      `--api-key=${KEY}`,
      `--ingest-url=${INGEST}`,
      kube(),
    ]);
    expect(instrument.code, instrument.stderr).toBe(0);
  });

  it('is re-runnable: unchanged objects are not written; an upgrade keeps the caBundle and the TLS Secret the operator wrote', async () => {
    await cli(['install', kube()]);
    // What the operator does at start: fill the TLS Secret and patch the caBundle.
    const tls = fake.get('v1', 'Secret', 'svc-system', WEBHOOK_TLS_SECRET) as any;
    fake.put({ ...tls, data: { 'tls.crt': 'Y2VydA==', 'tls.key': 'a2V5', 'ca.crt': 'Y2E=' } });
    const webhook = fake.get(
      'admissionregistration.k8s.io/v1',
      'MutatingWebhookConfiguration',
      undefined,
      WEBHOOK_CONFIGURATION,
    ) as any;
    webhook.webhooks[0].clientConfig.caBundle = 'Q0EtQlVORExF';
    fake.put(webhook);
    fake.requests.length = 0;

    const again = await cli(['install', kube()]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).not.toMatch(/created|updated/);
    expect(writes()).toEqual([]);

    const upgrade = await cli([
      'install',
      '--set',
      'webhook.timeoutSeconds=5',
      '--set',
      'ebpf.resources.limits.memory=1Gi',
      kube(),
    ]);
    expect(upgrade.code, upgrade.stderr).toBe(0);
    expect(upgrade.stdout).toMatch(/mutatingwebhookconfiguration\/svc-zero\s+updated/);
    expect(upgrade.stdout).toMatch(/deployment\/svc-zero-operator\s+updated/);
    expect(upgrade.stdout).toMatch(/customresourcedefinition\/svcinstrumentations.svc.io\s+unchanged/);
    const after = fake.get(
      'admissionregistration.k8s.io/v1',
      'MutatingWebhookConfiguration',
      undefined,
      WEBHOOK_CONFIGURATION,
    ) as any;
    expect(after.webhooks[0].timeoutSeconds).toBe(5);
    expect(after.webhooks[0].clientConfig.caBundle).toBe('Q0EtQlVORExF');
    expect((fake.get('v1', 'Secret', 'svc-system', WEBHOOK_TLS_SECRET) as any).data['tls.crt']).toBe('Y2VydA==');
    const env = (fake.get('apps/v1', 'Deployment', 'svc-system', 'svc-zero-operator') as any).spec.template.spec
      .containers[0].env;
    expect(env).toContainEqual({ name: 'SVC_ZERO_EBPF_MEMORY_LIMIT', value: '1Gi' });
  });

  it('--dry-run stores nothing; --wait waits for the operator and fails clearly after --timeout', async () => {
    const dry = await cli(['install', '--dry-run', kube()]);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(/customresourcedefinition\/svcinstrumentations.svc.io\s+created \(dry run\)/);
    expect(dry.stdout).toMatch(
      /deployment\/svc-zero-operator\s+created \(dry run; not validated before namespace svc-system exists\)/,
    );
    expect(fake.list('apps/v1', 'Deployment')).toEqual([]);
    expect(fake.list('apiextensions.k8s.io/v1', 'CustomResourceDefinition')).toEqual([]);

    const timedOut = await cli(['install', '--wait', '--timeout=1', kube()]);
    expect(timedOut.code).toBe(1);
    expect(timedOut.stderr).toContain('svc-zero-operator is not available after 1 s');
    expect(timedOut.stderr).toContain('kubectl -n svc-system describe deployment/svc-zero-operator');

    const deployment = fake.get('apps/v1', 'Deployment', 'svc-system', 'svc-zero-operator') as any;
    fake.put({
      ...deployment,
      status: {
        observedGeneration: deployment.metadata.generation ?? 1,
        replicas: 1,
        updatedReplicas: 1,
        availableReplicas: 1,
        readyReplicas: 1,
      },
    });
    const ready = await cli(['install', '--wait', '--timeout=5', kube()]);
    expect(ready.code, ready.stderr).toBe(0);
    expect(ready.stdout).toContain('svc-zero-operator is available in svc-system.');
  });

  it('without the rights to install: names the missing permission and says cluster-admin is needed', async () => {
    fake.forbid({ verb: 'create', resource: 'customresourcedefinitions.apiextensions.k8s.io' });
    const result = await cli(['install', kube()]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'missing permission: cannot create customresourcedefinitions.apiextensions.k8s.io at cluster scope',
    );
    expect(result.stderr).toContain('it needs cluster-admin rights');
  });
});

describe('the built svc-zero bin', () => {
  let dir: string;
  beforeAll(async () => {
    // The bin as `npm run build` made it (test/support/build-server.ts): operator/dist/cli.js, dependencies external.
    dir = mkdtempSync(join(tmpdir(), 'svc-zero-bin-'));
    mkdirSync(join(dir, 'home'));
    fake = await startFakeKube();
    namespace('shop');
  });
  afterAll(async () => {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Asynchronous: the fake API server runs in this process and must keep answering while the bin runs.
  const bin = (args: string[]) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
      execFile(
        process.execPath,
        [CLI_BIN, ...args],
        { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: join(dir, 'home') }, timeout: 20_000 },
        (error, stdout, stderr) => {
          done({ status: error ? (typeof error.code === 'number' ? error.code : null) : 0, stdout, stderr });
        },
      );
    });

  it('runs as a process: exit codes 0, 1 and 2, output on stdout, errors on stderr', async () => {
    // Linked at `npm install`, before any build: a bin naming operator/dist/cli.js would not be.
    expect(realpathSync(CLI_BIN)).toBe(join(ROOT, 'operator/bin/svc-zero.js'));
    expect(readFileSync(CLI_BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    const help = await bin(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Commands:\n\s+instrument\s/);
    const bare = await bin([]);
    expect(bare.status).toBe(2);
    expect(bare.stderr).toContain('Usage: svc-zero <command> [options]');

    const version = await bin(['--version']);
    expect(version.status).toBe(0);
    expect(version.stdout.trim()).toMatch(/^svc-zero \d+\.\d+\.\d+$/);

    const instrument = await bin([
      'instrument',
      '--namespace=shop',
      `--api-key=${KEY}`,
      `--ingest-url=${INGEST}`,
      `--kubeconfig=${fake.kubeconfigPath}`,
    ]);
    expect(instrument.status, instrument.stderr).toBe(0);
    expect(instrument.stdout).toMatch(/svcinstrumentation\/default\s+created/);
    expect(oti()).toBeDefined();

    const noConfig = await bin(['status']);
    expect(noConfig.status).toBe(1);
    expect(noConfig.stderr).toContain('no Kubernetes configuration found');
    expect(noConfig.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace

    const usage = await bin(['instrument']);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('missing --namespace=<namespace>');
  });
});
