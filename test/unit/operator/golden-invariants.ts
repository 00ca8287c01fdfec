/**
 * What each golden case's mutation must do, written by hand from docs/zero-mutation.md and the case's description, and
 * checked against the pod mutatePod produces, never against the case's expectedPod (which `npm run golden:update`
 * rewrites from the code's own output): which container gets which env values, the init containers and volumes in
 * their order, the sidecar, and that every other container is left exactly as it was.
 */
import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { expect } from 'vitest';

/** An env value after the mutation: exact, a pattern, or null for "as the app wrote it" (nothing of ours there). */
type EnvValue = string | RegExp | null;

export interface Invariant {
  /** Left alone: the decision's reason says this (the test checks separately that nothing changes). */
  skipped?: RegExp;
  strategy?: 'sdk' | 'ebpf';
  /** The application container: the SDK's env and mount go there; the eBPF sidecar names it. */
  into?: string;
  /** Env after the mutation, of `into` (sdk) or of the svc-ebpf sidecar (ebpf). */
  env?: Record<string, EnvValue>;
  /** The image of svc-agent-init (sdk) or of the sidecar (ebpf). */
  image?: string;
  /** The pod's init containers after the mutation, in order (default: the app's, then svc-agent-init). */
  initContainers?: string[];
  /** The pod's volumes after the mutation, in order (default: the app's, then svc-agent). */
  volumes?: string[];
  /** Anything else the case is about. */
  check?: (mutated: V1Pod, input: V1Pod) => void;
}

const AGENT_IMAGES = {
  nodejs: 'ghcr.io/svc-dev/svc-zero-agent-node:0.1.0',
  java: 'ghcr.io/svc-dev/svc-zero-agent-java:0.1.0',
  python: 'ghcr.io/svc-dev/svc-zero-agent-python:0.1.0',
};
const NODE_REQUIRE = '--require /svc-agent/node/register.cjs';
const JAVA_AGENTS =
  '-javaagent:/svc-agent/java/opentelemetry-javaagent.jar -javaagent:/svc-agent/java/svc-zero-banner.jar';
const PYTHON_PATHS = '/svc-agent/python/bootstrap:/svc-agent/python';
const OTLP = {
  OTEL_EXPORTER_OTLP_ENDPOINT: '$(SVC_INGEST_URL)/otlp',
  OTEL_EXPORTER_OTLP_HEADERS: 'X-API-Key=$(SVC_API_KEY)',
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
};
const INGEST = 'https://ingest.svc.example.com';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The language's agent variable, as the mutation leaves it when the app did not set it. */
const AGENT_ENV = {
  nodejs: { NODE_OPTIONS: NODE_REQUIRE },
  java: { JAVA_TOOL_OPTIONS: JAVA_AGENTS, ...OTLP },
  python: { PYTHONPATH: PYTHON_PATHS, ...OTLP },
};

/** An SDK injection into `into` of a `workload` in namespace `env` (SVC_ENV), with the case's own env on top. */
function sdk(
  lang: keyof typeof AGENT_ENV,
  into: string,
  workload: string,
  env: string,
  more: Partial<Invariant> = {},
): Invariant {
  return {
    strategy: 'sdk',
    into,
    image: AGENT_IMAGES[lang],
    ...more,
    env: {
      SVC_INGEST_URL: INGEST,
      SVC_ENV: env,
      OTEL_SERVICE_NAME: workload,
      OTEL_RESOURCE_ATTRIBUTES: new RegExp(`k8s\\.pod\\.name=\\$\\(SVC_POD_NAME\\),k8s\\.container\\.name=${into}\\b`),
      ...AGENT_ENV[lang],
      ...more.env,
    },
  };
}

/** An eBPF sidecar for `into` of a `workload`, with the case's env on top. */
function ebpf(into: string, workload: string, more: Partial<Invariant> = {}): Invariant {
  return {
    strategy: 'ebpf',
    into,
    image: 'docker.io/otel/ebpf-instrument:v0.1.0',
    ...more,
    env: { SVC_INGEST_URL: INGEST, OTEL_SERVICE_NAME: workload, ...OTLP, ...more.env },
  };
}

