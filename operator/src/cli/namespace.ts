import { ApiException } from '@kubernetes/client-node';
import type { Cluster } from './cluster.js';
import { CliError, UsageError } from './errors.js';
import { resourcePath } from './resources.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A namespace name as Kubernetes accepts it (RFC 1123 label), else a usage error. */
export function namespaceName(value: string): string {
  if (value.length > 63 || !DNS_LABEL.test(value))
    throw new UsageError(`"${value}" is not a namespace name (lowercase letters, digits and '-', at most 63)`);
  return value;
}

/**
 * Fails clearly when the namespace does not exist. Users allowed to work in a namespace often may not read the
 * (cluster-scoped) namespace object: a 403 here is no verdict, and the next request in the namespace tells.
 */
export async function requireNamespace(cluster: Cluster, name: string): Promise<void> {
  try {
    await cluster.rest.get(resourcePath({ apiVersion: 'v1', kind: 'Namespace', name }).path);
  } catch (error) {
    if (error instanceof ApiException && error.code === 403) return;
    if (error instanceof ApiException && error.code === 404) throw unknownNamespace(name, cluster);
    throw cluster.fail(error, { verb: 'get', resource: 'namespaces', name });
  }
}

export function unknownNamespace(name: string, cluster: Cluster): CliError {
  return new CliError(
    `namespace "${name}" does not exist in ${cluster.where}; check the name (kubectl get namespaces) or --context`,
  );
}
