import { isDeepStrictEqual } from 'node:util';
import type { V1Secret } from '@kubernetes/client-node';
import { normalizeLanguage } from '../../detect/index.js';
import {
  API_KEY_SECRET,
  API_KEY_SECRET_KEY,
  CRD_API_VERSION,
  CRD_KIND,
  DEFAULT_INSTRUMENTATION_NAME,
  INGEST_URL_ENV,
} from '../../markers.js';
import {
  AGENT_LANGUAGES,
  type Strategy,
  type SvcInstrumentation,
  type SvcInstrumentationSpec,
} from '../../resource/types.js';
import type { Flags } from '../args.js';
import { connect, type Cluster } from '../cluster.js';
import { UsageError } from '../errors.js';
import type { CliIo } from '../io.js';
import { namespaceName, requireNamespace, unknownNamespace } from '../namespace.js';
import { resourcePath, type ObjectRef } from '../resources.js';
import { ingestUrlProblem } from '../../resource/ingest-url.js';
import { formatTable } from '../table.js';
import type { Command } from './command.js';

/** Set on what the CLI creates, so `kubectl get secret,oti -l app.kubernetes.io/managed-by=svc-zero` finds it. */
export const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'svc-zero' };
/** The variable that can carry the key instead of the flag (SPEC 5 names it for the SDK), keeping it out of shell history. */
const API_KEY_ENV = 'SVC_API_KEY';

type Outcome = 'created' | 'updated' | 'unchanged';

export const instrumentCommand: Command = {
  name: 'instrument',
  summary: 'instrument a namespace: create or update its Secret svc-zero-api-key and SvcInstrumentation "default"',
  usage: `Usage: svc-zero instrument --namespace=<namespace> --api-key=<API_KEY> [--ingest-url=<url>] [--strategy=sdk|ebpf]
                           [--env=<environment>] [--language-hint=<workload>=<language>]...

Creates (or updates) in the namespace the Secret ${API_KEY_SECRET} holding the ingest key and the SvcInstrumentation
(oti) "${DEFAULT_INSTRUMENTATION_NAME}" that tells svc-zero to inject agents into new pods. Running it again with the same values
changes nothing; flags not given keep their current value. The key is never printed.

Options:
  --namespace=<ns>            namespace to instrument (must exist)
  --api-key=<key>             ingest key (or set ${API_KEY_ENV})
  --ingest-url=<url>          where agents send telemetry (<url>/otlp/v1/...); default: ${INGEST_URL_ENV}, else the
                              operator's install value ingestUrl
  --strategy=sdk|ebpf         sdk (default): an OpenTelemetry agent in the app; ebpf: the svc-ebpf sidecar
  --env=<environment>         deployment.environment of the telemetry (default: the namespace name)
  --language-hint=<w>=<lang>  language of workload <w> when detection guesses wrong (repeatable), e.g. checkout=java
  --kubeconfig=<path>, --context=<name>`,
  options: {
    namespace: { type: 'string', short: 'n' },
    'api-key': { type: 'string' },
    'ingest-url': { type: 'string' },
    strategy: { type: 'string' },
    env: { type: 'string' },
    'language-hint': { type: 'string', multiple: true },
  },
  async run(flags, io) {
    const request = parseRequest(flags, io);
    const cluster = connect(flags, io);
    await requireNamespace(cluster, request.namespace);
    await cluster.requireCrd();

    const secret = await upsertSecret(cluster, request.namespace, request.apiKey);
    const oti = await upsertInstrumentation(cluster, request, io);

    io.out(`Namespace ${request.namespace} (${cluster.where}):`);
    io.out(
      formatTable([
        [`  secret/${API_KEY_SECRET}`, secret.outcome, `key "${API_KEY_SECRET_KEY}" (value not shown)`],
        [`  svcinstrumentation/${DEFAULT_INSTRUMENTATION_NAME}`, oti.outcome, oti.detail],
      ]),
    );
    if (secret.outcome === 'unchanged' && oti.outcome === 'unchanged') {
      io.out(`Nothing to change: ${request.namespace} is already instrumented this way.`);
    } else {
      io.out(
        `New pods in ${request.namespace} get the agent when they are created. Restart running workloads to instrument them:`,
      );
      io.out(`  kubectl -n ${request.namespace} rollout restart deployment,statefulset,daemonset`);
    }
    io.out(`Detection results and injection state: svc-zero status --namespace=${request.namespace}`);
    for (const note of oti.notes) io.err(`note: ${note}`);
    return 0;
  },
};

