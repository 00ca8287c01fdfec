/**
 * The environment a container's process gets, computed from its spec the way the kubelet does
 * (pkg/kubelet/kubelet_pods.go makeEnvironmentVariables): `envFrom` sources first, then each `env` entry in order; a
 * literal `value` has `$(VAR)` references to variables defined before it expanded (an undefined reference stays as
 * written, `$$` escapes a `$`); `valueFrom` values (Secret and ConfigMap keys, pod fields) are taken as they are, never
 * expanded. Tests use it to run a process with exactly the environment a mutated pod would give it, with `onHost`
 * standing host directories in for the container's volume paths.
 */
import type { V1ConfigMap, V1Container, V1EnvVarSource, V1Pod, V1Secret } from '@kubernetes/client-node';

export interface KubeletEnvSources {
  /** The pod as the kubelet sees it: after admission, with the name the API server gave it. */
  pod: V1Pod;
  secrets?: V1Secret[];
  configMaps?: V1ConfigMap[];
}

/** Resolves `container`'s environment; throws, as the kubelet refuses to start the container, on a missing source. */
export function kubeletEnv(container: V1Container, sources: KubeletEnvSources): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    const prefix = from.prefix ?? '';
    if (from.secretRef) {
      const data = secretData(sources, from.secretRef.name, from.secretRef.optional === true);
      for (const [key, value] of Object.entries(data ?? {})) env[prefix + key] = value;
    } else if (from.configMapRef) {
      const data = configMapData(sources, from.configMapRef.name, from.configMapRef.optional === true);
      for (const [key, value] of Object.entries(data ?? {})) env[prefix + key] = value;
    }
  }
  for (const variable of container.env ?? []) {
    if (variable.value !== undefined && variable.value !== '') env[variable.name] = expand(variable.value, env);
    else if (variable.valueFrom) {
      const value = valueFrom(variable.valueFrom, sources, variable.name);
      if (value !== undefined) env[variable.name] = value;
    } else env[variable.name] = '';
  }
  return env;
}

/** The process the kubelet starts for a container, with the container's paths rewritten to host directories. */
export interface ContainerProcess {
  argv: string[];
  /** Only the container's own variables: add what the image provides (PATH, HOME, ...) when spawning. */
  env: Record<string, string>;
  cwd: string | undefined;
}

/**
 * `command` + `args` with `$(VAR)` expanded against the container's environment (as the kubelet does), that
 * environment, and the working directory, each path under a key of `mounts` rewritten to its host directory.
 */
export function containerProcess(
  container: V1Container,
  sources: KubeletEnvSources,
  mounts: Readonly<Record<string, string>>,
): ContainerProcess {
  const env = kubeletEnv(container, sources);
  const argv = [...(container.command ?? []), ...(container.args ?? [])].map((arg) => onHost(expand(arg, env), mounts));
  if (argv.length === 0)
    throw new Error(`container ${container.name} has no command: the image's entrypoint is unknown here`);
  return {
    argv,
    env: Object.fromEntries(Object.entries(env).map(([name, value]) => [name, onHost(value, mounts)])),
    cwd: container.workingDir ? onHost(container.workingDir, mounts) : undefined,
  };
}

/**
 * Rewrites container paths in an env value or a command argument to the host directories that stand in for them
 * (`{ '/svc-agent': '/tmp/x/volume' }`): a path matches whole segments, so `/app` does not touch `/application`.
 */
export function onHost(text: string, mounts: Readonly<Record<string, string>>): string {
  const paths = Object.keys(mounts).sort((a, b) => b.length - a.length); // longest first: /svc-agent/java before /svc-agent
  if (paths.length === 0) return text;
  const alternatives = paths.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  // One pass, so a host directory put in is never rewritten again.
  return text.replace(new RegExp(`(?<![\\w/.-])(${alternatives})(?=[/:\\s,=]|$)`, 'g'), (path) => mounts[path] ?? path);
}

/**
 * Kubernetes' `$(VAR)` expansion (third_party/forked/golang/expansion): `$(NAME)` becomes the value of an earlier
 * variable or stays `$(NAME)` when there is none, `$$` becomes `$`, an unclosed `$(` and any other `$x` stay as written.
 */
