import { apiStatusOf, describeApiError, KubeConfigError, locateKubeConfig } from '../kube/index.js';
import { CRD_GROUP, CRD_PLURAL, CRD_VERSION } from '../markers.js';
import type { Flags } from './args.js';
import { CliError } from './errors.js';
import type { CliIo } from './io.js';
import { RestClient } from './rest.js';

/** What a request was for, so a failure can name the verb, resource and namespace (and the RBAC that would allow it). */
export interface Action {
  verb: 'get' | 'list' | 'create' | 'update' | 'delete';
  /** Plural resource, group-qualified for non-core groups (`secrets`, `svcinstrumentations.svc.io`). */
  resource: string;
  namespace?: string;
  name?: string;
}

export interface Cluster {
  rest: RestClient;
  /** "context <name> (<server>)", for messages. */
  where: string;
  /** Turns a failed request into a CliError that says what failed and what to do about it. */
  fail(error: unknown, action: Action): CliError;
  /** Fails with "run svc-zero install" when the SvcInstrumentation CRD is not served. */
  requireCrd(): Promise<void>;
}

export function connect(flags: Flags, io: CliIo): Cluster {
  let loaded;
  try {
    loaded = locateKubeConfig({
      ...(flags.string('kubeconfig') !== undefined ? { kubeconfig: flags.string('kubeconfig') } : {}),
      ...(flags.string('context') !== undefined ? { context: flags.string('context') } : {}),
      env: io.env,
      ...(io.env.HOME ? { home: io.env.HOME } : {}),
    });
  } catch (error) {
    if (error instanceof KubeConfigError) throw new CliError(error.message);
    throw error;
  }
  const rest = new RestClient(loaded.kubeConfig);
  const where = `context "${loaded.kubeConfig.getCurrentContext()}" (${rest.server})`;
  const fail = (error: unknown, action: Action) => new CliError(explain(error, action, where));
  return {
    rest,
    where,
    fail,
    async requireCrd() {
      // Discovery is readable by every authenticated user, unlike the CRD object itself.
      const path = `/apis/${CRD_GROUP}/${CRD_VERSION}`;
      let served: { resources?: { name: string }[] } | undefined;
      try {
        served = await rest.find(path);
      } catch (error) {
        throw fail(error, { verb: 'get', resource: `${CRD_PLURAL}.${CRD_GROUP}` });
      }
      if (!served?.resources?.some((resource) => resource.name === CRD_PLURAL)) {
        throw new CliError(
          `the SvcInstrumentation CRD (${CRD_PLURAL}.${CRD_GROUP}) is not installed in ${where}: run svc-zero install first ` +
            '(or kubectl apply -f operator/deploy/manifests/svc-zero.yaml, or the Helm chart)',
        );
      }
    },
  };
}

const GERUND: Record<Action['verb'], string> = {
  get: 'reading',
  list: 'listing',
  create: 'creating',
  update: 'updating',
  delete: 'deleting',
};

/** "creating secrets/svc-zero-api-key in namespace shop", the phrase describeApiError puts after "while". */
export function actionPhrase(action: Action): string {
  return `${GERUND[action.verb]} ${action.resource}${action.name ? `/${action.name}` : ''}${action.namespace ? ` in namespace ${action.namespace}` : ''}`;
}

function explain(error: unknown, action: Action, where: string): string {
  const sentence = describeApiError(error, actionPhrase(action));
  const status = apiStatusOf(error);
  if (status?.code === 403)
    return `${sentence}\n${rbacHint(action, /User "([^"]+)"/.exec(status.message ?? '')?.[1] ?? '<you>')}`;
  // Network failures and rejected credentials: say which cluster, since the fix is usually --context or a login.
  if (status === undefined || status.code === 401) return `${sentence} [${where}]`;
  return sentence;
}

/** The smallest grant that would allow the action, as commands an admin can run. */
function rbacHint(action: Action, user: string): string {
  const verbs = action.verb === 'get' || action.verb === 'list' ? 'get,list' : `get,${action.verb}`;
  const [scope, role, binding] = action.namespace
    ? [`kubectl -n ${action.namespace} `, 'role', `rolebinding svc-zero-user --role=svc-zero-user`]
    : ['kubectl ', 'clusterrole', `clusterrolebinding svc-zero-user --clusterrole=svc-zero-user`];
  return [
    '  for example, an admin can grant it with:',
    `    ${scope}create ${role} svc-zero-user --verb=${verbs} --resource=${action.resource}`,
    `    ${scope}create ${binding} --user=${user}`,
  ].join('\n');
}
