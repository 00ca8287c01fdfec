import { API_KEY_SECRET, CRD_API_VERSION, CRD_KIND, DEFAULT_INSTRUMENTATION_NAME } from '../../markers.js';
import { connect } from '../cluster.js';
import { namespaceName, requireNamespace } from '../namespace.js';
import { resourcePath, type ObjectRef } from '../resources.js';
import { formatTable } from '../table.js';
import type { Command } from './command.js';

export const uninstrumentCommand: Command = {
  name: 'uninstrument',
  summary: 'stop instrumenting a namespace: delete its SvcInstrumentation "default" and Secret svc-zero-api-key',
  usage: `Usage: svc-zero uninstrument --namespace=<namespace>

Deletes the SvcInstrumentation (oti) "${DEFAULT_INSTRUMENTATION_NAME}" and the Secret ${API_KEY_SECRET} from the namespace. New pods are
created without the agent; running pods keep it until they are restarted.

Options:
  --namespace=<ns>   namespace to stop instrumenting
  --kubeconfig=<path>, --context=<name>`,
  options: { namespace: { type: 'string', short: 'n' } },
  async run(flags, io) {
    const namespace = namespaceName(flags.required('namespace', 'namespace'));
    const cluster = connect(flags, io);
    await requireNamespace(cluster, namespace);
    // The oti first: once it is gone no new pod is injected, so no pod starts with a reference to a deleted Secret.
    const targets: [string, ObjectRef][] = [
      [
        `svcinstrumentation/${DEFAULT_INSTRUMENTATION_NAME}`,
        { apiVersion: CRD_API_VERSION, kind: CRD_KIND, namespace, name: DEFAULT_INSTRUMENTATION_NAME },
      ],
      [`secret/${API_KEY_SECRET}`, { apiVersion: 'v1', kind: 'Secret', namespace, name: API_KEY_SECRET }],
    ];
    const rows: string[][] = [];
    for (const [label, ref] of targets) {
      const { path, resource } = resourcePath(ref);
      try {
        // Without the CRD the oti path is a 404 too: nothing to delete either way.
        rows.push([`  ${label}`, (await cluster.rest.delete(path)) ? 'deleted' : 'not found']);
      } catch (error) {
        throw cluster.fail(error, { verb: 'delete', resource, namespace, name: ref.name });
      }
    }
    io.out(`Namespace ${namespace} (${cluster.where}):`);
    io.out(formatTable(rows));
    if (rows.every((row) => row[1] === 'not found')) {
      io.out(`${namespace} was not instrumented; nothing changed.`);
      return 0;
    }
    io.out(
      `New pods in ${namespace} are created without the agent. Running pods keep the agent until they are restarted:`,
    );
    io.out(`  kubectl -n ${namespace} rollout restart deployment,statefulset,daemonset`);
    return 0;
  },
};
