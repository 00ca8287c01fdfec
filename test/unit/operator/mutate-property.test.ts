/**
 * Properties of the mutation over random pods (issue 7): the patch always applies, mutating the result again changes
 * nothing, every field the user wrote survives unchanged (except the documented appends to the agent variables and
 * OTEL_RESOURCE_ATTRIBUTES, whose old value stays a prefix, or a suffix for PYTHONPATH), excluded pods never change,
 * and the input is never modified.
 */
import type { V1Container, V1EnvVar, V1Namespace, V1Pod, V1Volume } from '@kubernetes/client-node';
import fc from 'fast-check';
import jsonpatch, { type Operation } from 'fast-json-patch';
import { Pod } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import { mutatePod, type MutationInput } from '../../../operator/src/mutate/index.js';
import type { OperatorSettings, SvcInstrumentation } from '../../../operator/src/resource/types.js';

const SETTINGS: OperatorSettings = {
  version: '0.1.0',
  images: {
    nodejs: 'agents/node:1',
    java: 'agents/java:1',
    python: 'agents/python:1',
    ebpf: 'otel/ebpf-instrument:v0.1.0',
  },
  ebpfMemoryLimit: '512Mi',
};

/** Values that only ever grow, and whether the old value must stay at the front (prefix) or the end (suffix). */
const APPENDABLE: Readonly<Record<string, 'prefix' | 'suffix'>> = {
  NODE_OPTIONS: 'prefix',
  JAVA_TOOL_OPTIONS: 'prefix',
  OTEL_RESOURCE_ATTRIBUTES: 'prefix',
  PYTHONPATH: 'suffix',
};

/** Annotations the mutation owns and sets whatever a copied spec carried (svc.io/injected: "false" included). */
const OWN_ANNOTATIONS = new Set(['svc.io/injected', 'svc.io/detection', 'svc.io/warnings', 'svc.io/strategy-fallback']);

const ENV_NAMES = [
  'NODE_OPTIONS',
  'JAVA_TOOL_OPTIONS',
  'PYTHONPATH',
  'OTEL_RESOURCE_ATTRIBUTES',
  'OTEL_SERVICE_NAME',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'SVC_ENV',
  'SVC_INGEST_URL',
  'SVC_POD_NAME',
  'SVC_LANGUAGE',
  'NODE_ENV',
  'SPRING_PROFILES_ACTIVE',
  'PORT',
];
const ENV_VALUES = [
  '',
  ' ',
  '--max-old-space-size=512',
  '--require /svc-agent/node/register.cjs',
  '--require dd-trace/init',
  '-Xmx512m',
  '-javaagent:/svc-agent/java/opentelemetry-javaagent.jar',
  '/app/lib',
  '/svc-agent/python/bootstrap:/svc-agent/python',
  'service.version=1,team=a',
  'k8s.pod.name=x,',
  'node',
  'java',
  'cobol',
  'production',
];
const IMAGES = [
  'node:20-alpine',
  'python:3.12-slim',
  'eclipse-temurin:21-jre',
  'golang:1.22',
  'ruby:3.3',
  'registry.example.com/acme/app:1',
  'ghcr.io/acme/orders-django:1',
  'docker.io/istio/proxyv2:1.22.3',
  'cr.l5d.io/linkerd/proxy:stable',
];
const COMMANDS = [
  undefined,
  ['node', 'server.js'],
  ['java', '-jar', 'app.jar'],
  ['gunicorn', 'app.wsgi'],
  ['go', 'run', '.'],
  ['sh', '-c', 'exec npm start'],
];

const envVar: fc.Arbitrary<V1EnvVar> = fc
  .record({
    name: fc.constantFrom(...ENV_NAMES),
    source: fc.oneof(
      fc.constantFrom(...ENV_VALUES).map((value) => ({ value })),
      fc.string({ maxLength: 12 }).map((value) => ({ value })),
      fc.constant({ valueFrom: { configMapKeyRef: { name: 'app-config', key: 'k' } } }),
      fc.constant({}),
    ),
  })
  .map(({ name, source }) => ({ name, ...source }));

