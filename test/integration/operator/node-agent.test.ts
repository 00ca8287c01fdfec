/**
 * The Node.js agent for real (issue 7, "Proof"): a small Node HTTP app is admitted through the mutation, its
 * svc-agent-init command copies the agent into a directory standing in for the `svc-agent` volume, and the app starts
 * with exactly the environment the kubelet would give the patched container (literals, the ingest key from the
 * Secret, pod fields, `$(VAR)` expansion). Its spans must reach the reference server and be stored under the
 * workload's name, with the environment and Kubernetes attributes the mutation set.
 */
import type { V1Container, V1Secret } from '@kubernetes/client-node';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_IMAGE_DIR, AGENT_MOUNT_PATH, NODE_AGENT_ENTRY } from '../../../operator/src/markers.js';
import { registerApp } from '../../../server/src/projects/apps-store';
import { admit, deploymentPod, instrumented, namespace, type Admitted } from '../../support/operator/admission';
import { containerProcess, onHost } from '../../support/operator/kubelet-env';
import { controlGet, startTestServer, type TestServer } from '../../support/server';
import { eventually } from '../../support/until';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const OPERATOR = join(ROOT, 'operator');
const NS = 'shop';
const ENV = 'staging';
const START_LINE = (service: string) => `[svc-zero] auto-instrumentation active for ${service} (${ENV})`;

type Row = Record<string, any>;

/**
 * What operator/images/nodejs/Dockerfile assembles under AGENT_IMAGE_DIR: node/register.cjs as `npm run build` made it
 * (test/support/build-server.ts), and the OpenTelemetry packages beside it (here a link to the repository's
 * node_modules, whose versions the image's package.json pins).
 */
function assembleAgentImage(imageDir: string): void {
  mkdirSync(join(imageDir, 'node'), { recursive: true });
  copyFileSync(join(OPERATOR, 'dist/agents/node/register.cjs'), join(imageDir, 'node/register.cjs'));
  symlinkSync(join(ROOT, 'node_modules'), join(imageDir, 'node', 'node_modules'));
}

/** The app: answers every request with what it can see of its own runtime. */
const SERVER_JS = `
const http = require('node:http');
const v8 = require('node:v8');
const server = http.createServer((req, res) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify({ path: req.url, heapLimit: v8.getHeapStatistics().heap_size_limit, nodeOptions: process.env.NODE_OPTIONS ?? null }));
});
server.listen(0, '127.0.0.1', () => console.log('listening on ' + server.address().port));
`;