export function expand(input: string, defined: Readonly<Record<string, string>>): string {
  let out = '';
  let i = 0;
  while (i < input.length) {
    const ch = input[i];
    if (ch !== '$' || i + 1 >= input.length) {
      out += ch;
      i += 1;
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      out += '$';
      i += 2;
    } else if (next === '(') {
      const close = input.indexOf(')', i + 2);
      if (close === -1) {
        out += '$(';
        i += 2;
      } else {
        const name = input.slice(i + 2, close);
        out += Object.prototype.hasOwnProperty.call(defined, name) ? defined[name] : `$(${name})`;
        i = close + 1;
      }
    } else {
      out += `$${next}`;
      i += 2;
    }
  }
  return out;
}

function valueFrom(source: V1EnvVarSource, sources: KubeletEnvSources, name: string): string | undefined {
  if (source.secretKeyRef) {
    const { name: secret, key, optional } = source.secretKeyRef;
    const data = secretData(sources, secret, optional === true);
    const value = data?.[key];
    if (value === undefined && optional !== true)
      throw new Error(`env ${name}: couldn't find key ${key} in Secret ${secret}`);
    return value;
  }
  if (source.configMapKeyRef) {
    const { name: configMap, key, optional } = source.configMapKeyRef;
    const data = configMapData(sources, configMap, optional === true);
    const value = data?.[key];
    if (value === undefined && optional !== true)
      throw new Error(`env ${name}: couldn't find key ${key} in ConfigMap ${configMap}`);
    return value;
  }
  if (source.fieldRef) return podField(sources.pod, source.fieldRef.fieldPath, name);
  throw new Error(`env ${name}: valueFrom ${Object.keys(source).join(', ')} is not supported by this test helper`);
}

/** The downward API fields a container's env can name (pkg/kubelet podFieldSelectorRuntimeValue). */
function podField(pod: V1Pod, path: string, name: string): string {
  const label = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (label) {
    const map = label[1] === 'labels' ? pod.metadata?.labels : pod.metadata?.annotations;
    return map?.[label[2] as string] ?? '';
  }
  const fields: Record<string, string | undefined> = {
    'metadata.name': pod.metadata?.name,
    'metadata.namespace': pod.metadata?.namespace,
    'metadata.uid': pod.metadata?.uid,
    'spec.nodeName': pod.spec?.nodeName,
    'spec.serviceAccountName': pod.spec?.serviceAccountName,
    'status.hostIP': pod.status?.hostIP,
    'status.podIP': pod.status?.podIP,
  };
  if (!(path in fields)) throw new Error(`env ${name}: fieldRef ${path} is not supported`);
  const value = fields[path];
  if (value === undefined)
    throw new Error(
      `env ${name}: the pod has no ${path} (give the test pod one, as the API server or scheduler would)`,
    );
  return value;
}

function secretData(
  sources: KubeletEnvSources,
  name: string | undefined,
  optional: boolean,
): Record<string, string> | undefined {
  const secret = (sources.secrets ?? []).find(
    (s) => s.metadata?.name === name && s.metadata?.namespace === sources.pod.metadata?.namespace,
  );
  if (!secret) {
    if (optional) return undefined;
    throw new Error(`Secret ${sources.pod.metadata?.namespace}/${name} not found`);
  }
  // The API server stores stringData into data (base64); accept either so fixtures can be written plainly.
  const data: Record<string, string> = { ...(secret.stringData ?? {}) };
  for (const [key, value] of Object.entries(secret.data ?? {}))
    data[key] = Buffer.from(value, 'base64').toString('utf8');
  return data;
}

function configMapData(
  sources: KubeletEnvSources,
  name: string | undefined,
  optional: boolean,
): Record<string, string> | undefined {
  const configMap = (sources.configMaps ?? []).find(
    (c) => c.metadata?.name === name && c.metadata?.namespace === sources.pod.metadata?.namespace,
  );
  if (!configMap) {
    if (optional) return undefined;
    throw new Error(`ConfigMap ${sources.pod.metadata?.namespace}/${name} not found`);
  }
  return { ...(configMap.data ?? {}) };
}
