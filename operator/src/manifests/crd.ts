import type { KubernetesObject, V1CustomResourceDefinitionSpec } from '@kubernetes/client-node';
import { CRD_GROUP, CRD_KIND, CRD_PLURAL, CRD_SHORT_NAME, CRD_VERSION } from '../markers.js';
import { AGENT_LANGUAGES, LANGUAGES, STRATEGIES, WORKLOAD_KINDS, WORKLOAD_STATES } from '../resource/types.js';
import { labels } from './labels.js';

/**
 * An OpenAPI v3 schema as the API server reads it. Not client-node's JsonSchema: that model spells `enum` as
 * `_enum` and `x-kubernetes-*` in camelCase, and its serializer drops the wire names (so these objects never go
 * through it; see cli/rest.ts).
 */
export interface JsonSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  format?: string;
  pattern?: string;
  enum?: string[];
  default?: string | number | boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  required?: string[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  'x-kubernetes-int-or-string'?: true;
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: string[];
}

/** A CustomResourceDefinition in wire form: client-node's spec type, except for the schema (see JsonSchema). */
export interface CustomResourceDefinition extends KubernetesObject {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
  spec: Omit<V1CustomResourceDefinitionSpec, 'versions'> & {
    versions: (Omit<V1CustomResourceDefinitionSpec['versions'][number], 'schema'> & {
      schema: { openAPIV3Schema: JsonSchema };
    })[];
  };
}

const string = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: 'string', description, ...extra });
const integer = (description: string): JsonSchema => ({ type: 'integer', format: 'int64', minimum: 0, description });

/** A resource.Quantity, spelled the way controller-gen writes it for core types (integer or string, one pattern). */
const quantity: JsonSchema = {
  anyOf: [{ type: 'integer' }, { type: 'string' }],
  pattern:
    '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
  'x-kubernetes-int-or-string': true,
};

const resources: JsonSchema = {
  type: 'object',
  description: 'Compute resources of the container (requests and limits), as in a pod spec.',
  properties: {
    requests: { type: 'object', additionalProperties: quantity },
    limits: { type: 'object', additionalProperties: quantity },
  },
};

const agent = (what: string): JsonSchema => ({
  type: 'object',
  description: `${what}. Unset fields fall back to the operator's defaults (Helm values).`,
  properties: { image: string('Image reference.', { minLength: 1 }), resources },
});

const spec: JsonSchema = {
  type: 'object',
  description: 'How workloads in this namespace are instrumented.',
  required: ['apiKeySecretRef'],
  properties: {
    ingestUrl: string(
      "Base URL of the ingest endpoints; agents send OTLP to <ingestUrl>/otlp/v1/traces|metrics|logs. Default: the operator's install value ingestUrl.",
      {
        pattern: '^https?://[^\\s]+$',
      },
    ),
    apiKeySecretRef: {
      type: 'object',
      description: 'Secret in this namespace holding the ingest key (never a literal in the spec).',
      required: ['name'],
      properties: {
        name: string('Secret name.', { minLength: 1 }),
        key: string('Key in the Secret; defaults to api-key.', { minLength: 1 }),
      },
    },
    strategy: string(
      'sdk: an OpenTelemetry agent inside the app. ebpf: the svc-ebpf sidecar (needs a privileged namespace).',
      {
        enum: [...STRATEGIES],
        default: 'sdk',
      },
    ),
    env: string('deployment.environment of the telemetry; defaults to the namespace name.'),
    languageHints: {
      type: 'object',
      description:
        'Workload (Deployment, StatefulSet, DaemonSet) name to language, e.g. checkout: java. Wins over detection.',
      additionalProperties: { type: 'string', minLength: 1 },
    },
    agents: {
      type: 'object',
      description: 'Per-language init images and resources, and the eBPF sidecar.',
      properties: {
        ...Object.fromEntries(AGENT_LANGUAGES.map((lang) => [lang, agent(`The ${lang} agent's init container`)])),
        ebpf: agent('The svc-ebpf sidecar'),
      },
    },
    minConfidence: {
      type: 'number',
      minimum: 0,
      maximum: 1,
      description: 'Detections below this confidence (0 to 1) are not injected; defaults to 0.6.',
    },
  },
};