const container = (name: string): fc.Arbitrary<V1Container> =>
  fc
    .record(
      {
        image: fc.constantFrom(...IMAGES),
        command: fc.constantFrom(...COMMANDS),
        env: fc.array(envVar, { maxLength: 6 }),
        envFrom: fc.constant(null).map(() => [{ configMapRef: { name: 'shared-env' } }]),
        ports: fc
          .uniqueArray(fc.integer({ min: 1, max: 65535 }), { maxLength: 3 })
          .map((ports) => ports.map((containerPort) => ({ containerPort }))),
        volumeMounts: fc
          .uniqueArray(fc.constantFrom('config', 'tmp', 'data'), { maxLength: 2 })
          .map((names) => names.map((n) => ({ name: n, mountPath: `/mnt/${n}` }))),
      },
      { requiredKeys: ['image'] },
    )
    .map((fields) => ({ name, ...fields }));

const volume: (name: string) => V1Volume = (name) => ({ name, emptyDir: {} });

const stringMap = (keys: string[], values: string[]): fc.Arbitrary<Record<string, string>> =>
  fc.dictionary(fc.constantFrom(...keys), fc.constantFrom(...values), { maxKeys: 4 });

/** Mostly 0 or 1 of `rare`, so most generated pods reach the injection path and the properties test it. */
const sometimes = <T>(common: fc.Arbitrary<T>, rare: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ arbitrary: common, weight: 9 }, { arbitrary: rare, weight: 1 });
const maybe = <T>(value: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => sometimes(fc.constant(undefined), value);

const annotationsArbitrary: fc.Arbitrary<Record<string, string> | undefined> = fc
  .record({
    exclude: maybe(fc.constantFrom('true', 'false')),
    injected: maybe(fc.constantFrom('true', 'false')),
    warnings: maybe(fc.constant('stale')),
    container: maybe(fc.constantFrom('app', 'web', 'worker', 'istio-proxy', 'missing')),
    defaultContainer: maybe(fc.constantFrom('app', 'web', 'worker', 'istio-proxy', 'missing')),
    other: fc.option(stringMap(['prometheus.io/scrape', 'a~b/c', 'team/owner'], ['true', 'x/y~z']), { nil: undefined }),
  })
  .map((a) => {
    const entries: [string, string | undefined][] = [
      ['svc.io/exclude', a.exclude],
      ['svc.io/injected', a.injected],
      ['svc.io/warnings', a.warnings],
      ['svc.io/container', a.container],
      ['kubectl.kubernetes.io/default-container', a.defaultContainer],
      ...Object.entries(a.other ?? {}),
    ];
    const present = entries.filter((e): e is [string, string] => e[1] !== undefined);
    return present.length === 0 && a.other === undefined ? undefined : Object.fromEntries(present);
  });

const containerName = sometimes(
  fc.constantFrom('app', 'web', 'worker', 'istio-proxy', 'linkerd-proxy'),
  fc.constantFrom('svc-agent-init', 'svc-ebpf'),
);

const podArbitrary: fc.Arbitrary<V1Pod> = fc
  .record(
    {
      names: fc.uniqueArray(containerName, { minLength: 1, maxLength: 4 }),
      initNames: fc.uniqueArray(
        sometimes(fc.constantFrom('wait-for-db', 'istio-init'), fc.constant('svc-agent-init')),
        { maxLength: 2 },
      ),
      volumes: fc.option(
        fc.uniqueArray(sometimes(fc.constantFrom('config', 'tmp', 'data'), fc.constant('svc-agent')), { maxLength: 3 }),
        { nil: undefined },
      ),
      labels: fc.option(
        stringMap(
          ['app', 'svc.io/language', 'pod-template-hash', 'team'],
          ['checkout', 'python', 'java', 'cobol', '7d4b9c8f6d'],
        ),
        { nil: undefined },
      ),
      annotations: annotationsArbitrary,
      owner: fc.constantFrom(
        undefined,
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'checkout-7d4b9c8f6d', uid: 'u1', controller: true },
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'ledger', uid: 'u2', controller: true },
        { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'u3', controller: true },
      ),
      shareProcessNamespace: maybe(fc.boolean()),
      hostPID: maybe(fc.boolean()),
    },
    { requiredKeys: ['names', 'initNames', 'owner'] },
  )
  .chain((shape) =>
    fc.tuple(fc.constant(shape), fc.tuple(...shape.names.map(container))).map(([s, containers]) => {
      const pod: V1Pod = {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          generateName: 'checkout-7d4b9c8f6d-',
          ...(s.labels ? { labels: s.labels } : {}),
          ...(s.annotations ? { annotations: s.annotations } : {}),
          ...(s.owner ? { ownerReferences: [s.owner] } : {}),
        },
        spec: {
          containers,
          ...(s.initNames.length > 0
            ? {
                initContainers: s.initNames
                  .filter((n) => !(s.names as string[]).includes(n))
                  .map((name) => ({ name, image: 'busybox:1.36' })),
              }
            : {}),
          ...(s.volumes ? { volumes: s.volumes.map(volume) } : {}),
          ...(s.shareProcessNamespace === undefined ? {} : { shareProcessNamespace: s.shareProcessNamespace }),
          ...(s.hostPID === undefined ? {} : { hostPID: s.hostPID }),
        },
      };
      return pod;
    }),
  );

