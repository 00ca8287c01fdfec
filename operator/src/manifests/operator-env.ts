import type { V1EnvVar } from '@kubernetes/client-node';
import type { ZeroValues } from './values.js';

/**
 * The environment through which the Deployment hands installation values to the operator process: written here into
 * the pod spec, read by the operator's entry point with readOperatorEnv(), so the names exist once.
 */
export const OPERATOR_ENV = {
  webhookPort: 'SVC_ZERO_WEBHOOK_PORT',
  logLevel: 'SVC_ZERO_LOG_LEVEL',
  ingestUrl: 'SVC_ZERO_INGEST_URL',
  nodejsImage: 'SVC_ZERO_IMAGE_NODEJS',
  javaImage: 'SVC_ZERO_IMAGE_JAVA',
  pythonImage: 'SVC_ZERO_IMAGE_PYTHON',
  ebpfImage: 'SVC_ZERO_IMAGE_EBPF',
  ebpfMemoryLimit: 'SVC_ZERO_EBPF_MEMORY_LIMIT',
  /** The pod's own namespace (downward API), for the TLS Secret and log lines. */
  podNamespace: 'POD_NAMESPACE',
  podName: 'POD_NAME',
} as const;

export interface OperatorEnv {
  webhookPort: number;
  logLevel: string;
  /** Undefined when the installation sets none. */
  ingestUrl: string | undefined;
  images: { nodejs: string; java: string; python: string; ebpf: string };
  ebpfMemoryLimit: string;
  podNamespace: string | undefined;
  podName: string | undefined;
}

export function operatorEnv(values: ZeroValues): V1EnvVar[] {
  return [
    { name: OPERATOR_ENV.podNamespace, valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
    { name: OPERATOR_ENV.podName, valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    { name: OPERATOR_ENV.webhookPort, value: String(values.webhook.port) },
    { name: OPERATOR_ENV.logLevel, value: values.logLevel },
    { name: OPERATOR_ENV.ingestUrl, value: values.ingestUrl },
    { name: OPERATOR_ENV.nodejsImage, value: values.agents.nodejs.image },
    { name: OPERATOR_ENV.javaImage, value: values.agents.java.image },
    { name: OPERATOR_ENV.pythonImage, value: values.agents.python.image },
    { name: OPERATOR_ENV.ebpfImage, value: values.ebpf.image },
    { name: OPERATOR_ENV.ebpfMemoryLimit, value: values.ebpf.resources.limits.memory },
  ];
}

/**
 * The operator's side: reads the variables written by operatorEnv(), each falling back to `defaults` (the chart's
 * defaults, for a process started by hand). A malformed port is an error naming the variable, not a silent default.
 */
export function readOperatorEnv(env: Record<string, string | undefined>, defaults: ZeroValues): OperatorEnv {
  const read = (name: string, fallback: string) => {
    const value = env[name];
    return value === undefined || value === '' ? fallback : value;
  };
  const port = Number(read(OPERATOR_ENV.webhookPort, String(defaults.webhook.port)));
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(
      `${OPERATOR_ENV.webhookPort} must be a port number from 1 to 65535, got "${env[OPERATOR_ENV.webhookPort]}"`,
    );
  }
  return {
    webhookPort: port,
    logLevel: read(OPERATOR_ENV.logLevel, defaults.logLevel),
    ingestUrl: read(OPERATOR_ENV.ingestUrl, defaults.ingestUrl) || undefined,
    images: {
      nodejs: read(OPERATOR_ENV.nodejsImage, defaults.agents.nodejs.image),
      java: read(OPERATOR_ENV.javaImage, defaults.agents.java.image),
      python: read(OPERATOR_ENV.pythonImage, defaults.agents.python.image),
      ebpf: read(OPERATOR_ENV.ebpfImage, defaults.ebpf.image),
    },
    ebpfMemoryLimit: read(OPERATOR_ENV.ebpfMemoryLimit, defaults.ebpf.resources.limits.memory),
    podNamespace: env[OPERATOR_ENV.podNamespace],
    podName: env[OPERATOR_ENV.podName],
  };
}
