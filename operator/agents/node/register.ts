/**
 * The svc-zero Node.js agent. The admission webhook appends `--require /svc-agent/node/register.cjs` to the
 * application container's NODE_OPTIONS, so this runs inside the application's process before its own code: it starts
 * the OpenTelemetry Node SDK with the auto-instrumentations and exports traces, metrics and logs over OTLP
 * http/protobuf to `$SVC_INGEST_URL/otlp/v1/<signal>` with the ingest key in `X-API-Key` (SPEC 4, 5).
 *
 * It lives in someone else's process, so it must never break it: everything is guarded, a problem costs one line on
 * stderr and the application runs uninstrumented. Lines go to stderr, not stdout, because stdout is often the
 * application's data channel (a CLI's output, JSON logs parsed line by line) and `kubectl logs` shows both streams.
 */
import type * as AutoInstrumentations from '@opentelemetry/auto-instrumentations-node';
import type * as LogExporter from '@opentelemetry/exporter-logs-otlp-proto';
import type * as MetricExporter from '@opentelemetry/exporter-metrics-otlp-proto';
import type * as TraceExporter from '@opentelemetry/exporter-trace-otlp-proto';
import type * as SdkNode from '@opentelemetry/sdk-node';
import type { core, NodeSDK } from '@opentelemetry/sdk-node';
import type { IncomingMessage } from 'node:http';
import { basename, extname } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { version as AGENT_VERSION } from '../../package.json';

const PREFIX = '[svc-zero]';
/** Set on globalThis once the agent ran, so a second `--require` (another path, a copy) in the same process is a no-op. */
const LOADED = Symbol.for('svc-zero.node-agent');
/** Per export, retries included (an unreachable ingest is retried with backoff until then). */
const EXPORT_TIMEOUT_MS = 5_000;
/** How long the final flush may hold an ending process (SIGTERM, or a script whose work is done). */
const EXIT_FLUSH_MS = 2_000;
/** Instrumentations that produce a span per file or socket operation: noise and overhead, off unless asked for. */
const NOISY_INSTRUMENTATIONS = [
  '@opentelemetry/instrumentation-fs',
  '@opentelemetry/instrumentation-dns',
  '@opentelemetry/instrumentation-net',
] as const;
/**
 * Package-manager processes that inherit NODE_OPTIONS (`npm start`, `npx`, `yarn`, `pnpm`, corepack shims): they only
 * spawn the real application, which loads the agent itself. Matched on the main script's file name, as launched
 * through a bin link (`/usr/local/bin/npm`) or directly (`npm-cli.js`, `.yarn/releases/yarn-4.5.0.cjs`, `pnpm.cjs`).
 */
const PACKAGE_MANAGER_SCRIPT =
  /^(?:npm|npx|npm-cli\.js|npx-cli\.js|yarn|yarnpkg|pnpm|pnpx|corepack)$|^(?:yarn|pnpm|corepack)(?:-[\w.-]+)?\.c?js$/;

type Signal = 'traces' | 'metrics' | 'logs';

/** The OpenTelemetry packages, installed beside this file in the agent image (AGENT_IMAGE_DIR/node/node_modules). */
interface OpenTelemetry {
  sdk: typeof SdkNode;
  auto: typeof AutoInstrumentations;
  traceExporter: typeof TraceExporter;
  metricExporter: typeof MetricExporter;
  logExporter: typeof LogExporter;
}

/**
 * Loaded with require() inside the guard rather than imported: bundled imports would run at the top of the file,
 * outside any try, and a missing or broken package would then crash the application instead of costing one line.
 */
