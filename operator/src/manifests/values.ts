import packageJson from '../../package.json';

/** The operator's version: the default image tag, the `app.kubernetes.io/version` label and the chart's appVersion. */
export const ZERO_VERSION: string = packageJson.version;

export type PullPolicy = 'Always' | 'IfNotPresent' | 'Never';
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

/**
 * Everything an installation can change, with the same names and nesting as the Helm chart's values.yaml
 * (operator/deploy/helm/svc-zero/values.yaml holds the same defaults; a test keeps the two equal). `svc-zero install
 * --set key=value` and `helm install --set key=value` take the same keys.
 */
export interface ZeroValues {
  namespace: {
    /** Create the `svc-system` namespace (with the labels that exclude it from injection). Turn off when it exists. */
    create: boolean;
  };
  image: {
    repository: string;
    /** Empty: the operator's version (the chart's appVersion). */
    tag: string;
    pullPolicy: PullPolicy;
  };
  /** The operator container's requests and limits (quantities). */
  resources: {
    requests: { cpu: string; memory: string };
    limits: { memory: string };
  };
  logLevel: LogLevel;
  /**
   * Default ingest URL for namespaces whose `oti` names none (`svc-zero instrument` without `--ingest-url`): set once
   * by the platform team. Empty: every `oti` must carry its own.
   */
  ingestUrl: string;
  webhook: {
    /** HTTPS port of the webhook and of /healthz and /readyz inside the pod; the Service listens on 443. */
    port: number;
    /** Admission timeout (SPEC 8: 10 seconds by default, at most 30); failurePolicy is always Ignore. */
    timeoutSeconds: number;
    /** Namespaces never sent to the webhook besides `svc-system` (always excluded) and those labelled `svc.io/exclude=true`. */
    excludedNamespaces: string[];
  };
  /** Default init images per language, used when an `oti` names none (`spec.agents.<lang>.image`). */
  agents: {
    nodejs: { image: string };
    java: { image: string };
    python: { image: string };
  };
  ebpf: {
    /** Default image of the `svc-ebpf` sidecar (OpenTelemetry eBPF Instrumentation). */
    image: string;
    /** SPEC 8: the sidecar's memory limit. Raise it when the sidecar is OOM-killed (workloads with many connections). */
    resources: { limits: { memory: string } };
  };
}

const IMAGE_PREFIX = 'ghcr.io/svc';

export const DEFAULT_VALUES: ZeroValues = {
  namespace: { create: true },
  image: { repository: `${IMAGE_PREFIX}/svc-zero-operator`, tag: '', pullPolicy: 'IfNotPresent' },
  resources: { requests: { cpu: '50m', memory: '64Mi' }, limits: { memory: '256Mi' } },
  logLevel: 'info',
  ingestUrl: '',
  webhook: { port: 9443, timeoutSeconds: 10, excludedNamespaces: ['kube-system'] },
  agents: {
    nodejs: { image: `${IMAGE_PREFIX}/svc-zero-agent-nodejs:${ZERO_VERSION}` },
    java: { image: `${IMAGE_PREFIX}/svc-zero-agent-java:${ZERO_VERSION}` },
    python: { image: `${IMAGE_PREFIX}/svc-zero-agent-python:${ZERO_VERSION}` },
  },
  ebpf: {
    image: 'docker.io/otel/ebpf-instrument:v0.9.0',
    resources: { limits: { memory: '512Mi' } },
  },
};

/** The operator image reference: `repository:tag`, the tag defaulting to the operator's version. */
export function operatorImage(values: ZeroValues): string {
  return `${values.image.repository}:${values.image.tag || ZERO_VERSION}`;
}