interface InstrumentRequest {
  namespace: string;
  apiKey: string;
  ingestUrl: string | undefined;
  strategy: Strategy | undefined;
  env: string | undefined;
  hints: Record<string, string>;
}

function parseRequest(flags: Flags, io: CliIo): InstrumentRequest {
  const namespace = namespaceName(flags.required('namespace', 'namespace'));
  const apiKey = flags.required('api-key', 'API_KEY', io.env[API_KEY_ENV]);
  // Agents send the key in a header: whitespace or control characters would break it (usually a pasted newline).
  if (/[\s\x00-\x1f\x7f]/.test(apiKey))
    throw new UsageError('the API key contains whitespace or control characters; pass it exactly as issued');
  const ingestUrl = flags.string('ingest-url');
  if (ingestUrl !== undefined) checkIngestUrl(ingestUrl, '--ingest-url');
  const strategy = flags.string('strategy');
  if (strategy !== undefined && strategy !== 'sdk' && strategy !== 'ebpf')
    throw new UsageError(`--strategy must be sdk or ebpf, got "${strategy}"`);
  const env = flags.string('env');
  if (env !== undefined && env.trim() === '') throw new UsageError('--env must not be empty');
  const hints: Record<string, string> = {};
  for (const hint of flags.list('language-hint')) {
    const eq = hint.indexOf('=');
    const workload = hint.slice(0, eq);
    if (eq <= 0 || !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(workload)) {
      throw new UsageError(`--language-hint expects <workload>=<language>, e.g. checkout=java; got "${hint}"`);
    }
    const language = normalizeLanguage(hint.slice(eq + 1));
    if (!language)
      throw new UsageError(
        `--language-hint ${hint}: unknown language "${hint.slice(eq + 1)}" (nodejs, java, python, go, dotnet, ruby, php)`,
      );
    hints[workload] = language;
  }
  return { namespace, apiKey, ingestUrl, strategy, env, hints };
}

function checkIngestUrl(value: string, source: string): void {
  const problem = ingestUrlProblem(value, source);
  if (problem) throw new UsageError(problem);
}

async function upsertSecret(cluster: Cluster, namespace: string, apiKey: string): Promise<{ outcome: Outcome }> {
  const ref: ObjectRef = { apiVersion: 'v1', kind: 'Secret', namespace, name: API_KEY_SECRET };
  const action = { resource: 'secrets', namespace, name: API_KEY_SECRET } as const;
  const encoded = Buffer.from(apiKey, 'utf8').toString('base64');
  let live: V1Secret | undefined;
  try {
    live = await cluster.rest.find<V1Secret>(resourcePath(ref).path);
  } catch (error) {
    throw cluster.fail(error, { verb: 'get', ...action });
  }
  try {
    if (!live) {
      const secret: V1Secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: { name: API_KEY_SECRET, namespace, labels: { ...MANAGED_BY } },
        data: { [API_KEY_SECRET_KEY]: encoded },
      };
      await cluster.rest.post(resourcePath({ ...ref, name: undefined }).path, secret);
      return { outcome: 'created' };
    }
    if (live.data?.[API_KEY_SECRET_KEY] === encoded) return { outcome: 'unchanged' };
    // Other keys someone added stay; resourceVersion makes a concurrent change fail (409) instead of being lost.
    await cluster.rest.put(resourcePath(ref).path, { ...live, data: { ...live.data, [API_KEY_SECRET_KEY]: encoded } });
    return { outcome: 'updated' };
  } catch (error) {
    if (isMissingNamespace(error)) throw unknownNamespace(namespace, cluster);
    throw cluster.fail(error, { verb: live ? 'update' : 'create', ...action });
  }
}

