import type { V1Container, V1EnvVar, V1Namespace, V1Pod, V1ResourceRequirements } from '@kubernetes/client-node';
import { EBPF_CONTAINER, POD_SECURITY_ENFORCE_LABEL } from '../markers.js';
import type { AgentSpec } from '../resource/types.js';
import {
  connectionEnv,
  formatAttributes,
  otlpEnv,
  podNameEnv,
  RESOURCE_ATTRIBUTES_ENV,
  resourceAttributes,
  SERVICE_NAME_ENV,
  type TelemetryContext,
} from './telemetry-env.js';

/**
 * Linux capabilities OpenTelemetry eBPF Instrumentation (OBI, formerly Grafana Beyla) needs as a sidecar, per its
 * "Security, permissions and capabilities" page: BPF (load programs), PERFMON (kprobes/uprobes, packet access),
 * SYS_PTRACE (read /proc/<pid>/exe of the app), NET_RAW (socket filters), DAC_READ_SEARCH and CHECKPOINT_RESTORE
 * (/proc and ELF access), NET_ADMIN (TC programs for trace-context propagation), SYS_RESOURCE (locked memory on
 * kernels before 5.11). SYS_ADMIN is deliberately not added: it only serves Go library-level context propagation.
 */
export const EBPF_CAPABILITIES = [
  'BPF',
  'PERFMON',
  'SYS_PTRACE',
  'NET_RAW',
  'DAC_READ_SEARCH',
  'CHECKPOINT_RESTORE',
  'NET_ADMIN',
  'SYS_RESOURCE',
] as const;

/** Below this the sidecar's request is its limit; above it, it requests this and may burst to the limit. */
const MEMORY_REQUEST = '128Mi';
const CPU_REQUEST = '50m';

/**
 * Why the eBPF sidecar cannot run in this pod, or undefined when it can. Pod Security admission rejects added
 * capabilities at `baseline` and `restricted`; an unlabelled namespace is `privileged` (the Kubernetes default,
 * unless the cluster's admission configuration says otherwise, which a webhook cannot see); an invalid level is
 * enforced as `restricted`. The sidecar also needs the pod's process namespace.
 */
export function ebpfBlocker(namespace: V1Namespace, pod: V1Pod): string | undefined {
  const name = namespace.metadata?.name ?? '';
  const level = namespace.metadata?.labels?.[POD_SECURITY_ENFORCE_LABEL];
  if (level !== undefined && level !== 'privileged') {
    const shown =
      level === 'baseline' || level === 'restricted'
        ? `"${level}"`
        : `"${level}" (not a valid level, enforced as restricted)`;
    return (
      `namespace ${name} enforces Pod Security ${shown}, which rejects the ${EBPF_CONTAINER} sidecar's capabilities; ` +
      `label it ${POD_SECURITY_ENFORCE_LABEL}=privileged, exempt the ${EBPF_CONTAINER} container, or set strategy: sdk`
    );
  }
  if (pod.spec?.hostPID === true)
    return 'pod uses hostPID, which Kubernetes does not allow together with shareProcessNamespace';
  if (pod.spec?.shareProcessNamespace === false) {
    return `pod sets shareProcessNamespace: false; the ${EBPF_CONTAINER} sidecar must see the application's processes`;
  }
  return undefined;
}

export interface SidecarOptions {
  image: string;
  /** `spec.agents.ebpf` of the SvcInstrumentation. */
  spec: AgentSpec | undefined;
  /** The deployment value `ebpf.resources.limits.memory`. */
  memoryLimit: string;
  /** The application's own OTEL_SERVICE_NAME when it set one literally, else the workload name. */
  serviceName: string;
  /** containerPort values of the application container. */
  ports: number[];
}

/**
 * The `svc-ebpf` sidecar. It runs as root with exactly the capabilities above (everything else dropped),
 * `runAsNonRoot: false` so a pod-level `runAsNonRoot: true` does not stop it; selects the application by its open
 * ports (OTEL_EBPF_OPEN_PORT) or, when the container declares none, any process in the pod; exports OTLP to the
 * ingest with the key. Kubernetes metadata decoration is off (the pod's service account may not list pods): the
 * resource attributes carry it instead.
 */
export function ebpfSidecar(ctx: TelemetryContext, options: SidecarOptions): V1Container {
  const selector: V1EnvVar =
    options.ports.length > 0
      ? { name: 'OTEL_EBPF_OPEN_PORT', value: options.ports.join(',') }
      : { name: 'OTEL_EBPF_AUTO_TARGET_EXE', value: '*' };
  return {
    name: EBPF_CONTAINER,
    image: options.image,
    env: [
      ...connectionEnv(ctx),
      { name: SERVICE_NAME_ENV, value: options.serviceName },
      podNameEnv(),
      { name: RESOURCE_ATTRIBUTES_ENV, value: formatAttributes(resourceAttributes(ctx)) },
      ...otlpEnv(),
      { name: 'OTEL_EBPF_KUBE_METADATA_ENABLE', value: 'false' },
      selector,
    ],
    resources: sidecarResources(options.spec?.resources, options.memoryLimit),
    securityContext: {
      runAsUser: 0,
      runAsNonRoot: false,
      privileged: false,
      capabilities: { drop: ['ALL'], add: [...EBPF_CAPABILITIES] },
    },
  };
}

/**
 * The SvcInstrumentation's `spec.agents.ebpf.resources` when given (a memory limit it lacks comes from the deployment
 * value), else a small request and the deployment value as the memory limit. A memory request is never above the
 * limit: when the limit is smaller than MEMORY_REQUEST or cannot be compared, the request is left to default to it.
 */
function sidecarResources(custom: V1ResourceRequirements | undefined, memoryLimit: string): V1ResourceRequirements {
  if (custom) {
    const resources = structuredClone(custom);
    if (!resources.limits?.memory) resources.limits = { ...resources.limits, memory: memoryLimit };
    return resources;
  }
  const limitBytes = quantityBytes(memoryLimit);
  const requestBytes = quantityBytes(MEMORY_REQUEST) ?? 0;
  const requests: Record<string, string> = { cpu: CPU_REQUEST };
  if (limitBytes !== undefined && limitBytes >= requestBytes) requests.memory = MEMORY_REQUEST;
  return { requests, limits: { memory: memoryLimit } };
}

const SUFFIXES: Readonly<Record<string, number>> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** Bytes of a Kubernetes memory quantity (`512Mi`, `1G`, `1048576`); undefined for forms we do not compare. */
export function quantityBytes(quantity: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)([kMGTPE]i?|Ki)?$/.exec(quantity.trim());
  if (!match?.[1]) return undefined;
  const factor = SUFFIXES[match[2] ?? ''];
  return factor === undefined ? undefined : Number(match[1]) * factor;
}
