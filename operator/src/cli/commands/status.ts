import { CRD_API_VERSION, CRD_KIND } from '../../markers.js';
import type { SvcInstrumentation, WorkloadStatus } from '../../resource/types.js';
import { connect, type Cluster } from '../cluster.js';
import { UsageError } from '../errors.js';
import { namespaceName, requireNamespace } from '../namespace.js';
import { resourcePath } from '../resources.js';
import { formatTable } from '../table.js';
import type { Command } from './command.js';

export const statusCommand: Command = {
  name: 'status',
  summary: 'show instrumented namespaces and, per workload, the detected language, framework, strategy and state',
  usage: `Usage: svc-zero status [--namespace=<namespace>] [--output=table|json]

Lists every SvcInstrumentation (oti) in the cluster, or in one namespace, with the counts the operator keeps in its
status (matching, injected, pending, outdated, failed), then one line per workload: language, framework, strategy,
detection confidence (0 to 1) and state. "outdated" workloads need a restart to get the agent; "pending" ones have
no running pods, so no injection has been observed yet.

Options:
  --namespace=<ns>       only this namespace
  --output=table|json    table (default) or JSON for scripts
  --kubeconfig=<path>, --context=<name>`,
  options: { namespace: { type: 'string', short: 'n' }, output: { type: 'string', short: 'o' } },
  async run(flags, io) {
    const output = flags.string('output') ?? 'table';
    if (output !== 'table' && output !== 'json')
      throw new UsageError(`--output must be table or json, got "${output}"`);
    const namespaceFlag = flags.string('namespace');
    const namespace = namespaceFlag === undefined ? undefined : namespaceName(namespaceFlag);
    const cluster = connect(flags, io);
    if (namespace) await requireNamespace(cluster, namespace);
    await cluster.requireCrd();
    const items = await listInstrumentations(cluster, namespace);
    if (output === 'json') io.out(JSON.stringify(items.map(summary), null, 2));
    else for (const line of statusReport(items, namespace)) io.out(line);
    return 0;
  },
};

/** The SvcInstrumentations of the cluster or of one namespace, by namespace and name. */
async function listInstrumentations(cluster: Cluster, namespace: string | undefined): Promise<SvcInstrumentation[]> {
  const { path, resource } = resourcePath({
    apiVersion: CRD_API_VERSION,
    kind: CRD_KIND,
    ...(namespace ? { namespace } : {}),
  });
  let items: SvcInstrumentation[];
  try {
    items = (await cluster.rest.get<{ items: SvcInstrumentation[] }>(path)).items;
  } catch (error) {
    throw cluster.fail(error, { verb: 'list', resource, ...(namespace ? { namespace } : {}) });
  }
  return items.sort((a, b) =>
    `${a.metadata.namespace}/${a.metadata.name}`.localeCompare(`${b.metadata.namespace}/${b.metadata.name}`),
  );
}

/** What `status` prints as a table: the two tables and the hints, or how to instrument a first namespace. */
export function statusReport(items: SvcInstrumentation[], namespace: string | undefined): string[] {
  if (items.length === 0) {
    return [
      `No ${namespace ? `SvcInstrumentation in namespace ${namespace}` : 'namespace is instrumented'}. Instrument one with:`,
      `  svc-zero instrument --namespace=${namespace ?? '<namespace>'} --api-key=<API_KEY>`,
    ];
  }
  const workloads = items.flatMap((item) =>
    (item.status?.workloads ?? []).map((workload) => ({ namespace: item.metadata.namespace ?? '', ...workload })),
  );
  const lines = [instrumentationTable(items)];
  if (workloads.length > 0) lines.push('', workloadTable(workloads));
  const waiting = items.filter((item) => !item.status?.conditions?.length).map((item) => item.metadata.namespace);
  if (waiting.length > 0) {
    lines.push(
      '',
      `The operator has not reported on ${waiting.join(', ')} yet; is it running? kubectl -n svc-system get pods`,
    );
  }
  if (workloads.some((w) => w.state === 'outdated')) {
    lines.push(
      '',
      'Outdated workloads run pods without the current agent: restart them (kubectl -n <namespace> rollout restart <kind>/<name>).',
    );
  }
  return lines;
}

function instrumentationTable(items: SvcInstrumentation[]): string {
  return formatTable([
    ['NAMESPACE', 'OTI', 'STRATEGY', 'READY', 'MATCHING', 'INJECTED', 'PENDING', 'OUTDATED', 'FAILED', 'INGEST'],
    ...items.map((item) => {
      const s = summary(item);
      const counts = [s.counts?.matching, s.counts?.injected, s.counts?.pending, s.counts?.outdated, s.counts?.failed];
      return [s.namespace, s.name, s.strategy, s.ready, ...counts.map(count), s.ingestUrl ?? '(operator default)'];
    }),
  ]);
}

type WorkloadRow = WorkloadStatus & { namespace: string };

function workloadTable(workloads: WorkloadRow[]): string {
  return formatTable([
    ['NAMESPACE', 'WORKLOAD', 'LANG', 'FRAMEWORK', 'STRATEGY', 'CONFIDENCE', 'STATE', 'REASON'],
    ...workloads.map((w) => [
      w.namespace,
      `${w.kind.toLowerCase()}/${w.name}`,
      w.lang,
      w.framework,
      w.strategy,
      w.confidence.toFixed(2),
      w.state,
      w.reason ?? '',
    ]),
  ]);
}

/** '-' for a count the status does not have (not reported yet, or written by an operator that did not count it). */
const count = (value: number | undefined) => (value === undefined ? '-' : String(value));

/** What status prints per oti, and the JSON shape of --output=json. */
function summary(item: SvcInstrumentation) {
  const ready = item.status?.conditions?.find((condition) => condition.type === 'Ready');
  return {
    namespace: item.metadata.namespace ?? '',
    name: item.metadata.name ?? '',
    strategy: item.spec.strategy ?? 'sdk',
    env: item.spec.env ?? item.metadata.namespace ?? '',
    /** Absent: the operator's install value ingestUrl applies. */
    ingestUrl: item.spec.ingestUrl ?? null,
    ready: ready?.status ?? 'Unknown',
    readyMessage: ready?.message ?? '',
    observedGeneration: item.status?.observedGeneration,
    generation: item.metadata.generation,
    counts: item.status?.counts,
    workloads: item.status?.workloads ?? [],
  };
}