const status: JsonSchema = {
  type: 'object',
  description: 'Written by svc-zero-operator.',
  properties: {
    observedGeneration: integer('The spec generation this status describes.'),
    conditions: {
      type: 'array',
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['type'],
      items: {
        type: 'object',
        required: ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
        properties: {
          type: string('Condition type, e.g. Ready.', { minLength: 1 }),
          status: string('True, False or Unknown.', { enum: ['True', 'False', 'Unknown'] }),
          reason: string('CamelCase reason.'),
          message: string('Human-readable detail.'),
          lastTransitionTime: string('When status last changed.', { format: 'date-time' }),
          observedGeneration: integer('The spec generation the condition was set for.'),
        },
      },
    },
    counts: {
      type: 'object',
      description: "The namespace's workloads by state (see workloads[].state).",
      properties: {
        matching: integer('Workloads the instrumentation applies to (all but skipped).'),
        injected: integer('Workloads whose running pods all have the current agent.'),
        pending: integer('Workloads that would be injected but have no running pods, so no injection was observed.'),
        outdated: integer('Workloads with pods without the agent or with another version or config: restart them.'),
        failed: integer('Workloads with a pod whose svc-agent-init or svc-ebpf container failed.'),
      },
    },
    workloads: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'name', 'lang', 'framework', 'strategy', 'confidence', 'source', 'state'],
        properties: {
          kind: string('Workload kind.', { enum: [...WORKLOAD_KINDS] }),
          name: string('Workload name.'),
          lang: string('Detected language.', { enum: [...LANGUAGES, 'unknown'] }),
          framework: string('Detected framework, or unknown.'),
          strategy: string('Strategy applied (after any fallback).', { enum: [...STRATEGIES] }),
          confidence: { type: 'number', minimum: 0, maximum: 1, description: 'Detection confidence, 0 to 1.' },
          source: string('The signal that decided: env, label, hint, command, image, environment or none.'),
          state: string('injected, pending (no running pods observed), outdated, failed or skipped.', {
            enum: [...WORKLOAD_STATES],
          }),
          reason: string('Why the workload is pending, skipped, outdated or failed.'),
        },
      },
    },
  },
};

/** The SvcInstrumentation CRD (short name `oti`): namespaced, v1alpha1, status subresource, kubectl columns. */
export function customResourceDefinition(): CustomResourceDefinition {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${CRD_PLURAL}.${CRD_GROUP}`,
      labels: labels('crd'),
      // `helm uninstall` would delete the CRD and with it every `oti` in the cluster; keep it, as for data.
      annotations: { 'helm.sh/resource-policy': 'keep' },
    },
    spec: {
      group: CRD_GROUP,
      scope: 'Namespaced',
      names: {
        kind: CRD_KIND,
        listKind: `${CRD_KIND}List`,
        plural: CRD_PLURAL,
        singular: CRD_KIND.toLowerCase(),
        shortNames: [CRD_SHORT_NAME],
        categories: ['svc-zero'],
      },
      versions: [
        {
          name: CRD_VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            { name: 'Strategy', type: 'string', jsonPath: '.spec.strategy' },
            { name: 'Matching', type: 'integer', jsonPath: '.status.counts.matching' },
            { name: 'Injected', type: 'integer', jsonPath: '.status.counts.injected' },
            { name: 'Pending', type: 'integer', jsonPath: '.status.counts.pending' },
            { name: 'Outdated', type: 'integer', jsonPath: '.status.counts.outdated' },
            { name: 'Failed', type: 'integer', jsonPath: '.status.counts.failed' },
            { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
            { name: 'Ingest', type: 'string', jsonPath: '.spec.ingestUrl', priority: 1 },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description:
                'Per-namespace auto-instrumentation settings for svc-zero (SPEC 2.8). One per namespace, named default by the CLI.',
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec,
                status,
              },
            },
          },
        },
      ],
    },
  };
}