const namespaceArbitrary: fc.Arbitrary<V1Namespace> = fc
  .record({
    name: sometimes(fc.constant('shop'), fc.constant('svc-system')),
    exclude: maybe(fc.constantFrom('true', 'false')),
    enforce: fc.constantFrom(undefined, 'privileged', 'baseline', 'restricted', 'bogus'),
  })
  .map(({ name, exclude, enforce }) => ({
    metadata: {
      name,
      labels: {
        'kubernetes.io/metadata.name': name,
        ...(exclude ? { 'svc.io/exclude': exclude } : {}),
        ...(enforce ? { 'pod-security.kubernetes.io/enforce': enforce } : {}),
      },
    },
  }));

const instrumentationArbitrary: fc.Arbitrary<SvcInstrumentation | undefined> = fc.option(
  fc
    .record(
      {
        strategy: fc.constantFrom('sdk' as const, 'ebpf' as const),
        env: fc.constantFrom('production', 'staging eu', 'a,b=c'),
        languageHints: stringMap(['checkout', 'ledger', 'agent'], ['node', 'java', 'python', 'go', 'cobol']),
        minConfidence: fc.constantFrom(0.5, 0.6, 0.9),
        agents: fc.constant({ nodejs: { image: 'mirror/node:1' }, ebpf: { resources: { limits: { cpu: '1' } } } }),
      },
      { requiredKeys: [] },
    )
    .map((spec) => ({
      apiVersion: 'svc.io/v1alpha1',
      kind: 'SvcInstrumentation',
      metadata: { name: 'default', namespace: 'shop' },
      spec: { ingestUrl: 'https://ingest.example.com', apiKeySecretRef: { name: 'svc-zero-api-key' }, ...spec },
    })),
  { nil: undefined, freq: 10 },
);

const inputArbitrary: fc.Arbitrary<MutationInput> = fc
  .record({ pod: podArbitrary, namespace: namespaceArbitrary, instrumentation: instrumentationArbitrary })
  .map((input) => ({ ...input, settings: SETTINGS }));

function apply(pod: V1Pod, patch: ReturnType<typeof mutatePod>['patch']): V1Pod {
  return jsonpatch.applyPatch(structuredClone(pod), patch as Operation[], true, false).newDocument;
}

/**
 * Where `after` lost or rewrote something of `before`, or undefined. Objects keep every key; arrays keep every element
 * in order (new elements may appear anywhere: our env entries, SVC_POD_NAME before the app's OTEL_RESOURCE_ATTRIBUTES);
 * env entries of APPENDABLE names may only grow at the documented end.
 */