const annotation = (pod: V1Pod, key: string) => pod.metadata?.annotations?.[key];

export const INVARIANTS: Record<string, Invariant> = {
  '01-node-deployment.json': sdk('nodejs', 'app', 'checkout', 'shop', {
    env: { OTEL_RESOURCE_ATTRIBUTES: /k8s\.deployment\.name=checkout,deployment\.environment\.name=shop$/ },
  }),
  '02-node-options-appended.json': sdk('nodejs', 'app', 'checkout', 'shop', {
    env: { NODE_OPTIONS: `--max-old-space-size=512 --enable-source-maps ${NODE_REQUIRE}` },
  }),
  '03-node-options-already-required.json': sdk('nodejs', 'app', 'checkout', 'shop', { env: { NODE_OPTIONS: null } }),
  '04-node-options-valuefrom.json': sdk('nodejs', 'app', 'checkout', 'shop', { env: { NODE_OPTIONS: null } }),
  '05-java-tool-options-existing.json': sdk('java', 'payments', 'payments', 'shop', {
    env: { JAVA_TOOL_OPTIONS: `-Xmx512m -XX:+UseG1GC ${JAVA_AGENTS}` },
    check: (pod) => {
      // $(VAR) expands only to variables defined earlier in the list.
      const names = pod.spec!.containers.find((c) => c.name === 'payments')!.env!.map((e) => e.name);
      expect(names.indexOf('OTEL_EXPORTER_OTLP_ENDPOINT')).toBeGreaterThan(names.indexOf('SVC_INGEST_URL'));
      expect(names.indexOf('OTEL_EXPORTER_OTLP_HEADERS')).toBeGreaterThan(names.indexOf('SVC_API_KEY'));
    },
  }),
  '06-python-pythonpath.json': sdk('python', 'web', 'catalog', 'shop', {
    env: { PYTHONPATH: `${PYTHON_PATHS}:/app/lib` },
  }),
  '07-language-from-svc-language-env.json': sdk('java', 'billing', 'billing', 'shop'),
  '08-language-from-label.json': sdk('python', 'worker', 'worker', 'shop'),
  '09-language-from-hint.json': sdk('nodejs', 'inventory', 'inventory', 'shop'),
  '10-language-from-image.json': sdk('java', 'api', 'ledger-api', 'shop'),
  '11-language-from-command.json': sdk('python', 'admin', 'admin', 'shop'),
  '12-language-from-image-name-word.json': sdk('python', 'orders', 'orders', 'shop'),
  '13-conflicting-signals.json': { skipped: /nodejs with confidence 0\.52, below 0\.6/ },
  '14-unknown-language.json': { skipped: /language/ },
  '15-go-sdk-no-agent.json': { skipped: /^no SDK agent for go; use strategy ebpf$/ },
  '16-go-ebpf-sidecar.json': ebpf('gateway', 'gateway', {
    env: { SVC_ENV: 'edge', OTEL_EBPF_OPEN_PORT: '8080,9090' },
  }),
  '17-istio-proxy-first.json': sdk('nodejs', 'web', 'storefront', 'shop', {
    initContainers: ['istio-init', 'svc-agent-init'],
  }),
  '18-linkerd-proxy.json': sdk('java', 'orders', 'orders', 'shop', {
    initContainers: ['linkerd-init', 'svc-agent-init'],
  }),
  '19-svc-container-annotation.json': sdk('python', 'worker', 'jobs', 'shop'),
  '20-svc-container-annotation-missing.json': { skipped: /svc\.io\/container="wroker" names no container/ },
  '21-kubectl-default-container.json': sdk('nodejs', 'api', 'search', 'shop'),
  '22-all-containers-sidecars.json': { skipped: /no application container: every container is a known sidecar/ },
  '23-bare-pod-without-maps.json': sdk('nodejs', 'debug', 'debug-node', 'shop', {
    initContainers: ['svc-agent-init'],
    volumes: ['svc-agent'],
  }),
  '24-existing-init-containers-and-volumes.json': sdk('nodejs', 'reviews', 'reviews', 'shop', {
    initContainers: ['wait-for-db', 'svc-agent-init'],
    volumes: ['config', 'tmp', 'svc-agent'],
    check: (pod) =>
      expect(pod.spec!.containers[0]!.volumeMounts!.map((m) => m.name)).toEqual(['config', 'tmp', 'svc-agent']),
  }),
  '25-annotation-keys-escaped.json': sdk('nodejs', 'app', 'checkout', 'shop', {
    check: (pod, input) => {
      expect(annotation(pod, 'svc.io/injected')).toBe('true');
      for (const [key, value] of Object.entries(input.metadata!.annotations!))
        expect(annotation(pod, key), key).toBe(value);
    },
  }),
  '26-excluded-namespace.json': { skipped: /^namespace legacy is labelled svc\.io\/exclude=true$/ },
  '27-svc-system-namespace.json': { skipped: /svc-system is the operator's own/ },
  '28-pod-exclude-annotation.json': { skipped: /^pod is annotated svc\.io\/exclude=true$/ },
  '29-already-injected.json': { skipped: /^pod is already annotated svc\.io\/injected=true$/ },
  '30-no-instrumentation.json': { skipped: /has no SvcInstrumentation/ },
  '31-ebpf-privileged-namespace.json': ebpf('reports', 'reports-api', {
    env: { SVC_ENV: 'production', OTEL_EBPF_OPEN_PORT: '8000' },
  }),
  '32-ebpf-baseline-fallback.json': sdk('nodejs', 'frontend', 'frontend', 'web', {
    check: (pod) => expect(annotation(pod, 'svc.io/strategy-fallback')).toMatch(/enforces Pod Security "baseline"/),
  }),
  '33-ebpf-restricted-fallback.json': sdk('java', 'ui', 'vault-ui', 'secure', {
    check: (pod) => expect(annotation(pod, 'svc.io/strategy-fallback')).toMatch(/"restricted"/),
  }),
  '34-ebpf-restricted-go-skipped.json': { skipped: /restricted[\s\S]*go|go[\s\S]*restricted/ },
  '35-ebpf-memory-limit-from-settings.json': ebpf('router', 'router', {
    env: { OTEL_EBPF_OPEN_PORT: '8443' },
    check: (pod) =>
      expect(pod.spec!.containers.at(-1)!.resources).toMatchObject({
        requests: { memory: '128Mi' },
        limits: { memory: '1Gi' },
      }),
  }),
  '36-ebpf-small-limit-oti-image.json': ebpf('runner', 'cron-runner', {
    image: 'registry.example.com/mirror/ebpf-instrument:v0.3.0',
    check: (pod) => {
      const sidecar = pod.spec!.containers.at(-1)!;
      expect(sidecar.resources?.limits?.memory).toBe('96Mi');
      expect(sidecar.resources?.requests?.memory).toBeUndefined();
      expect(sidecar.env!.some((e) => e.name === 'OTEL_EBPF_OPEN_PORT')).toBe(false);
    },
  }),
  '37-ebpf-host-pid-fallback.json': sdk('nodejs', 'tracer', 'tracer', 'edge', {
    check: (pod) => {
      expect(annotation(pod, 'svc.io/strategy-fallback')).toMatch(/hostPID/);
      expect(pod.spec!.shareProcessNamespace).toBeUndefined();
    },
  }),
  '38-agent-image-override.json': sdk('nodejs', 'app', 'checkout', 'staging', {
    image: 'registry.example.com/mirror/svc-zero-node:0.1.0',
    check: (pod) => {
      const init = pod.spec!.initContainers!.at(-1)!;
      expect(init.resources).toEqual({ requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } });
      const key = pod.spec!.containers[0]!.env!.find((e) => e.name === 'SVC_API_KEY');
      expect(key?.valueFrom?.secretKeyRef).toMatchObject({ name: 'telemetry', key: 'ingest-key' });
    },
  }),
  '39-otel-service-name-kept.json': sdk('nodejs', 'app', 'storefront', 'canary', {
    env: {
      OTEL_SERVICE_NAME: null,
      SVC_ENV: null,
      OTEL_RESOURCE_ATTRIBUTES: /deployment\.environment\.name=canary$/,
    },
  }),
  '40-statefulset-pod.json': sdk('java', 'ledger', 'ledger', 'shop', {
    env: { OTEL_RESOURCE_ATTRIBUTES: /k8s\.statefulset\.name=ledger/ },
  }),
  '41-daemonset-pod.json': sdk('python', 'forwarder', 'log-forwarder', 'shop', {
    env: { OTEL_RESOURCE_ATTRIBUTES: /k8s\.daemonset\.name=log-forwarder/ },
  }),
  '42-generate-name-only-pod.json': sdk('nodejs', 'report', 'batch-report', 'shop', {
    env: { OTEL_RESOURCE_ATTRIBUTES: /^(?!.*k8s\.(?:deployment|statefulset|daemonset|replicaset|job)\.name)/ },
  }),
  '43-existing-svc-agent-volume.json': { skipped: /^pod already has a volume named svc-agent$/ },
  '44-resource-attributes-extended.json': sdk('nodejs', 'app', 'checkout', 'shop', {
    env: {
      OTEL_RESOURCE_ATTRIBUTES: new RegExp(
        `^${escape('service.version=1.2.3,deployment.environment.name=prod-eu,')}k8s\\.namespace\\.name=shop,(?!.*deployment\\.environment\\.name=shop)`,
      ),
    },
    check: (pod) => {
      const names = pod.spec!.containers[0]!.env!.map((e) => e.name);
      expect(names.indexOf('SVC_POD_NAME')).toBeLessThan(names.indexOf('OTEL_RESOURCE_ATTRIBUTES'));
    },
  }),
  '45-envfrom-warning.json': sdk('nodejs', 'app', 'checkout', 'shop', {
    check: (pod) => expect(annotation(pod, 'svc.io/warnings')).toMatch(/envFrom/),
  }),
  '46-node-options-other-tracer.json': sdk('nodejs', 'app', 'checkout', 'shop', {
    env: { NODE_OPTIONS: `--require dd-trace/init ${NODE_REQUIRE}` },
  }),
  '47-min-confidence-lowered.json': sdk('nodejs', 'web', 'legacy-web', 'shop'),
  '48-below-threshold-env-only.json': { skipped: /confidence 0\.5, below 0\.6; confirm it/ },
  '49-java-otlp-endpoint-kept.json': sdk('java', 'payments', 'payments', 'shop', {
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: null },
  }),
  '50-native-sidecar-init-container.json': sdk('nodejs', 'web', 'storefront', 'shop', {
    initContainers: ['istio-proxy', 'svc-agent-init'],
  }),
  '51-invalid-explicit-language.json': sdk('nodejs', 'app', 'checkout', 'shop'),
  '52-windows-pod.json': { skipped: /Windows/ },
  '53-python-pythonpath-valuefrom.json': sdk('python', 'web', 'catalog', 'shop', { env: { PYTHONPATH: null } }),
  '54-invalid-instrumentation.json': { skipped: /has no spec\.apiKeySecretRef\.name$/ },
  '55-default-ingest-url.json': sdk('nodejs', 'app', 'checkout', 'shop', {
    env: { SVC_INGEST_URL: 'https://ingest.platform.example.com' },
  }),
  '56-no-ingest-url-anywhere.json': { skipped: /no spec\.ingestUrl and the operator has no default/ },
};

