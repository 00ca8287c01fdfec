import type { KubernetesObject, V1Deployment } from '@kubernetes/client-node';
import {
  applySets,
  DEFAULT_VALUES,
  manifestsToYaml,
  renderManifests,
  ValuesError,
  valueKeys,
} from '../../manifests/index.js';
import { OPERATOR_NAME, SYSTEM_NAMESPACE } from '../../markers.js';
import { ApplyFailure, applyObject } from '../apply.js';
import type { Flags } from '../args.js';
import { connect, type Cluster } from '../cluster.js';
import { CliError, UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { refOf, resourcePath } from '../resources.js';
import { formatTable } from '../table.js';
import type { Command } from './command.js';

const DEFAULT_TIMEOUT_S = 180;
const POLL_MS = 2000;

export const installCommand: Command = {
  name: 'install',
  summary: 'install or upgrade svc-zero in the cluster (or print its manifests with --render)',
  usage: `Usage: svc-zero install [--render] [--set key=value]... [--only=<Kind>[,<Kind>]] [--dry-run] [--wait [--timeout=<seconds>]]

Applies the svc-zero manifests in order (namespace svc-system, the SvcInstrumentation CRD, RBAC, the operator
Deployment and Service, then the MutatingWebhookConfiguration svc-zero): each object is created when missing,
updated when it differs, and left alone when it already matches, so running it again is safe and upgrades in place.
Needs cluster-admin rights (it creates a CRD, a ClusterRole and a webhook configuration).

Options:
  --render               print the manifests as YAML instead of applying them (kubectl apply -f - takes them)
  --set key=value        change a value (repeatable), the same keys as the Helm chart, e.g.
                         --set ebpf.resources.limits.memory=1Gi --set webhook.timeoutSeconds=5
  --only=<Kind,...>      only these kinds, e.g. --only=CustomResourceDefinition
  --dry-run              send every write as a server-side dry run: validated by the API server, nothing stored
  --wait                 after applying, wait until the operator Deployment is available
  --timeout=<seconds>    how long --wait waits (default ${DEFAULT_TIMEOUT_S})
  --kubeconfig=<path>, --context=<name>

Values: ${valueKeys().join(', ')}`,
  options: {
    render: { type: 'boolean' },
    set: { type: 'string', multiple: true },
    only: { type: 'string' },
    'dry-run': { type: 'boolean' },
    wait: { type: 'boolean' },
    timeout: { type: 'string' },
  },
  async run(flags, io) {
    const objects = selected(flags);
    if (flags.boolean('render')) {
      if (flags.boolean('dry-run') || flags.boolean('wait'))
        throw new UsageError('--render only prints; --dry-run and --wait apply to a cluster');
      io.out(manifestsToYaml(objects).replace(/\n$/, ''));
      return 0;
    }
    const timeoutS = timeoutOf(flags);
    const dryRun = flags.boolean('dry-run');
    const cluster = connect(flags, io);
    io.out(`Installing svc-zero into ${cluster.where}${dryRun ? ' (dry run: nothing is stored)' : ''}:`);
    const rows: string[][] = [];
    // A dry run creates nothing, so the API server would answer 404 for objects in a namespace it would create.
    const unborn = new Set<string>();
    for (const object of objects) {
      const label = `  ${object.kind?.toLowerCase()}/${object.metadata?.name}`;
      const namespace = object.metadata?.namespace;
      if (dryRun && namespace && unborn.has(namespace)) {
        rows.push([label, `created (dry run; not validated before namespace ${namespace} exists)`]);
        continue;
      }
      const outcome = await apply(cluster, object, dryRun);
      if (dryRun && object.kind === 'Namespace' && outcome === 'created') unborn.add(object.metadata?.name ?? '');
      rows.push([label, dryRun && outcome !== 'unchanged' ? `${outcome} (dry run)` : outcome]);
    }
    io.out(formatTable(rows));
    if (dryRun) return 0;
    if (flags.boolean('wait')) {
      await waitForOperator(cluster, io, timeoutS);
      io.out(`svc-zero-operator is available in ${SYSTEM_NAMESPACE}.`);
    } else {
      io.out(`Wait for the operator: kubectl -n ${SYSTEM_NAMESPACE} rollout status deployment/${OPERATOR_NAME}`);
    }
    io.out(
      'Then instrument a namespace: svc-zero instrument --namespace=<namespace> --api-key=<API_KEY> --ingest-url=<url>',
    );
    return 0;
  },
};

function selected(flags: Flags): KubernetesObject[] {
  let values;
  try {
    values = applySets(DEFAULT_VALUES, flags.list('set'));
  } catch (error) {
    if (error instanceof ValuesError) throw new UsageError(error.message);
    throw error;
  }
  const objects = renderManifests(values);
  const only = flags.string('only');
  if (only === undefined) return objects;
  const kinds = only.split(',').map((kind) => kind.trim().toLowerCase());
  const known = objects.map((object) => object.kind ?? '');
  const unknown = kinds.filter((kind) => !known.some((k) => k.toLowerCase() === kind));
  if (unknown.length > 0)
    throw new UsageError(
      `--only: unknown kind ${unknown.join(', ')}; the manifests hold ${[...new Set(known)].join(', ')}`,
    );
  return objects.filter((object) => kinds.includes((object.kind ?? '').toLowerCase()));
}

function timeoutOf(flags: Flags): number {
  const raw = flags.string('timeout');
  if (raw === undefined) return DEFAULT_TIMEOUT_S;
  const seconds = Number(raw.replace(/s$/, ''));
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`--timeout must be a number of seconds, got "${raw}"`);
  return seconds;
}

