/**
 * The Python agent's bootstrap (operator/agents/python/bootstrap/sitecustomize.py), run by python3 with exactly the
 * environment the mutation produces for a Python container, PYTHONPATH's /svc-agent mapped onto the repository's
 * operator/agents: as there, without the OpenTelemetry packages (pip cannot reach PyPI on this machine).
 *
 * The branch where the packages are present is run against a stand-in for the distro's
 * opentelemetry.instrumentation.auto_instrumentation.initialize() in a volume laid out like the image's: it records
 * what the real one would read (the OTEL_* environment, its arguments). That the real distro starts from this
 * bootstrap is checked by the image build (operator/images/python/Dockerfile expects the start line).
 */
import type { V1Container } from '@kubernetes/client-node';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_MOUNT_PATH, PYTHON_AGENT_PATHS } from '../../../operator/src/markers.js';
import { admit, deploymentPod, instrumented, namespace, type Admitted } from '../../support/operator/admission';
import { missingTools } from '../../support/missing-tool';
import { containerProcess } from '../../support/operator/kubelet-env';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const AGENTS_IN_REPO = join(ROOT, 'operator/agents');
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
const skip = missingTools(
  'python-agent',
  python.status === 0 ? [] : ['python3'],
  "the machine's Python 3 runs the agent bootstrap",
);

const NS = 'reports';
const INGEST = 'https://ingest.example.com';
const KEY = 'svc_ing_test-key';
const START_LINE = '[svc-zero] auto-instrumentation active for reports-api (staging)';

/** Prints what the app sees: its own module `sitecustomize` and sys.path. */
const APP = `
import json, sys
import sitecustomize
print(json.dumps({"app_sitecustomize": getattr(sitecustomize, "APP_MARKER", None), "path": sys.path}))
`;

/** Stand-in for the distro's initialize(): records the environment and arguments it is called with. */
const STAND_IN_INITIALIZE = `
import json, os, sys
def initialize(*, swallow_exceptions=True):
    if os.environ.get("STAND_IN_RAISES") == "true":
        raise RuntimeError("instrumenting flask failed")
    sys.stderr.write("[stand-in distro] initialize " + json.dumps({
        "swallow_exceptions": swallow_exceptions,
        "env": {k: v for k, v in os.environ.items() if k.startswith("OTEL_")},
    }) + "\\n")
`;

