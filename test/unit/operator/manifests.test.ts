/**
 * The installation manifests (operator/src/manifests/), the committed render (operator/deploy/manifests/svc-zero.yaml)
 * and the Helm chart (operator/deploy/helm/svc-zero/): Kubernetes-schema valid, the webhook exactly as SPEC 2.8 / 8
 * say, least-privilege RBAC, a Pod Security `restricted` operator, a CRD whose own schema accepts a real `oti` and
 * rejects bad ones, and a chart that renders to the same objects as the TypeScript renderer.
 *
 * No `helm` binary can be installed here or on CI, so the chart is rendered by a small evaluator of exactly the Go
 * template subset the chart uses (documented in the chart's README); anything outside the subset fails the test.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { KubernetesObject, V1PodSpec } from '@kubernetes/client-node';
import Ajv from 'ajv';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1';
import { MutatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { ClusterRole, ClusterRoleBinding, Role, RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import { Namespace, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { describe, expect, it } from 'vitest';
import {
  CHART_DIR,
  deepMerge,
  parseTemplate,
  renderChart,
  renderNodes,
  type TemplateNode,
} from '../../support/operator/helm-template.js';
import { restrictedViolations } from '../../support/operator/pod-security.js';
import { pruned, validateCustomResource } from '../../support/operator/crd-schema.js';
import { parse as parseYaml, parseAllDocuments } from 'yaml';
import {
  applySets,
  DEFAULT_VALUES,
  manifestsToYaml,
  readOperatorEnv,
  renderManifests,
  ValuesError,
  ZERO_VERSION,
  type ZeroValues,
} from '../../../operator/src/manifests/index.js';
import {
  API_KEY_SECRET,
  API_KEY_SECRET_KEY,
  CRD_API_VERSION,
  CRD_KIND,
  EXCLUDE_LABEL,
  OPERATOR_NAME,
  SYSTEM_NAMESPACE,
  WEBHOOK_CONFIGURATION,
  WEBHOOK_PATH,
  WEBHOOK_SERVICE,
  WEBHOOK_TLS_SECRET,
} from '../../../operator/src/markers.js';

const ROOT = resolve(__dirname, '../../..');
const COMMITTED_YAML = join(ROOT, 'operator/deploy/manifests/svc-zero.yaml');
const REGENERATE =
  'regenerate with: npx tsx operator/src/cli.ts install --render > operator/deploy/manifests/svc-zero.yaml';

type Obj = KubernetesObject & Record<string, any>;
const byKind = (objects: Obj[], kind: string): Obj => {
  const found = objects.filter((object) => object.kind === kind);
  expect(found, kind).toHaveLength(1);
  return found[0]!;
};

// ---------------------------------------------------------------------------------------------------------------
// Kubernetes schemas (kubernetes-models): validate() throws with the offending path on an invalid object.
// ---------------------------------------------------------------------------------------------------------------
const MODELS: Record<string, new (data: any) => { validate(): void }> = {
  Namespace,
  CustomResourceDefinition,
  ServiceAccount,
  ClusterRole,
  ClusterRoleBinding,
  Role,
  RoleBinding,
  Secret,
  Service,
  Deployment,
  MutatingWebhookConfiguration,
};

function validateAll(objects: Obj[]): void {
  for (const object of objects) {
    const Model = MODELS[object.kind ?? ''];
    expect(Model, `a schema for ${object.kind}`).toBeDefined();
    expect(
      () => new Model!(structuredClone(object)).validate(),
      `${object.kind} ${object.metadata?.name}`,
    ).not.toThrow();
  }
}

function chartObjects(overrides: Record<string, unknown> = {}): Obj[] {
  const objects: Obj[] = [];
  for (const [file, text] of renderChart(overrides)) {
    if (!file.endsWith('.yaml')) continue;
    for (const document of parseAllDocuments(text)) {
      expect(document.errors, `${file}: ${document.errors.join('; ')}`).toEqual([]);
      const object = document.toJS() as Obj | null;
      if (object) objects.push(object);
    }
  }
  return objects;
}

/** Objects keyed by kind/namespace/name, so two renders compare regardless of file and document order. */
const keyed = (objects: Obj[]) =>
  Object.fromEntries(
    objects.map((object) => [`${object.kind}/${object.metadata?.namespace ?? ''}/${object.metadata?.name}`, object]),
  );