async function apply(cluster: Cluster, object: KubernetesObject, dryRun: boolean) {
  try {
    return await applyObject(cluster.rest, object, { dryRun });
  } catch (thrown) {
    if (!(thrown instanceof ApplyFailure)) throw thrown;
    const { verb, cause: error } = thrown;
    const ref = refOf(object);
    const failure = cluster.fail(error, {
      verb,
      resource: resourcePath(ref).resource,
      name: ref.name,
      ...(ref.namespace ? { namespace: ref.namespace } : {}),
    });
    if ((error as { code?: unknown }).code === 403) {
      throw new CliError(
        `${failure.message}\n  installing svc-zero creates a CRD, cluster RBAC and a webhook configuration: it needs cluster-admin rights`,
      );
    }
    throw failure;
  }
}

/** Polls the Deployment until its current generation has an available, updated replica (what `rollout status` checks). */
async function waitForOperator(cluster: Cluster, io: CliIo, timeoutS: number): Promise<void> {
  const { path, resource } = resourcePath({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    namespace: SYSTEM_NAMESPACE,
    name: OPERATOR_NAME,
  });
  const deadline = Date.now() + timeoutS * 1000;
  let last = 'not found';
  for (;;) {
    let deployment: V1Deployment | undefined;
    try {
      deployment = await cluster.rest.find<V1Deployment>(path);
    } catch (error) {
      throw cluster.fail(error, { verb: 'get', resource, namespace: SYSTEM_NAMESPACE, name: OPERATOR_NAME });
    }
    const status = deployment?.status;
    if (deployment && status) {
      const current = (status.observedGeneration ?? 0) >= (deployment.metadata?.generation ?? 0);
      if (current && (status.updatedReplicas ?? 0) >= 1 && (status.availableReplicas ?? 0) >= 1) return;
      last = `${status.availableReplicas ?? 0} available, ${status.updatedReplicas ?? 0} updated`;
    }
    if (Date.now() >= deadline) {
      throw new CliError(
        `svc-zero-operator is not available after ${timeoutS} s (${last}); see why with: kubectl -n ${SYSTEM_NAMESPACE} describe deployment/${OPERATOR_NAME} ` +
          `and kubectl -n ${SYSTEM_NAMESPACE} logs deployment/${OPERATOR_NAME}`,
      );
    }
    await io.sleep(Math.min(POLL_MS, Math.max(0, deadline - Date.now())));
  }
}