function lost(before: unknown, after: unknown, path: string): string | undefined {
  if (before === null || typeof before !== 'object')
    return before === after ? undefined : `${path}: ${JSON.stringify(before)} became ${JSON.stringify(after)}`;
  if (after === null || typeof after !== 'object')
    return `${path}: ${JSON.stringify(before)} became ${JSON.stringify(after)}`;
  if (Array.isArray(before)) {
    if (!Array.isArray(after)) return `${path}: array became ${JSON.stringify(after)}`;
    let at = 0;
    for (const [i, item] of before.entries()) {
      while (at < after.length && lost(item, after[at], `${path}[${i}]`) !== undefined) at++;
      if (at === after.length)
        return `${path}[${i}]: ${JSON.stringify(item)} missing or changed in ${JSON.stringify(after)}`;
      at++;
    }
    return undefined;
  }
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  const mode =
    path.endsWith(']') && path.includes('.env[') && typeof b.name === 'string' ? APPENDABLE[b.name] : undefined;
  for (const key of Object.keys(b)) {
    if (path === '.metadata.annotations' && OWN_ANNOTATIONS.has(key)) continue;
    if (mode && key === 'value' && typeof b.value === 'string' && typeof a.value === 'string') {
      const kept = mode === 'prefix' ? a.value.startsWith(b.value) : a.value.endsWith(b.value);
      if (!kept) return `${path}.value: ${JSON.stringify(b.value)} is not a ${mode} of ${JSON.stringify(a.value)}`;
      continue;
    }
    const problem = lost(b[key], a[key], `${path}.${key}`);
    if (problem) return problem;
  }
  return undefined;
}

/** Why an input is left alone, each reason the mutation documents; undefined when none applies. */
const exclusionOf = (input: MutationInput) =>
  input.namespace.metadata?.name === 'svc-system'
    ? 'svc-system'
    : input.namespace.metadata?.labels?.['svc.io/exclude'] === 'true'
      ? 'namespace excluded'
      : input.pod.metadata?.annotations?.['svc.io/exclude'] === 'true'
        ? 'pod excluded'
        : input.pod.metadata?.annotations?.['svc.io/injected'] === 'true'
          ? 'already injected'
          : input.instrumentation === undefined
            ? 'no oti'
            : undefined;
const excluded = (input: MutationInput): boolean => exclusionOf(input) !== undefined;

/**
 * How many generated cases reached each assertion a property makes only for some inputs: a property whose cases
 * mostly return early proves little, so each test requires every such assertion to be reached by a share of its runs.
 */
function reached<K extends string>(names: readonly K[]) {
  const counts = Object.fromEntries(names.map((name) => [name, 0])) as Record<K, number>;
  return {
    counts,
    hit: (name: K) => void counts[name]++,
    /** Every assertion reached by at least `share` of `runs` (e.g. 0.05: one case in twenty). */
    expectEach(runs: number, share: Readonly<Record<K, number>>) {
      for (const name of names)
        expect(counts[name], `cases that reached "${name}" of ${runs}`).toBeGreaterThanOrEqual(share[name] * runs);
    },
  };
}

const RUNS = 1000;

/** The agent variable of each language the SDK strategy injects. */
const AGENT_VARIABLE = { nodejs: 'NODE_OPTIONS', java: 'JAVA_TOOL_OPTIONS', python: 'PYTHONPATH' } as const;

/** Inputs that are not excluded, whose containers' env sets an agent variable (its last word, as the app wrote it). */
const appSetsAgentVariable: fc.Arbitrary<MutationInput> = fc
  .tuple(
    inputArbitrary.filter((input) => !excluded(input)),
    fc.constantFrom(...Object.values(AGENT_VARIABLE)),
    fc.constantFrom(...ENV_VALUES),
  )
  .map(([input, name, value]) => {
    const pod = structuredClone(input.pod);
    for (const c of pod.spec!.containers) c.env = [...(c.env ?? []), { name, value }];
    return { ...input, pod };
  });

