import type { V1EnvVar } from '@kubernetes/client-node';
import type { Workload } from '../detect/index.js';
import { API_KEY_ENV, ENVIRONMENT_ENV, INGEST_URL_ENV, POD_NAME_ENV } from '../markers.js';

export const SERVICE_NAME_ENV = 'OTEL_SERVICE_NAME';
export const RESOURCE_ATTRIBUTES_ENV = 'OTEL_RESOURCE_ATTRIBUTES';
export const OTLP_ENDPOINT_ENV = 'OTEL_EXPORTER_OTLP_ENDPOINT';
export const OTLP_HEADERS_ENV = 'OTEL_EXPORTER_OTLP_HEADERS';
export const OTLP_PROTOCOL_ENV = 'OTEL_EXPORTER_OTLP_PROTOCOL';

/** Everything the injected telemetry needs to know about where it runs and where it sends. */
export interface TelemetryContext {
  namespace: string;
  workload: Workload;
  /** The instrumented application container. */
  container: string;
  ingestUrl: string;
  apiKeySecret: { name: string; key: string };
  /** The app's own literal SVC_ENV, else `spec.env` of the SvcInstrumentation, else the namespace name. */
  environment: string;
}

/**
 * SVC_INGEST_URL (literal), SVC_API_KEY (from the Secret, never a literal; `optional` so a missing Secret costs the
 * telemetry, not the pod's start) and SVC_ENV, in that order: later entries refer to the first two as $(VAR).
 */
export function connectionEnv(ctx: TelemetryContext): V1EnvVar[] {
  return [
    { name: INGEST_URL_ENV, value: ctx.ingestUrl },
    {
      name: API_KEY_ENV,
      valueFrom: { secretKeyRef: { name: ctx.apiKeySecret.name, key: ctx.apiKeySecret.key, optional: true } },
    },
    { name: ENVIRONMENT_ENV, value: ctx.environment },
  ];
}

/** From the downward API: pods of a Deployment get their name after admission, so it cannot be written in literally. */
export function podNameEnv(): V1EnvVar {
  return { name: POD_NAME_ENV, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } };
}

/**
 * Standard OTLP exporter settings for agents that read them (Java, Python, the eBPF sidecar). Kubernetes expands
 * $(SVC_INGEST_URL) and $(SVC_API_KEY) because those entries come earlier in the same list. The ingest accepts
 * OTLP/HTTP protobuf (the Python distro would otherwise default to gRPC).
 */
export function otlpEnv(): V1EnvVar[] {
  return [
    { name: OTLP_ENDPOINT_ENV, value: `$(${INGEST_URL_ENV})/otlp` },
    { name: OTLP_HEADERS_ENV, value: `X-API-Key=$(${API_KEY_ENV})` },
    { name: OTLP_PROTOCOL_ENV, value: 'http/protobuf' },
  ];
}

/** Resource attributes we add, as [key, value]; `k8s.pod.name` refers to $(SVC_POD_NAME). */
export function resourceAttributes(ctx: TelemetryContext): [string, string][] {
  const attributes: [string, string][] = [
    ['k8s.namespace.name', ctx.namespace],
    ['k8s.pod.name', `$(${POD_NAME_ENV})`],
    ['k8s.container.name', ctx.container],
  ];
  if (ctx.workload.kind !== 'Pod') attributes.push([`k8s.${ctx.workload.kind.toLowerCase()}.name`, ctx.workload.name]);
  attributes.push(['deployment.environment.name', ctx.environment]);
  return attributes;
}

/** `key=value,…` with values percent-encoded as OTEL_RESOURCE_ATTRIBUTES requires (the $(VAR) reference kept as is). */
export function formatAttributes(attributes: readonly [string, string][]): string {
  return attributes
    .map(([key, value]) => `${key}=${value.startsWith('$(') ? value : encodeAttributeValue(value)}`)
    .join(',');
}

/** Keys already present in an OTEL_RESOURCE_ATTRIBUTES value. */
export function attributeKeys(value: string): Set<string> {
  return new Set(
    value
      .split(',')
      .map((pair) => pair.split('=')[0]?.trim() ?? '')
      .filter((key) => key !== ''),
  );
}

function encodeAttributeValue(value: string): string {
  return value.replace(/[%,=\s"\\;]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
}