describe.skipIf(skip)('Python agent bootstrap', () => {
  let work: string;
  let appDir: string;
  let standInVolume: string;
  const setup = instrumented(NS, INGEST, KEY, 'staging');

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'svc-python-agent-'));
    appDir = join(work, 'app');
    mkdirSync(join(appDir, 'lib'), { recursive: true });
    writeFileSync(join(appDir, 'app.py'), APP);
    // An application's own sitecustomize, on its own PYTHONPATH entry.
    writeFileSync(
      join(appDir, 'lib', 'sitecustomize.py'),
      'import sys\nsys.stderr.write("app sitecustomize ran\\n")\nAPP_MARKER = "mine"\n',
    );
    // The image's layout: python/bootstrap (ours, from the repository) and the packages beside it (the stand-in).
    standInVolume = join(work, 'volume');
    const packages = join(standInVolume, 'python');
    mkdirSync(join(packages, 'opentelemetry/instrumentation/auto_instrumentation'), { recursive: true });
    writeFileSync(
      join(packages, 'opentelemetry/instrumentation/auto_instrumentation/__init__.py'),
      STAND_IN_INITIALIZE,
    );
    symlinkSync(join(AGENTS_IN_REPO, 'python/bootstrap'), join(packages, 'bootstrap'));
  });

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function appContainer(env: V1Container['env'] = []): V1Container {
    return { name: 'app', image: 'python:3.12-slim', command: ['python3', '/app/app.py'], env };
  }

  function admitted(env: V1Container['env'] = []): Admitted {
    const result = admit(deploymentPod('reports-api', NS, appContainer(env)), namespace(NS), setup.instrumentation);
    expect(result.decision).toMatchObject({ injected: true, lang: 'python' });
    return result;
  }

  /** Runs the patched container's command, /svc-agent mapped onto `agentDir`, with the kubelet's environment. */
  function runPod(pod: Admitted, agentDir: string, extraEnv: Record<string, string> = {}) {
    const { argv, env } = containerProcess(
      pod.app,
      { pod: pod.pod, secrets: [setup.secret] },
      { [AGENT_MOUNT_PATH]: agentDir, '/app': appDir },
    );
    // The image's own environment first (PYTHONDONTWRITEBYTECODE, as many Python images set it: here it keeps
    // __pycache__ out of the repository), then the container's.
    const image = { PATH: process.env.PATH ?? '', HOME: work, PYTHONDONTWRITEBYTECODE: '1' };
    const result = spawnSync(argv[0]!, argv.slice(1), {
      encoding: 'utf8',
      cwd: work,
      env: { ...image, ...env, ...extraEnv },
    });
    if (result.error) throw result.error;
    const output =
      result.status === 0
        ? (JSON.parse(result.stdout) as { app_sitecustomize: string | null; path: string[] })
        : undefined;
    const recorded = /\[stand-in distro\] initialize (.*)/.exec(result.stderr)?.[1];
    return {
      ...result,
      env,
      output,
      initialize: recorded
        ? (JSON.parse(recorded) as { swallow_exceptions: boolean; env: Record<string, string> })
        : undefined,
      svcLines: result.stderr.split('\n').filter((l) => l.startsWith('[svc-zero]')),
    };
  }

  it('without the OpenTelemetry packages (the repository’s agent dir): one line says so and the app runs unchanged', () => {
    const pod = admitted();
    const result = runPod(pod, AGENTS_IN_REPO);
    expect(result.env.PYTHONPATH).toBe(
      PYTHON_AGENT_PATHS.map((p) => p.replace(AGENT_MOUNT_PATH, AGENTS_IN_REPO)).join(':'),
    );
    expect(result.status, result.stderr).toBe(0);
    expect(result.svcLines).toEqual([
      "[svc-zero] auto-instrumentation not active: the OpenTelemetry packages cannot be imported (No module named 'opentelemetry'); they belong in /svc-agent/python, copied there by the svc-agent-init container",
    ]);
    expect(result.stdout).not.toContain('[svc-zero]');
  });

  it('with the packages: configures OTLP http/protobuf to SVC_INGEST_URL with X-API-Key, calls initialize(), prints the start line', () => {
    const pod = admitted();
    const result = runPod(pod, standInVolume);
    expect(result.status, result.stderr).toBe(0);
    expect(result.svcLines).toEqual([START_LINE]);
    expect(result.initialize?.swallow_exceptions).toBe(false);
    const otel = result.initialize!.env;
    expect(otel).toMatchObject({
      OTEL_SERVICE_NAME: 'reports-api',
      OTEL_EXPORTER_OTLP_ENDPOINT: `${INGEST}/otlp`,
      OTEL_EXPORTER_OTLP_HEADERS: `X-API-Key=${KEY}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
    });
    const attributes = Object.fromEntries(
      otel.OTEL_RESOURCE_ATTRIBUTES!.split(',').map((pair) => pair.split('=') as [string, string]),
    );
    expect(attributes).toMatchObject({
      'k8s.namespace.name': NS,
      'k8s.pod.name': pod.pod.metadata!.name,
      'deployment.environment.name': 'staging',
      'telemetry.distro.name': 'svc-zero',
    });
    // The agent's packages go behind the application's: its own versions of shared libraries win.
    const path = result.output!.path;
    expect(path.at(-1)).toBe(join(standInVolume, 'python'));
    expect(path.indexOf(join(standInVolume, 'python/bootstrap'))).toBeGreaterThanOrEqual(0);
  });

  it('runs the application’s own sitecustomize (further on its PYTHONPATH) first, and the app imports its own module', () => {
    const pod = admitted([{ name: 'PYTHONPATH', value: '/app/lib' }]);
    expect(pod.app.env?.find((e) => e.name === 'PYTHONPATH')?.value).toBe(
      [...PYTHON_AGENT_PATHS, '/app/lib'].join(':'),
    );
    const result = runPod(pod, standInVolume);
    expect(result.status, result.stderr).toBe(0);
    expect(result.output?.app_sitecustomize).toBe('mine');
    expect(result.stderr.indexOf('app sitecustomize ran')).toBeGreaterThanOrEqual(0);
    expect(result.stderr.indexOf('app sitecustomize ran')).toBeLessThan(result.stderr.indexOf(START_LINE));
  });

  it('a failing initialize() costs one line, not the application', () => {
    const result = runPod(admitted(), standInVolume, { STAND_IN_RAISES: 'true' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.output?.path).toBeDefined();
    expect(result.svcLines).toEqual([
      '[svc-zero] auto-instrumentation failed to start: RuntimeError: instrumenting flask failed (the application runs; its telemetry may be incomplete)',
    ]);
  });

  it('without SVC_INGEST_URL (a pod the webhook did not mutate, the agent on PYTHONPATH by hand): disabled, one line', () => {
    const result = spawnSync('python3', [join(appDir, 'app.py')], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        PYTHONDONTWRITEBYTECODE: '1',
        PYTHONPATH: join(standInVolume, 'python/bootstrap'),
      },
    });
    expect(result.status).toBe(0);
    expect(result.stderr.split('\n').filter((l) => l.startsWith('[svc-zero]'))).toEqual([
      '[svc-zero] auto-instrumentation disabled: SVC_INGEST_URL is not set (no SvcInstrumentation ingest URL reached this container)',
    ]);
  });
});