async function upsertInstrumentation(
  cluster: Cluster,
  request: InstrumentRequest,
  io: CliIo,
): Promise<{ outcome: Outcome; detail: string; notes: string[] }> {
  const { namespace } = request;
  const ref: ObjectRef = { apiVersion: CRD_API_VERSION, kind: CRD_KIND, namespace, name: DEFAULT_INSTRUMENTATION_NAME };
  const action = { resource: resourcePath(ref).resource, namespace, name: DEFAULT_INSTRUMENTATION_NAME } as const;
  let live: SvcInstrumentation | undefined;
  try {
    live = await cluster.rest.find<SvcInstrumentation>(resourcePath(ref).path);
  } catch (error) {
    throw cluster.fail(error, { verb: 'get', ...action });
  }
  // Without a URL here the operator's install-time default applies (install value ingestUrl).
  const fromEnv = io.env[INGEST_URL_ENV] || undefined;
  const ingestUrl = request.ingestUrl ?? live?.spec.ingestUrl ?? fromEnv;
  if (request.ingestUrl === undefined && !live?.spec.ingestUrl && fromEnv !== undefined)
    checkIngestUrl(fromEnv, INGEST_URL_ENV);

  // Flags given replace those fields; everything else (agents, minConfidence, other hints) stays as it is.
  const spec: SvcInstrumentationSpec = {
    ...live?.spec,
    ...(ingestUrl ? { ingestUrl } : {}),
    apiKeySecretRef: { name: API_KEY_SECRET, key: API_KEY_SECRET_KEY },
    ...(request.strategy ? { strategy: request.strategy } : {}),
    ...(request.env ? { env: request.env } : {}),
  };
  const hints = { ...live?.spec.languageHints, ...request.hints };
  if (Object.keys(hints).length > 0) spec.languageHints = hints;

  const strategy = spec.strategy ?? 'sdk';
  const detail = `ingest ${ingestUrl ?? "the operator's default"}, strategy ${strategy}${spec.env ? `, env ${spec.env}` : ''}`;
  const notes = Object.entries(request.hints)
    .filter(([, language]) => strategy === 'sdk' && !(AGENT_LANGUAGES as readonly string[]).includes(language))
    .map(
      ([workload, language]) =>
        `there is no SDK agent for ${language}: ${workload} is only instrumented with --strategy=ebpf`,
    );
  try {
    if (!live) {
      const body: SvcInstrumentation = {
        apiVersion: CRD_API_VERSION,
        kind: CRD_KIND,
        metadata: { name: DEFAULT_INSTRUMENTATION_NAME, namespace, labels: { ...MANAGED_BY } },
        spec,
      };
      await cluster.rest.post(resourcePath({ ...ref, name: undefined }).path, body);
      return { outcome: 'created', detail, notes };
    }
    if (isDeepStrictEqual(normalized(live.spec), normalized(spec))) return { outcome: 'unchanged', detail, notes };
    const changed = (Object.keys(spec) as (keyof SvcInstrumentationSpec)[]).filter(
      (key) => !isDeepStrictEqual(live?.spec[key], spec[key]),
    );
    await cluster.rest.put(resourcePath(ref).path, { ...live, spec });
    return { outcome: 'updated', detail: `${detail} (changed: ${changed.join(', ')})`, notes };
  } catch (error) {
    if (isMissingNamespace(error)) throw unknownNamespace(namespace, cluster);
    throw cluster.fail(error, { verb: live ? 'update' : 'create', ...action });
  }
}

/** The API server fills `strategy: sdk` from the CRD default; an unset strategy and `sdk` mean the same. */
function normalized(spec: SvcInstrumentationSpec): SvcInstrumentationSpec {
  return { ...spec, strategy: spec.strategy ?? 'sdk' };
}

/** A create in a namespace that does not exist: 404 NotFound naming the namespace. */
function isMissingNamespace(error: unknown): boolean {
  const body =
    (error as { code?: number; body?: unknown }).code === 404 ? (error as { body?: unknown }).body : undefined;
  return typeof body === 'string' && /"kind":\s*"namespaces"/.test(body);
}