function loadOpenTelemetry(): OpenTelemetry {
  /* eslint-disable @typescript-eslint/no-require-imports -- see above: loading must happen inside the guard */
  return {
    sdk: require('@opentelemetry/sdk-node') as typeof SdkNode,
    auto: require('@opentelemetry/auto-instrumentations-node') as typeof AutoInstrumentations,
    traceExporter: require('@opentelemetry/exporter-trace-otlp-proto') as typeof TraceExporter,
    metricExporter: require('@opentelemetry/exporter-metrics-otlp-proto') as typeof MetricExporter,
    logExporter: require('@opentelemetry/exporter-logs-otlp-proto') as typeof LogExporter,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

function say(line: string): void {
  try {
    process.stderr.write(`${PREFIX} ${line}\n`);
  } catch {
    // stderr closed: nothing left to tell anyone.
  }
}

/** OTEL_RESOURCE_ATTRIBUTES (`k=v,k2=v2`, values percent-encoded) as a map; malformed pairs are skipped. */
function resourceAttributesFromEnv(raw: string | undefined): Map<string, string> {
  const attributes = new Map<string, string>();
  for (const pair of (raw ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    try {
      attributes.set(key, decodeURIComponent(value));
    } catch {
      attributes.set(key, value);
    }
  }
  return attributes;
}

/** The name telemetry is stored under: OTEL_SERVICE_NAME (the webhook sets the workload name), then what the app says. */
function serviceNameOf(env: NodeJS.ProcessEnv, attributes: Map<string, string>, script: string | undefined): string {
  const script_ = script ? basename(script, extname(script)) : '';
  return (
    env.OTEL_SERVICE_NAME?.trim() ||
    attributes.get('service.name') ||
    env.npm_package_name?.trim() || // started through `npm start`: the application's package name
    script_ ||
    'unknown_service:node'
  );
}

function environmentOf(env: NodeJS.ProcessEnv, attributes: Map<string, string>): string {
  return (
    env.SVC_ENV?.trim() ||
    attributes.get('deployment.environment.name') ||
    attributes.get('deployment.environment') ||
    'unknown'
  );
}

/** Why this process should not be instrumented, or undefined when it should. */
function reasonToStayOut(
  env: NodeJS.ProcessEnv,
  script: string | undefined,
): { reason: string; quiet: boolean } | undefined {
  // Preload modules run again in every worker thread; the SDK of the main thread is the process's one.
  if (!isMainThread) return { reason: 'worker thread', quiet: true };
  if (script === undefined) return { reason: 'no application script (node -e, -p, REPL or stdin)', quiet: true };
  if (PACKAGE_MANAGER_SCRIPT.test(basename(script))) return { reason: 'package manager', quiet: true };
  if (/^true$/i.test(env.OTEL_SDK_DISABLED?.trim() ?? '')) return { reason: 'OTEL_SDK_DISABLED is true', quiet: false };
  if (!env.SVC_INGEST_URL?.trim())
    return {
      reason: 'SVC_INGEST_URL is not set (no SvcInstrumentation ingest URL reached this container)',
      quiet: false,
    };
  if (!env.SVC_API_KEY?.trim())
    return {
      reason: 'SVC_API_KEY is not set (the ingest key Secret was not mounted into this container)',
      quiet: false,
    };
  return undefined;
}

/** `$SVC_INGEST_URL` without trailing slashes, checked to be an http(s) URL. */
function ingestBase(raw: string): string {
  const base = raw.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new Error(`SVC_INGEST_URL is not a valid URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`SVC_INGEST_URL must be an http(s) URL, not ${url.protocol}`);
  return base;
}

/**
 * Says once on stderr when an export fails (wrong key: 401/403; a service name that is no app of the key's project:
 * 422), and again only after an export has succeeded in between, so a broken setup is visible without flooding logs.
 */
function reportFailures<E extends { export: (items: never, done: (result: core.ExportResult) => void) => void }>(
  exporter: E,
  signal: Signal,
  url: string,
  success: core.ExportResultCode,
): E {
  const original = exporter.export.bind(exporter) as (
    items: unknown,
    done: (result: core.ExportResult) => void,
  ) => void;
  let failing = false;
  const wrapped = (items: unknown, done: (result: core.ExportResult) => void) =>
    original(items, (result) => {
      if (result.code === success) failing = false;
      else if (!failing) {
        failing = true;
        say(`could not send ${signal} to ${url}: ${describeExportError(result.error)}`);
      }
      done(result);
    });
  exporter.export = wrapped as E['export'];
  return exporter;
}

function describeExportError(error: Error | undefined): string {
  if (!error) return 'unknown error';
  const { code, data } = error as Error & { code?: unknown; data?: unknown };
  const status = typeof code === 'number' ? `HTTP ${code} ` : '';
  const body = typeof data === 'string' && data ? ` ${data.slice(0, 300)}` : '';
  return `${status}${error.message}${body}`.trim();
}

function instrumentationConfig(env: NodeJS.ProcessEnv): AutoInstrumentations.InstrumentationConfigMap {
  // Programmatic settings win over OTEL_NODE_ENABLED_INSTRUMENTATIONS: when the user names what they want, only that counts.
  const config: AutoInstrumentations.InstrumentationConfigMap = env.OTEL_NODE_ENABLED_INSTRUMENTATIONS
    ? {}
    : Object.fromEntries(NOISY_INSTRUMENTATIONS.map((name) => [name, { enabled: false }]));
  // Kubelet HTTP probes hit the app every few seconds; a span for each would drown the real traffic.
  config['@opentelemetry/instrumentation-http'] = {
    ignoreIncomingRequestHook: (request: IncomingMessage) => /^kube-probe\//.test(request.headers['user-agent'] ?? ''),
  };
  return config;
}

function createSdk(otel: OpenTelemetry, base: string, apiKey: string, service: string, environment: string): NodeSDK {
  const { sdk } = otel;
  const headers = { 'X-API-Key': apiKey };
  const url = (signal: Signal) => `${base}/otlp/v1/${signal}`;
  const options = (signal: Signal) => ({ url: url(signal), headers, timeoutMillis: EXPORT_TIMEOUT_MS });
  const watched = <E extends Parameters<typeof reportFailures>[0]>(exporter: E, signal: Signal) =>
    reportFailures(exporter, signal, url(signal), sdk.core.ExportResultCode.SUCCESS);
  const metricInterval = Number(process.env.OTEL_METRIC_EXPORT_INTERVAL) || 60_000;
  return new sdk.NodeSDK({
    serviceName: service,
    // Merged under what the resource detectors find (OTEL_RESOURCE_ATTRIBUTES, process, host), which take precedence.
    resource: sdk.resources.defaultResource().merge(
      sdk.resources.resourceFromAttributes({
        'deployment.environment.name': environment,
        'telemetry.distro.name': 'svc-zero',
        'telemetry.distro.version': AGENT_VERSION,
      }),
    ),
    traceExporter: watched(new otel.traceExporter.OTLPTraceExporter(options('traces')), 'traces'),
    metricReaders: [
      new sdk.metrics.PeriodicExportingMetricReader({
        exporter: watched(new otel.metricExporter.OTLPMetricExporter(options('metrics')), 'metrics'),
        exportIntervalMillis: metricInterval,
        exportTimeoutMillis: Math.min(EXPORT_TIMEOUT_MS, metricInterval),
      }),
    ],
    logRecordProcessors: [
      new sdk.logs.BatchLogRecordProcessor({
        exporter: watched(new otel.logExporter.OTLPLogExporter(options('logs')), 'logs'),
      }),
    ],
    instrumentations: [otel.auto.getNodeAutoInstrumentations(instrumentationConfig(process.env))],
  });
}

function raceTimeout(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([
    work.then(
      () => undefined,
      () => undefined,
    ),
    timeout,
  ]).finally(() => clearTimeout(timer));
}

/**
 * Flushes what is buffered when the process ends, without changing how it ends and holding it at most EXIT_FLUSH_MS.
 *
 * SIGTERM: a listener replaces Node's default action (exit). When the app has no SIGTERM handler of its own, ours
 * flushes and then re-raises the signal with the default action restored, so the process still dies of SIGTERM. When
 * the app handles SIGTERM itself, it decides when to exit; the flush runs meanwhile.
 *
 * beforeExit (the event loop drained: a script or job finished): the exports would keep the loop alive while an
 * unreachable ingest is retried (up to EXPORT_TIMEOUT_MS), so past EXIT_FLUSH_MS the process exits with the exit code it
 * was going to have.
 */
function flushOnExit(sdk: NodeSDK): void {
  let shutdown: Promise<void> | undefined;
  let finished = false;
  const stop = () =>
    (shutdown ??= sdk.shutdown().then(
      () => void (finished = true),
      () => void (finished = true),
    ));
  const onSigterm = () => {
    const flushed = raceTimeout(stop(), EXIT_FLUSH_MS);
    if (process.listenerCount('SIGTERM') > 1) return;
    void flushed.then(() => {
      process.removeListener('SIGTERM', onSigterm);
      process.kill(process.pid, 'SIGTERM');
    });
  };
  process.on('SIGTERM', onSigterm);
  process.once('beforeExit', () => {
    void raceTimeout(stop(), EXIT_FLUSH_MS).then(() => {
      if (!finished) process.exit();
    });
  });
}

function start(): void {
  const holder = globalThis as { [LOADED]?: boolean };
  if (holder[LOADED]) return;
  holder[LOADED] = true;

  const env = process.env;
  const script = process.argv[1];
  const stayOut = reasonToStayOut(env, script);
  if (stayOut) {
    if (!stayOut.quiet) say(`auto-instrumentation disabled: ${stayOut.reason}`);
    return;
  }
  const attributes = resourceAttributesFromEnv(env.OTEL_RESOURCE_ATTRIBUTES);
  const service = serviceNameOf(env, attributes, script);
  const environment = environmentOf(env, attributes);
  const base = ingestBase(env.SVC_INGEST_URL ?? '');
  const sdk = createSdk(loadOpenTelemetry(), base, (env.SVC_API_KEY ?? '').trim(), service, environment);
  sdk.start();
  flushOnExit(sdk);
  say(`auto-instrumentation active for ${service} (${environment})`);
}

try {
  start();
} catch (error) {
  // First line only: "Cannot find module" errors append the whole require stack.
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  say(`auto-instrumentation disabled: ${message}`);
}