interface RunningApp {
  child: ChildProcess;
  port: number;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

describe('Node.js agent in a pod admitted by the mutation', () => {
  let t: TestServer;
  let work: string;
  let volume: string;
  let appDir: string;
  let secret: V1Secret;
  const running: ChildProcess[] = [];
  const ns = namespace(NS);
  let setup: ReturnType<typeof instrumented>;

  beforeAll(async () => {
    t = await startTestServer('sqlite');
    work = mkdtempSync(join(tmpdir(), 'svc-node-agent-'));
    const image = join(work, 'image');
    volume = join(work, 'volume');
    appDir = join(work, 'app');
    mkdirSync(volume);
    mkdirSync(appDir);
    writeFileSync(join(appDir, 'server.js'), SERVER_JS);
    writeFileSync(
      join(appDir, 'package.json'),
      JSON.stringify({ name: 'storefront', private: true, scripts: { start: 'node server.js' } }),
    );
    assembleAgentImage(image);
    setup = instrumented(NS, t.url, t.ingestKey, ENV);
    secret = setup.secret;
    const db = t.server.database.db;
    for (const app of ['shop-api', 'billing', 'storefront'])
      await registerApp(db, { now: () => Date.now() }, t.projectId, app);

    // svc-agent-init, as the kubelet runs it: its own command, AGENT_IMAGE_DIR from the image, the volume mounted.
    const { init } = admit(deploymentPod('shop-api', NS, appContainer()), ns, setup.instrumentation);
    const [command, ...args] = (init.command ?? []).map((a) =>
      onHost(a, { [AGENT_IMAGE_DIR]: image, [AGENT_MOUNT_PATH]: volume }),
    );
    const copy = spawnSync(command!, args, { encoding: 'utf8' });
    expect(copy.status, `${init.command?.join(' ')}: ${copy.stderr}`).toBe(0);
    expect(
      existsSync(onHost(NODE_AGENT_ENTRY, { [AGENT_MOUNT_PATH]: volume })),
      'the init container put the agent where NODE_OPTIONS points',
    ).toBe(true);
  });

  afterAll(async () => {
    // Each app is its own process group (npm's child included), as a container's processes are.
    for (const child of running) killGroup(child, 'SIGKILL');
    await t?.close();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  function appContainer(overrides: Partial<V1Container> = {}): V1Container {
    return {
      name: 'api',
      image: 'node:20-alpine',
      command: ['node', '/app/server.js'],
      ports: [{ containerPort: 8080, name: 'http' }],
      ...overrides,
    };
  }

  /** Starts the patched container's process as the kubelet would, here: its env, its command, /app and /svc-agent mapped. */
  async function start(admitted: Admitted): Promise<RunningApp> {
    const mounts = { [AGENT_MOUNT_PATH]: volume, '/app': appDir };
    const { argv, env, cwd } = containerProcess(admitted.app, { pod: admitted.pod, secrets: [secret] }, mounts);
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: cwd ?? appDir,
      // What the image itself provides (node images set PATH; npm's update check stays quiet as in a locked-down
      // image), then the container's env.
      env: { PATH: process.env.PATH ?? '', HOME: work, NPM_CONFIG_UPDATE_NOTIFIER: 'false', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    running.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on('exit', (code, signal) => resolve({ code, signal })),
    );
    await eventually(
      () => `the app to listen (stdout: ${stdout} stderr: ${stderr})`,
      async () => /listening on \d+/.test(stdout) || child.exitCode !== null || undefined,
      { everyMs: 25 },
    );
    const port = Number(/listening on (\d+)/.exec(stdout)?.[1]);
    expect(port, `app did not start: ${stderr}`).toBeGreaterThan(0);
    return { child, port, stdout: () => stdout, stderr: () => stderr, exited };
  }

  async function get(app: RunningApp, path: string): Promise<Row> {
    const res = await fetch(`http://127.0.0.1:${app.port}${path}`);
    expect(res.status).toBe(200);
    return (await res.json()) as Row;
  }

  async function spansOf(service: string): Promise<Row[]> {
    const res = await controlGet(t, `/spans?app=${service}&limit=1000`);
    expect(res.status).toBe(200);
    return res.body.data;
  }

  /** SERVER spans of `service`, once some have arrived. */
  function serverSpans(service: string): Promise<Row[]> {
    return eventually(`SERVER spans of ${service}`, async () => {
      const found = (await spansOf(service)).filter((s) => s.kind === 2);
      return found.length > 0 ? found : undefined;
    });
  }

  it('prints the start line once, keeps the default SIGTERM exit, and its spans are stored under the workload', async () => {
    const admitted = admit(deploymentPod('shop-api', NS, appContainer()), ns, setup.instrumentation);
    expect(admitted.decision).toMatchObject({ injected: true, workload: 'shop-api', lang: 'nodejs' });
    const app = await start(admitted);

    const body = await get(app, '/orders/42?expand=lines');
    expect(body.nodeOptions).toBe(`--require ${onHost(NODE_AGENT_ENTRY, { [AGENT_MOUNT_PATH]: volume })}`);

    // No SIGTERM handler in the app: the agent flushes (holding the process at most EXIT_FLUSH_MS, 2 s), then the
    // process still dies of SIGTERM. The test's timeout bounds the wait: one that swallowed the signal never exits.
    app.child.kill('SIGTERM');
    const exit = await app.exited;
    expect(exit).toEqual({ code: null, signal: 'SIGTERM' });

    const lines = app
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('[svc-zero]'));
    expect(lines).toEqual([START_LINE('shop-api')]);
    expect(app.stdout(), 'the start line goes to stderr, never into the app’s stdout').not.toContain('[svc-zero]');

    const spans = await spansOf('shop-api');
    const server = spans.find((s) => s.kind === 2 && String(s.name).startsWith('GET'));
    expect(server, `an HTTP server span among ${JSON.stringify(spans.map((s) => [s.name, s.kind]))}`).toBeDefined();
    const attributes = server!.attributes as Row;
    expect(attributes['http.request.method'] ?? attributes['http.method']).toBe('GET');
    expect(attributes['url.path'] ?? attributes['http.target']).toMatch(/^\/orders\/42/);
    expect(server!.app).toBe('shop-api');
    expect(server!.resource.attributes).toMatchObject({
      'service.name': 'shop-api',
      'deployment.environment.name': ENV,
      'k8s.namespace.name': NS,
      'k8s.pod.name': admitted.pod.metadata!.name,
      'k8s.deployment.name': 'shop-api',
      'k8s.container.name': 'api',
      'telemetry.distro.name': 'svc-zero',
    });

    // Metrics went the same way (the reader's final collection at shutdown).
    const metrics = await controlGet(t, '/metrics?app=shop-api&limit=1000');
    expect(metrics.status).toBe(200);
    expect(metrics.body.data.map((m) => m.name)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^http\.server\./)]),
    );
  });