// ---------------------------------------------------------------------------------------------------------------

describe('svc-zero manifests: rendered by operator/src/manifests', () => {
  const objects = renderManifests() as Obj[];

  it('holds every object an installation needs, in apply order (namespace and CRD first, webhook last)', () => {
    expect(objects.map((object) => `${object.kind}/${object.metadata?.name}`)).toEqual([
      `Namespace/${SYSTEM_NAMESPACE}`,
      'CustomResourceDefinition/svcinstrumentations.svc.io',
      `ServiceAccount/${OPERATOR_NAME}`,
      `ClusterRole/${OPERATOR_NAME}`,
      `ClusterRoleBinding/${OPERATOR_NAME}`,
      `Role/${OPERATOR_NAME}`,
      `RoleBinding/${OPERATOR_NAME}`,
      `Secret/${WEBHOOK_TLS_SECRET}`,
      `Service/${WEBHOOK_SERVICE}`,
      `Deployment/${OPERATOR_NAME}`,
      `MutatingWebhookConfiguration/${WEBHOOK_CONFIGURATION}`,
    ]);
    for (const object of objects.filter(
      (o) =>
        ![
          'Namespace',
          'CustomResourceDefinition',
          'ClusterRole',
          'ClusterRoleBinding',
          'MutatingWebhookConfiguration',
        ].includes(o.kind!),
    )) {
      expect(object.metadata?.namespace, `${object.kind} lives in svc-system`).toBe(SYSTEM_NAMESPACE);
    }
  });

  it('every object validates against the Kubernetes schemas (kubernetes-models)', () => {
    validateAll(objects);
  });

  it('the schema check is real: an invalid Deployment and webhook configuration are rejected', () => {
    const deployment = structuredClone(byKind(objects, 'Deployment'));
    deployment.spec.replicas = 'one';
    expect(() => new Deployment(deployment as any).validate()).toThrow(/replicas/);
    const webhook = structuredClone(byKind(objects, 'MutatingWebhookConfiguration'));
    delete webhook.webhooks[0].sideEffects;
    expect(() => new MutatingWebhookConfiguration(webhook as any).validate()).toThrow(/sideEffects/);
  });

  it('the namespace svc-system excludes itself and enforces Pod Security restricted', () => {
    expect(byKind(objects, 'Namespace').metadata?.labels).toMatchObject({
      [EXCLUDE_LABEL]: 'true',
      'pod-security.kubernetes.io/enforce': 'restricted',
    });
  });

  it('the webhook configuration has exactly the SPEC values (pods CREATE, Ignore, 10 s, no side effects, exclusions)', () => {
    const configuration = byKind(objects, 'MutatingWebhookConfiguration');
    expect(configuration.metadata?.name).toBe('svc-zero');
    expect(configuration.webhooks).toEqual([
      {
        name: 'pods.svc-zero.svc.io',
        admissionReviewVersions: ['v1'],
        clientConfig: { service: { name: 'svc-zero-webhook', namespace: 'svc-system', path: WEBHOOK_PATH, port: 443 } },
        rules: [
          { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'], scope: 'Namespaced' },
        ],
        failurePolicy: 'Ignore',
        sideEffects: 'None',
        timeoutSeconds: 10,
        reinvocationPolicy: 'IfNeeded',
        matchPolicy: 'Equivalent',
        namespaceSelector: {
          matchExpressions: [
            { key: 'svc.io/exclude', operator: 'NotIn', values: ['true'] },
            { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['svc-system', 'kube-system'] },
          ],
        },
      },
    ]);
    // The Service it calls exists, listens on 443 and reaches the operator's named webhook port.
    const service = byKind(objects, 'Service');
    expect(service.spec.ports).toEqual([{ name: 'https', port: 443, targetPort: 'webhook', protocol: 'TCP' }]);
    const pod = byKind(objects, 'Deployment').spec.template;
    for (const [key, value] of Object.entries(service.spec.selector as Record<string, string>))
      expect(pod.metadata.labels[key]).toBe(value);
    expect(pod.spec.containers[0].ports).toEqual([{ name: 'webhook', containerPort: 9443, protocol: 'TCP' }]);
  });

  it('the operator has least privilege: exactly these rules, cluster-wide and in svc-system', () => {
    expect(byKind(objects, 'ClusterRole').rules).toEqual([
      { apiGroups: [''], resources: ['namespaces', 'pods'], verbs: ['get', 'list', 'watch'] },
      {
        apiGroups: ['apps'],
        resources: ['deployments', 'statefulsets', 'daemonsets', 'replicasets'],
        verbs: ['get', 'list', 'watch'],
      },
      { apiGroups: ['svc.io'], resources: ['svcinstrumentations'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: ['svc.io'], resources: ['svcinstrumentations/status'], verbs: ['patch'] },
      {
        apiGroups: ['admissionregistration.k8s.io'],
        resources: ['mutatingwebhookconfigurations'],
        resourceNames: ['svc-zero'],
        verbs: ['get', 'patch'],
      },
    ]);
    // No create anywhere: the TLS Secret is part of the installation, so the Role names it and needs no create.
    expect(byKind(objects, 'Role').rules).toEqual([
      {
        apiGroups: [''],
        resources: ['secrets'],
        resourceNames: ['svc-zero-webhook-tls'],
        verbs: ['get', 'update', 'patch'],
      },
    ]);
    expect(byKind(objects, 'Secret')).toMatchObject({
      type: 'Opaque',
      metadata: { name: WEBHOOK_TLS_SECRET, namespace: SYSTEM_NAMESPACE },
    });
    expect(byKind(objects, 'Secret').data).toBeUndefined();
    for (const kind of ['ClusterRoleBinding', 'RoleBinding']) {
      const binding = byKind(objects, kind);
      expect(binding.roleRef).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: kind.replace('Binding', ''),
        name: OPERATOR_NAME,
      });
      expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: OPERATOR_NAME, namespace: SYSTEM_NAMESPACE }]);
    }
    expect(byKind(objects, 'Deployment').spec.template.spec.serviceAccountName).toBe(OPERATOR_NAME);
  });

  it('the operator Deployment: 1 replica, HTTPS probes, resources, and it passes Pod Security restricted', () => {
    const deployment = byKind(objects, 'Deployment');
    expect(deployment.spec.replicas).toBe(1);
    const pod = deployment.spec.template.spec as V1PodSpec;
    const container = pod.containers[0]!;
    expect(container.image).toBe(`ghcr.io/svc/svc-zero-operator:${ZERO_VERSION}`);
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'webhook', scheme: 'HTTPS' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'webhook', scheme: 'HTTPS' });
    expect(container.resources).toEqual({ requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } });
    expect(restrictedViolations(pod)).toEqual([]);
  });

  it('the Pod Security check is real: each weakening of the operator pod is reported', () => {
    const pod = (): V1PodSpec => structuredClone(byKind(objects, 'Deployment').spec.template.spec);
    const weakened: [string, (spec: V1PodSpec) => void][] = [
      ['allowPrivilegeEscalation', (spec) => (spec.containers[0]!.securityContext!.allowPrivilegeEscalation = true)],
      [
        'runAsNonRoot',
        (spec) => {
          delete spec.securityContext!.runAsNonRoot;
          delete spec.containers[0]!.securityContext!.runAsNonRoot;
        },
      ],
      ['seccompProfile', (spec) => delete spec.securityContext!.seccompProfile],
      ['drop ALL', (spec) => (spec.containers[0]!.securityContext!.capabilities = {})],
      ['adds NET_ADMIN', (spec) => (spec.containers[0]!.securityContext!.capabilities!.add = ['NET_ADMIN'])],
      ['hostPath', (spec) => (spec.volumes = [{ name: 'host', hostPath: { path: '/' } }])],
    ];
    for (const [what, weaken] of weakened) {
      const spec = pod();
      weaken(spec);
      expect(restrictedViolations(spec), what).not.toEqual([]);
    }
  });

  it('values reach the objects: ebpf.resources.limits.memory, images, webhook timeout and port (and the operator reads them back)', () => {
    const values = applySets(DEFAULT_VALUES, [
      'ebpf.resources.limits.memory=1Gi',
      'ebpf.image=example.com/obi:1',
      'agents.java.image=example.com/java:2',
      'webhook.timeoutSeconds=5',
      'webhook.port=8443',
      'webhook.excludedNamespaces={kube-system,monitoring}',
      'image.tag=9.9.9',
      'namespace.create=false',
    ]);
    const custom = renderManifests(values) as Obj[];
    validateAll(custom);
    expect(custom.some((object) => object.kind === 'Namespace')).toBe(false);
    const container = byKind(custom, 'Deployment').spec.template.spec.containers[0];
    expect(container.image).toBe('ghcr.io/svc/svc-zero-operator:9.9.9');
    expect(container.ports[0].containerPort).toBe(8443);
    const env = Object.fromEntries(
      (container.env as { name: string; value?: string }[])
        .filter((e) => e.value !== undefined)
        .map((e) => [e.name, e.value]),
    );
    const read = readOperatorEnv(env, DEFAULT_VALUES);
    expect(read).toMatchObject({
      webhookPort: 8443,
      ebpfMemoryLimit: '1Gi',
      images: { ebpf: 'example.com/obi:1', java: 'example.com/java:2' },
    });
    const webhook = byKind(custom, 'MutatingWebhookConfiguration').webhooks[0];
    expect(webhook.timeoutSeconds).toBe(5);
    expect(webhook.namespaceSelector.matchExpressions[1].values).toEqual(['svc-system', 'kube-system', 'monitoring']);
  });

  it('bad values are refused with a message naming the value, before anything is rendered', () => {
    const refused: [string, RegExp][] = [
      ['webhook.timeoutSeconds=31', /webhook.timeoutSeconds must be an integer from 1 to 30/],
      ['webhook.timeoutSeconds=ten', /webhook.timeoutSeconds must be a number/],
      ['webhook.port=443', /webhook.port must be an integer from 1024 to 65535 \(the operator runs as non-root\)/],
      ['ebpf.resources.limits.memory=lots', /ebpf.resources.limits.memory must be a Kubernetes quantity/],
      ['ebpf.resources.limits.cpu=1', /unknown value "ebpf.resources.limits.cpu"/],
      ['webhook=1', /unknown value "webhook"/],
      ['namespace.create=yes', /namespace.create must be true or false/],
      ['image.pullPolicy=Sometimes', /image.pullPolicy must be Always, IfNotPresent or Never/],
      ['novalue', /--set expects key=value/],
    ];
    for (const [assignment, message] of refused) {
      expect(() => applySets(DEFAULT_VALUES, [assignment]), assignment).toThrow(ValuesError);
      expect(() => applySets(DEFAULT_VALUES, [assignment]), assignment).toThrow(message);
    }
  });
});