describe('mutation properties', () => {
  it('the patch applies cleanly, keeps every user field, yields a valid pod, and is idempotent', () => {
    const cases = reached(['injected with the SDK', 'injected with eBPF', "extends an app's value", 'left alone']);
    fc.assert(
      fc.property(inputArbitrary, (input) => {
        const before = structuredClone(input);
        const { patch, decision } = mutatePod(input);
        expect(input).toEqual(before); // pure: the input is untouched

        const mutated = apply(input.pod, patch);
        expect(lost(input.pod, mutated, '')).toBeUndefined();
        for (const op of patch) {
          expect(
            op.op === 'add' || (op.op === 'replace' && /^\/spec\/containers\/\d+\/env\/\d+\/value$/.test(op.path)),
          ).toBe(true);
        }
        expect(decision.injected).toBe(patch.length > 0);
        if (decision.injected) {
          cases.hit(decision.strategy === 'ebpf' ? 'injected with eBPF' : 'injected with the SDK');
          if (patch.some((op) => op.op === 'replace')) cases.hit("extends an app's value");
          expect(mutated.metadata?.annotations?.['svc.io/injected']).toBe('true');
          expect(() => new Pod(mutated as ConstructorParameters<typeof Pod>[0]).validate()).not.toThrow();
        } else cases.hit('left alone');

        // Applying the patch and mutating again changes nothing.
        expect(mutatePod({ ...input, pod: mutated }).patch).toEqual([]);
      }),
      { numRuns: RUNS },
    );
    // The generator must reach the interesting paths (both strategies, extending an app's value), or the
    // properties above prove little.
    cases.expectEach(RUNS, {
      'injected with the SDK': 0.081,
      'injected with eBPF': 0.016,
      "extends an app's value": 0.005,
      'left alone': 0.05,
    });
  });

  it('excluded pods (svc-system, excluded namespace or pod, already injected, no oti) never change', () => {
    const runs = 200;
    const cases = reached(['svc-system', 'namespace excluded', 'pod excluded', 'already injected', 'no oti']);
    fc.assert(
      fc.property(inputArbitrary.filter(excluded), (input) => {
        const { patch, decision } = mutatePod(input);
        expect(patch).toEqual([]);
        expect(decision.injected).toBe(false);
        cases.hit(exclusionOf(input)!);
      }),
      { numRuns: runs },
    );
    // Each reason, not only the commonest, is what leaves these pods alone.
    cases.expectEach(runs, {
      'svc-system': 0.1,
      'namespace excluded': 0.04,
      'pod excluded': 0.04,
      'already injected': 0.04,
      'no oti': 0.04,
    });
  });

  it('an agent variable the app set is extended once, never duplicated', () => {
    const runs = 500;
    const cases = reached(['nodejs', 'java', 'python', 'set by the app']);
    fc.assert(
      fc.property(appSetsAgentVariable, (input) => {
        const { patch, decision } = mutatePod(input);
        if (!decision.injected || decision.strategy !== 'sdk') return;
        const mutated = apply(input.pod, patch);
        const app = mutated.spec?.containers.find((c) => c.name === decision.container);
        const value = (name: string) => [...(app?.env ?? [])].reverse().find((e) => e.name === name)?.value ?? '';
        const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;
        const lang = decision.lang as keyof typeof AGENT_VARIABLE;
        if (!(lang in AGENT_VARIABLE)) return;
        cases.hit(lang);
        const original = input.pod.spec?.containers.find((c) => c.name === decision.container);
        if (original?.env?.some((e) => e.name === AGENT_VARIABLE[lang] && typeof e.value === 'string'))
          cases.hit('set by the app');
        if (decision.lang === 'nodejs')
          expect(count(value('NODE_OPTIONS'), '--require /svc-agent/node/register.cjs')).toBeLessThanOrEqual(1);
        if (decision.lang === 'java')
          expect(
            count(value('JAVA_TOOL_OPTIONS'), '-javaagent:/svc-agent/java/opentelemetry-javaagent.jar'),
          ).toBeLessThanOrEqual(1);
        if (decision.lang === 'python')
          expect(count(value('PYTHONPATH'), '/svc-agent/python/bootstrap')).toBeLessThanOrEqual(1);
      }),
      { numRuns: runs },
    );
    cases.expectEach(runs, { nodejs: 0.02, java: 0.02, python: 0.02, 'set by the app': 0.05 });
  });
});