  it('keeps the app’s own NODE_OPTIONS (--max-old-space-size) and appends --require after it', async () => {
    const admitted = admit(
      deploymentPod(
        'billing',
        NS,
        appContainer({ env: [{ name: 'NODE_OPTIONS', value: '--max-old-space-size=256' }] }),
      ),
      ns,
      setup.instrumentation,
    );
    const app = await start(admitted);
    const body = await get(app, '/invoices');
    app.child.kill('SIGTERM');
    await app.exited;

    expect(body.nodeOptions).toBe(
      `--max-old-space-size=256 --require ${onHost(NODE_AGENT_ENTRY, { [AGENT_MOUNT_PATH]: volume })}`,
    );
    // V8 applied the app's flag: a 256 MiB old space plus the young generation, far below the default here.
    const defaultLimit = Number(
      spawnSync(process.execPath, ['-p', 'require("v8").getHeapStatistics().heap_size_limit'], { encoding: 'utf8' })
        .stdout,
    );
    expect(body.heapLimit).toBeGreaterThanOrEqual(256 * 2 ** 20);
    expect(body.heapLimit).toBeLessThan(320 * 2 ** 20);
    expect(defaultLimit).not.toBe(body.heapLimit);
    expect(app.stderr()).toContain(START_LINE('billing'));
    expect((await serverSpans('billing')).length).toBeGreaterThan(0);
  });

  it('started through `npm start`: npm itself is left alone, the app it spawns is instrumented once', async () => {
    const admitted = admit(
      deploymentPod('storefront', NS, appContainer({ command: ['npm', 'start'], workingDir: '/app' })),
      ns,
      setup.instrumentation,
    );
    expect(admitted.decision.lang).toBe('nodejs');
    const app = await start(admitted);
    await get(app, '/');
    // npm does not pass SIGTERM on to the script it runs (a container's PID 1 gets the signal): the spans leave with
    // the batch processor's scheduled export instead.
    expect((await serverSpans('storefront')).length).toBeGreaterThan(0);
    killGroup(app.child, 'SIGTERM');
    await app.exited;
    const lines = app
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('[svc-zero]'));
    expect(lines).toEqual([START_LINE('storefront')]);
  });

  it('says on stderr why ingest refused the telemetry of a workload that is no app of the project', async () => {
    const admitted = admit(deploymentPod('ghost', NS, appContainer()), ns, setup.instrumentation);
    const app = await start(admitted);
    await get(app, '/');
    app.child.kill('SIGTERM');
    await app.exited;
    expect(app.stderr()).toContain(START_LINE('ghost'));
    expect(app.stderr()).toMatch(/\[svc-zero\] could not send traces to .*\/otlp\/v1\/traces: HTTP 422 .*ghost/);
  });
});