const names = (items: { name: string }[] | undefined) => (items ?? []).map((item) => item.name);

function expectEnv(container: V1Container, original: V1Container | undefined, env: Record<string, EnvValue>) {
  for (const [name, expected] of Object.entries(env)) {
    const entries = (container.env ?? []).filter((e) => e.name === name);
    if (expected === null) {
      expect(entries, `${name} as the app wrote it`).toEqual((original?.env ?? []).filter((e) => e.name === name));
      continue;
    }
    expect(entries, `${name} set once`).toHaveLength(1);
    if (typeof expected === 'string') expect(entries[0]!.value, name).toBe(expected);
    else expect(entries[0]!.value, name).toMatch(expected);
  }
}

/** Checks `mutated` (the input pod with mutatePod's patch applied) against the case's invariant. */
export function expectInvariant(invariant: Invariant, input: V1Pod, mutated: V1Pod, reason: string): void {
  if (invariant.skipped) {
    expect(reason).toMatch(invariant.skipped);
    return;
  }
  const spec = mutated.spec!;
  const before = input.spec!;
  expect(annotation(mutated, 'svc.io/injected')).toBe('true');
  // Every container but the application one is left exactly as it was, and so are the app's init containers.
  for (const original of before.containers)
    if (original.name !== invariant.into || invariant.strategy === 'ebpf')
      expect(
        spec.containers.find((c) => c.name === original.name),
        original.name,
      ).toEqual(original);
  for (const original of before.initContainers ?? [])
    expect(
      spec.initContainers?.find((c) => c.name === original.name),
      original.name,
    ).toEqual(original);

  if (invariant.strategy === 'ebpf') {
    expect(names(spec.containers)).toEqual([...names(before.containers), 'svc-ebpf']);
    expect(spec.shareProcessNamespace).toBe(true);
    expect(names(spec.initContainers)).toEqual(names(before.initContainers));
    expect(names(spec.volumes)).toEqual(names(before.volumes));
    const sidecar = spec.containers.at(-1)!;
    expect(sidecar.image).toBe(invariant.image);
    expect(sidecar.env!.find((e) => e.name === 'OTEL_RESOURCE_ATTRIBUTES')?.value).toContain(
      `k8s.container.name=${invariant.into}`,
    );
    expectEnv(sidecar, undefined, invariant.env ?? {});
  } else {
    expect(names(spec.containers)).toEqual(names(before.containers));
    expect(names(spec.initContainers)).toEqual(
      invariant.initContainers ?? [...names(before.initContainers), 'svc-agent-init'],
    );
    expect(names(spec.volumes)).toEqual(invariant.volumes ?? [...names(before.volumes), 'svc-agent']);
    expect(spec.volumes!.find((v) => v.name === 'svc-agent')?.emptyDir).toBeDefined();
    const init = spec.initContainers!.find((c) => c.name === 'svc-agent-init')!;
    expect(init).toMatchObject({
      image: invariant.image,
      command: ['cp', '-R', '/autoinstrumentation/.', '/svc-agent/'],
      volumeMounts: [{ name: 'svc-agent', mountPath: '/svc-agent' }],
    });
    const app = spec.containers.find((c) => c.name === invariant.into)!;
    const original = before.containers.find((c) => c.name === invariant.into);
    expect(app.volumeMounts).toEqual([
      ...(original?.volumeMounts ?? []),
      { name: 'svc-agent', mountPath: '/svc-agent', readOnly: true },
    ]);
    expect(app.env!.find((e) => e.name === 'SVC_POD_NAME')?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.name');
    expect(app.env!.find((e) => e.name === 'SVC_API_KEY')?.valueFrom?.secretKeyRef).toBeDefined();
    // The app's own env entries stay, in their order, before or among ours.
    expect(names(app.env).filter((n) => names(original?.env).includes(n))).toEqual(names(original?.env));
    expectEnv(app, original, invariant.env ?? {});
  }
  invariant.check?.(mutated, input);
}