describe('the SvcInstrumentation CRD', () => {
  const crd = byKind(renderManifests() as Obj[], 'CustomResourceDefinition');
  const version = crd.spec.versions[0];

  it('is namespaced, short name oti, v1alpha1 served and stored, with a status subresource and kubectl columns', () => {
    expect(crd.metadata?.name).toBe('svcinstrumentations.svc.io');
    expect(crd.spec).toMatchObject({
      group: 'svc.io',
      scope: 'Namespaced',
      names: { kind: CRD_KIND, plural: 'svcinstrumentations', shortNames: ['oti'] },
    });
    expect(crd.spec.versions).toHaveLength(1);
    expect(version).toMatchObject({ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} } });
    expect(version.additionalPrinterColumns.map((column: { name: string }) => column.name)).toEqual([
      'Strategy',
      'Matching',
      'Injected',
      'Pending',
      'Outdated',
      'Failed',
      'Ready',
      'Ingest',
      'Age',
    ]);
  });

  const validate = validateCustomResource;
  const sample = {
    apiVersion: CRD_API_VERSION,
    kind: CRD_KIND,
    metadata: { name: 'default', namespace: 'shop' },
    spec: {
      ingestUrl: 'https://ingest.example.com',
      apiKeySecretRef: { name: API_KEY_SECRET, key: API_KEY_SECRET_KEY },
      strategy: 'ebpf',
      env: 'production',
      languageHints: { checkout: 'java', web: 'nodejs' },
      agents: {
        java: { image: 'example.com/java:1', resources: { limits: { memory: '256Mi', cpu: 1 } } },
        ebpf: { resources: { limits: { memory: '1Gi' } } },
      },
      minConfidence: 0.7,
    },
    status: {
      observedGeneration: 3,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'Reconciled',
          message: '2 workloads',
          lastTransitionTime: '2025-01-01T00:00:00Z',
          observedGeneration: 3,
        },
      ],
      counts: { matching: 4, injected: 2, pending: 1, outdated: 1, failed: 0 },
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
          kind: 'Deployment',
          name: 'web',
          lang: 'nodejs',
          framework: 'express',
          strategy: 'sdk',
          confidence: 0.9,
          source: 'command',
          state: 'pending',
          reason: 'no running pods observed',
        },
        {
          kind: 'StatefulSet',
          name: 'cache',
          lang: 'unknown',
          framework: 'unknown',
          strategy: 'sdk',
          confidence: 0,
          source: 'none',
          state: 'skipped',
          reason: 'no language detected',
        },
      ],
    },
  };

  it('its own schema accepts a full oti (spec and status as the CLI and the operator write them), pruning nothing', () => {
    expect(validate(sample), JSON.stringify(validate.errors)).toBe(true);
    expect(pruned(sample)).toEqual([]);
  });

  it('its own schema rejects what the API server must reject', () => {
    const broken: [string, (oti: any) => void][] = [
      ['ingestUrl not a URL', (oti) => (oti.spec.ingestUrl = 'ingest.example.com')],
      ['no apiKeySecretRef', (oti) => delete oti.spec.apiKeySecretRef],
      ['a literal key instead of a reference', (oti) => (oti.spec.apiKeySecretRef = 'sk-123')],
      ['unknown strategy', (oti) => (oti.spec.strategy = 'magic')],
      ['confidence above 1', (oti) => (oti.status.workloads[0].confidence = 1.5)],
      ['minConfidence below 0', (oti) => (oti.spec.minConfidence = -0.1)],
      ['unknown workload state', (oti) => (oti.status.workloads[0].state = 'happy')],
      ['negative count', (oti) => (oti.status.counts.failed = -1)],
      ['bad quantity', (oti) => (oti.spec.agents.java.resources.limits.memory = 'lots')],
      ['hint not a string', (oti) => (oti.spec.languageHints.checkout = 3)],
    ];
    for (const [what, breakIt] of broken) {
      const oti = structuredClone(sample);
      breakIt(oti);
      expect(validate(oti), what).toBe(false);
    }
    // A field the schema does not declare is not rejected but dropped on write.
    const extra: any = structuredClone(sample);
    extra.status.counts.unknown = 1;
    extra.status.workloads[0].note = 'x';
    expect(pruned(extra)).toEqual(['.status.counts.unknown', '.status.workloads[0].note']);
    // Without ingestUrl it is valid: the operator's install value ingestUrl applies.
    const withoutUrl: any = structuredClone(sample);
    delete withoutUrl.spec.ingestUrl;
    expect(validate(withoutUrl)).toBe(true);
  });

  it('is a structural schema: every property declares a type (or is int-or-string)', () => {
    const untyped: string[] = [];
    const walk = (schema: any, path: string) => {
      if (schema.type === undefined && !schema['x-kubernetes-int-or-string']) untyped.push(path);
      for (const [key, child] of Object.entries(schema.properties ?? {})) walk(child, `${path}.${key}`);
      if (schema.items) walk(schema.items, `${path}[]`);
      if (schema.additionalProperties) walk(schema.additionalProperties, `${path}{}`);
    };
    walk(version.schema.openAPIV3Schema, '');
    expect(untyped).toEqual([]);
  });
});

