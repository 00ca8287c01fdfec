import type { V1Container, V1EnvVar } from '@kubernetes/client-node';

/** Index of the entry Kubernetes uses for `name` (the last one of that name), or -1. */
export function effectiveEnvIndex(env: readonly V1EnvVar[] | undefined, name: string): number {
  if (!env) return -1;
  for (let i = env.length - 1; i >= 0; i--) if (env[i]?.name === name) return i;
  return -1;
}

/**
 * The value the container gets for `name` from its own `env`, when that is a literal (absent value = ''); undefined
 * when it is not defined there or comes from `valueFrom` (unknown at admission).
 */
export function literalEnvValue(container: V1Container, name: string): string | undefined {
  const entry = container.env?.[effectiveEnvIndex(container.env, name)];
  return entry && !entry.valueFrom ? (entry.value ?? '') : undefined;
}
