import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { parseImageReference } from '../detect/index.js';
import { CONTAINER_ANNOTATION, EBPF_CONTAINER, KUBECTL_DEFAULT_CONTAINER_ANNOTATION } from '../markers.js';

/**
 * Containers that are never the application: service-mesh proxies, secret and database proxies, telemetry agents and
 * log shippers that meshes, operators and platform teams add next to it. By container name …
 */
const SIDECAR_NAMES = new Set([
  'istio-proxy',
  'linkerd-proxy',
  'envoy',
  'envoy-sidecar',
  'kuma-sidecar',
  'consul-dataplane',
  'consul-connect-envoy-sidecar',
  'daprd',
  'vault-agent',
  'cloud-sql-proxy',
  'cloudsql-proxy',
  'datadog-agent',
  'aws-xray-daemon',
  'xray-daemon',
  'otc-container',
  'otel-collector',
  'opentelemetry-collector',
  'fluent-bit',
  'fluentd',
  'promtail',
  'filebeat',
  'oauth2-proxy',
  'kube-rbac-proxy',
  'config-reloader',
  'gke-gcsfuse-sidecar',
  'beyla',
  'obi',
  EBPF_CONTAINER,
]);

/** … and by image repository path (registry and tag ignored), for sidecars renamed by their installer. */
const SIDECAR_IMAGES: readonly RegExp[] = [
  /(^|\/)proxyv2$/, // istio/proxyv2
  /(^|\/)linkerd\/proxy$/,
  /^envoyproxy\//,
  /(^|\/)kuma-dp$/,
  /(^|\/)consul-dataplane$/,
  /(^|\/)daprd$/,
  /^hashicorp\/vault$/,
  /(^|\/)cloud-sql-proxy$/,
  /(^|\/)gce-proxy$/,
  /^datadog\/(agent|dogstatsd)$/,
  /(^|\/)aws-xray-daemon$/,
  /(^|\/)opentelemetry-collector(-[a-z]+)?$/,
  /(^|\/)fluent-bit$/,
  /(^|\/)promtail$/,
  /(^|\/)oauth2-proxy$/,
  /(^|\/)kube-rbac-proxy$/,
  /(^|\/)ebpf-instrument$/,
  /^grafana\/beyla$/,
];

export function isKnownSidecar(container: V1Container): boolean {
  if (SIDECAR_NAMES.has(container.name)) return true;
  if (!container.image) return false;
  const { path } = parseImageReference(container.image);
  return SIDECAR_IMAGES.some((pattern) => pattern.test(path));
}

export type Selection =
  | { ok: true; index: number; container: V1Container; via: 'annotation' | 'default-container' | 'first-non-sidecar' }
  | { ok: false; reason: string };

/**
 * The container to instrument: the one the `svc.io/container` annotation names (an explicit choice, honoured even for
 * a container we would take for a sidecar; naming a container the pod does not have is an error, not a guess), else
 * kubectl's `kubectl.kubernetes.io/default-container` unless that is a known sidecar, else the first container that
 * is not a known sidecar. The order of `containers` is what users see as "the app first", but istio can put its
 * proxy first, hence the list.
 */
export function selectAppContainer(pod: V1Pod): Selection {
  const containers = pod.spec?.containers ?? [];
  const annotations = pod.metadata?.annotations ?? {};
  const requested = annotations[CONTAINER_ANNOTATION];
  if (requested !== undefined && requested !== '') {
    const index = containers.findIndex((c) => c.name === requested);
    const container = containers[index];
    if (!container) {
      return {
        ok: false,
        reason: `annotation ${CONTAINER_ANNOTATION}="${requested}" names no container of this pod (containers: ${names(containers)})`,
      };
    }
    return { ok: true, index, container, via: 'annotation' };
  }
  const preferred = annotations[KUBECTL_DEFAULT_CONTAINER_ANNOTATION];
  if (preferred) {
    const index = containers.findIndex((c) => c.name === preferred && !isKnownSidecar(c));
    const container = containers[index];
    if (container) return { ok: true, index, container, via: 'default-container' };
  }
  const index = containers.findIndex((c) => !isKnownSidecar(c));
  const container = containers[index];
  if (!container) {
    return {
      ok: false,
      reason:
        containers.length === 0
          ? 'pod has no containers'
          : `no application container: every container is a known sidecar (${names(containers)}); name one with annotation ${CONTAINER_ANNOTATION}`,
    };
  }
  return { ok: true, index, container, via: 'first-non-sidecar' };
}

function names(containers: readonly V1Container[]): string {
  return containers.map((c) => c.name).join(', ') || 'none';
}