describe('operator/deploy: the committed manifest and the Helm chart', () => {
  it(`operator/deploy/manifests/svc-zero.yaml is the current render (${REGENERATE})`, () => {
    const committed = readFileSync(COMMITTED_YAML, 'utf8');
    expect(committed === manifestsToYaml(renderManifests()), REGENERATE).toBe(true);
  });

  it('the committed manifest parses to exactly the rendered objects, each schema-valid', () => {
    const documents = parseAllDocuments(readFileSync(COMMITTED_YAML, 'utf8')).map((document) => document.toJS() as Obj);
    expect(documents).toEqual(renderManifests());
    validateAll(documents);
  });

  it('values.yaml holds the same defaults as the renderer, and Chart.yaml the operator version', () => {
    expect(parseYaml(readFileSync(join(CHART_DIR, 'values.yaml'), 'utf8'))).toEqual(DEFAULT_VALUES);
    const chart = parseYaml(readFileSync(join(CHART_DIR, 'Chart.yaml'), 'utf8'));
    expect(chart).toMatchObject({
      apiVersion: 'v2',
      name: 'svc-zero',
      version: ZERO_VERSION,
      appVersion: ZERO_VERSION,
    });
  });

  it('values.schema.json (checked by Helm before rendering) accepts the defaults and refuses what `--set` refuses', () => {
    const validate = new Ajv({ allErrors: true }).compile(
      JSON.parse(readFileSync(join(CHART_DIR, 'values.schema.json'), 'utf8')),
    );
    expect(validate(DEFAULT_VALUES), JSON.stringify(validate.errors)).toBe(true);
    expect(validate(deepMerge(DEFAULT_VALUES, { global: { imageRegistry: 'x' } }))).toBe(true);
    const refused: Record<string, unknown>[] = [
      { webhook: { timeoutSeconds: 31 } },
      { webhook: { timeoutSeconds: '10' } },
      { webhook: { port: 443 } },
      { webhook: { excludedNamespaces: ['Kube System'] } },
      { ebpf: { resources: { limits: { memory: 'lots' } } } },
      { ebpf: { resources: { limits: { cpu: '1' } } } },
      { image: { pullPolicy: 'Sometimes' } },
      { logLevel: 'verbose' },
      { namespace: { create: 'yes' } },
      { agents: { java: { image: '' } } },
      { webhok: { port: 9443 } },
    ];
    for (const override of refused)
      expect(validate(deepMerge(DEFAULT_VALUES, override)), JSON.stringify(override)).toBe(false);
  });

  it('the chart renders (default values) to the same objects as the renderer, each schema-valid', () => {
    const rendered = chartObjects();
    validateAll(rendered);
    expect(keyed(rendered)).toEqual(keyed(renderManifests() as Obj[]));
  });

  it('the chart follows values the same way: every value changed at once renders like `svc-zero install --set`', () => {
    const overrides: Record<string, unknown> = {
      namespace: { create: false },
      image: { repository: 'registry.example.com/zero', tag: '2.0.0', pullPolicy: 'Always' },
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '1Gi' } },
      logLevel: 'debug',
      ingestUrl: 'https://ingest.example.com',
      webhook: { port: 8443, timeoutSeconds: 3, excludedNamespaces: ['kube-system', 'monitoring'] },
      agents: {
        nodejs: { image: 'example.com/n:1' },
        java: { image: 'example.com/j:1' },
        python: { image: 'example.com/p:1' },
      },
      ebpf: { image: 'example.com/obi:1', resources: { limits: { memory: '2Gi' } } },
    };
    const values = deepMerge(DEFAULT_VALUES, overrides) as ZeroValues;
    const rendered = chartObjects(overrides);
    validateAll(rendered);
    expect(keyed(rendered)).toEqual(keyed(renderManifests(values) as Obj[]));
    // With no excluded namespaces besides svc-system, the range renders nothing and the list stays valid.
    const bare = chartObjects({ webhook: { excludedNamespaces: [] } });
    expect(
      byKind(bare, 'MutatingWebhookConfiguration').webhooks[0].namespaceSelector.matchExpressions[1].values,
    ).toEqual(['svc-system']);
  });

  it('NOTES.txt renders and tells how to check the rollout and instrument a namespace', () => {
    const notes = renderChart().get('NOTES.txt') ?? '';
    expect(notes).toContain(`svc-zero ${ZERO_VERSION} is installed`);
    expect(notes).toContain('kubectl -n svc-system rollout status deployment/svc-zero-operator');
    expect(notes).toContain('svc-zero instrument --namespace=<namespace> --api-key=<API_KEY>');
    expect(notes).toContain('eBPF sidecar memory limit: 512Mi');
  });

  it('the template evaluator refuses what it does not implement (so the chart cannot drift past it unnoticed)', () => {
    const defines = new Map<string, TemplateNode[]>();
    const scope = { root: {}, dot: { Values: { a: 1 } }, defines };
    expect(() => parseTemplate('{{ with .Values }}x{{ end }}', defines)).toThrow(/subset/);
    expect(() => parseTemplate('{{ $x := 1 }}', defines)).toThrow(/subset/);
    expect(() => renderNodes(parseTemplate('{{ .Values.b }}', defines), scope)).toThrow(/missing value/);
    expect(() => renderNodes(parseTemplate('{{ .Values.a | upper }}', defines), scope)).toThrow(/unknown function/);
    expect(
      renderNodes(parseTemplate('a:\n  {{- if .Values.a }} {{ .Values.a | quote }}{{ end }}', defines), scope),
    ).toBe('a: "1"');
  });
});
