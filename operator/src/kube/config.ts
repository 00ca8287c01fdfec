/**
 * Finds the cluster to talk to, in controller-runtime's order: `--kubeconfig`, then `KUBECONFIG`, then the pod's
 * service account when running in a cluster, then `~/.kube/config`. client-node's own loadFromDefault() silently
 * falls back to http://localhost:8080 when it finds nothing, which surfaces later as a baffling "connection refused";
 * here finding nothing is an error that says where we looked.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfig, type Cluster, type Context, type User } from '@kubernetes/client-node';

export interface KubeConfigOptions {
  /** Path from `--kubeconfig`; must exist when given. */
  kubeconfig?: string;
  /** Context from `--context`; must exist in the loaded configuration. */
  context?: string;
  /** Environment to read KUBECONFIG / KUBERNETES_SERVICE_HOST from (default process.env). */
  env?: Record<string, string | undefined>;
  /** Home directory for `~/.kube/config` (default os.homedir()). */
  home?: string;
  /** Filesystem root the service account files are under (default `/`; tests point it at a temp dir). */
  root?: string;
}

/** Where the configuration came from, for the operator's start line and the CLI's errors. */
export interface LoadedKubeConfig {
  kubeConfig: KubeConfig;
  source: string;
}

export class KubeConfigError extends Error {
  override name = 'KubeConfigError';
}

const SERVICE_ACCOUNT_DIR = 'var/run/secrets/kubernetes.io/serviceaccount';

export function loadKubeConfig(options: KubeConfigOptions = {}): KubeConfig {
  return locateKubeConfig(options).kubeConfig;
}

export function locateKubeConfig(options: KubeConfigOptions = {}): LoadedKubeConfig {
  const env = options.env ?? process.env;
  const loaded = load(options, env);
  selectContext(loaded, options.context);
  return loaded;
}

function load(options: KubeConfigOptions, env: Record<string, string | undefined>): LoadedKubeConfig {
  if (options.kubeconfig !== undefined) {
    if (!existsSync(options.kubeconfig))
      throw new KubeConfigError(`kubeconfig ${options.kubeconfig} (from --kubeconfig) does not exist`);
    return { kubeConfig: fromFiles([options.kubeconfig]), source: `--kubeconfig ${options.kubeconfig}` };
  }

  const listed = (env.KUBECONFIG ?? '').split(delimiter).filter((file) => file !== '');
  if (listed.length > 0) {
    // kubectl skips missing files in KUBECONFIG; all of them missing is an error.
    const present = listed.filter((file) => existsSync(file));
    if (present.length === 0)
      throw new KubeConfigError(
        `KUBECONFIG names ${listed.join(', ')}, but ${listed.length === 1 ? 'that file does' : 'none of those files'} not exist`,
      );
    return { kubeConfig: fromFiles(present), source: `KUBECONFIG ${present.join(delimiter)}` };
  }

  const root = options.root ?? '/';
  const tokenFile = join(root, SERVICE_ACCOUNT_DIR, 'token');
  if (env.KUBERNETES_SERVICE_HOST) {
    if (!existsSync(tokenFile)) {
      throw new KubeConfigError(
        `running in a cluster (KUBERNETES_SERVICE_HOST=${env.KUBERNETES_SERVICE_HOST}) but the service account token ${tokenFile} does not exist; is automountServiceAccountToken disabled for the pod?`,
      );
    }
    const kubeConfig = new KubeConfig();
    withEnv(env, () => kubeConfig.loadFromCluster(root === '/' ? '' : root.replace(/\/$/, '')));
    return { kubeConfig, source: 'in-cluster service account' };
  }

  const home = options.home ?? homedir();
  const defaultFile = join(home, '.kube', 'config');
  if (existsSync(defaultFile)) return { kubeConfig: fromFiles([defaultFile]), source: defaultFile };

  throw new KubeConfigError(
    `no Kubernetes configuration found: no --kubeconfig given, KUBECONFIG is not set, ${defaultFile} does not exist, and this is not a pod ` +
      `(KUBERNETES_SERVICE_HOST is not set); pass --kubeconfig=<path> or set KUBECONFIG`,
  );
}

/** client-node reads the in-cluster host and port from process.env; an injected env must be what it sees. */
function withEnv(env: Record<string, string | undefined>, run: () => void): void {
  if (env === process.env) return run();
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  const set = (key: string, value: string | undefined) =>
    value === undefined ? delete process.env[key] : (process.env[key] = value);
  set('KUBERNETES_SERVICE_HOST', env.KUBERNETES_SERVICE_HOST);
  set('KUBERNETES_SERVICE_PORT', env.KUBERNETES_SERVICE_PORT);
  try {
    run();
  } finally {
    set('KUBERNETES_SERVICE_HOST', saved.host);
    set('KUBERNETES_SERVICE_PORT', saved.port);
  }
}

/** Loads and merges kubeconfig files as kubectl does: the first file to define a name (or current-context) wins. */
function fromFiles(files: readonly string[]): KubeConfig {
  const clusters: Cluster[] = [];
  const users: User[] = [];
  const contexts: Context[] = [];
  let currentContext = '';
  for (const file of files) {
    const one = new KubeConfig();
    try {
      one.loadFromFile(file);
    } catch (error) {
      throw new KubeConfigError(`cannot read kubeconfig ${file}: ${(error as Error).message}`);
    }
    const add = <T extends { name: string }>(into: T[], items: readonly T[]) => {
      for (const item of items) if (!into.some((existing) => existing.name === item.name)) into.push(item);
    };
    add(clusters, one.clusters);
    add(users, one.users);
    add(contexts, one.contexts);
    currentContext ||= one.getCurrentContext() ?? '';
  }
  const merged = new KubeConfig();
  merged.loadFromOptions({ clusters, users, contexts, currentContext });
  return merged;
}

function selectContext(loaded: LoadedKubeConfig, requested: string | undefined): void {
  const { kubeConfig, source } = loaded;
  const available = kubeConfig.getContexts().map((context) => context.name);
  const list = available.length > 0 ? available.join(', ') : 'none';
  if (requested !== undefined) {
    if (!available.includes(requested))
      throw new KubeConfigError(
        `context "${requested}" is not in the kubeconfig (${source}); available contexts: ${list}`,
      );
    kubeConfig.setCurrentContext(requested);
  }
  const current = kubeConfig.getCurrentContext();
  if (!current || !kubeConfig.getContextObject(current)) {
    throw new KubeConfigError(
      `the kubeconfig (${source}) has no current context${current ? ` ("${current}" is not defined)` : ''}; pass --context (available contexts: ${list})`,
    );
  }
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster?.server)
    throw new KubeConfigError(
      `context "${current}" in the kubeconfig (${source}) names a cluster that is not defined or has no server address`,
    );
}
