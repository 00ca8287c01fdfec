/**
 * The example apps of examples/ as the end-to-end specs drive them, doing what a user does: pack the SDK
 * (`npm pack` at the repository root, the tarball each example's package.json points at), `npm install` the example,
 * build it with the SDK settings in the framework's environment variables, serve it (production build or dev server)
 * on a free port, and stop it.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join, relative } from 'node:path';
import { REQUIRED_OUTPUTS, ROOT, ensureSdkBuilt } from './build-sdk';
import { childEnv } from './child-env';
import { withLock } from './lock';

export const EXAMPLES_DIR = join(ROOT, 'examples');

const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };

/** Where `npm pack` at the repository root writes the SDK, and where every example's package.json points. */
export const SDK_TARBALL = join(ROOT, `${rootPackage.name.replace(/^@/, '').replace('/', '-')}-${rootPackage.version}.tgz`);

/** Written into an example's node_modules after a successful install; names the tarball and package.json it matches. */
const INSTALL_STAMP = join('node_modules', '.svc-example-install');

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');


/** Output of a finished command, for error messages: the end of it, where the reason usually is. */
const tail = (text: string, lines = 60) => text.split('\n').slice(-lines).join('\n');

/**
 * Runs a command to completion (in its own process group, all of which a timeout kills); resolves its standard
 * output, rejects with its output when it fails or outlives `timeoutMs`.
 */
export function runCommand(cwd: string, command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      killGroup(child.pid, 'SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) did not finish within ${timeoutMs} ms:\n${tail(output)}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${code ?? signal}:\n${tail(output)}`));
    });
  });
}

function killGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Builds the SDK if dist/ is stale and packs it to {@link SDK_TARBALL}, unless the tarball there is already newer than
 * every build output. The new tarball replaces the old one by rename, so an install reading the old one is unaffected.
 */
export async function packSdk(): Promise<string> {
  await ensureSdkBuilt();
  return withLock('sdk-pack', 120_000, async () => {
    const newestOutput = Math.max(...REQUIRED_OUTPUTS.map((output) => statSync(join(ROOT, output)).mtimeMs));
    if ((statSync(SDK_TARBALL, { throwIfNoEntry: false })?.mtimeMs ?? 0) > newestOutput) return SDK_TARBALL;
    const work = mkdtempSync(join(ROOT, '.tmp', 'sdk-pack-'));
    try {
      const stdout = await runCommand(ROOT, 'npm', ['pack', '--pack-destination', work, '--json', '--loglevel=error'], childEnv(), 120_000);
      const [packed] = JSON.parse(stdout) as { filename: string }[];
      if (!packed) throw new Error(`npm pack printed no result: ${stdout}`);
      renameSync(join(work, packed.filename), SDK_TARBALL);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    return SDK_TARBALL;
  });
}

/** How long a step took, for the timings each spec prints. */
export interface Timed {
  step: string;
  ms: number;
  /** True when the step had nothing to do (an install already matching the tarball and package.json). */
  skipped?: boolean;
}

/**
 * `npm install` in an example, with the SDK tarball named explicitly: a plain `npm install` would keep a previously
 * installed tarball of the same version (npm checks the version, not the content). Skipped when the last install was
 * of this very tarball and package.json.
 */
export async function installExample(dir: string): Promise<Timed> {
  const started = Date.now();
  const stamp = `${sha256(SDK_TARBALL)} ${sha256(join(dir, 'package.json'))}\n`;
  const stampPath = join(dir, INSTALL_STAMP);
  if (existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp) return { step: 'install', ms: Date.now() - started, skipped: true };
  const tarball = relative(dir, SDK_TARBALL);
  // --prefer-offline: package metadata already in the npm cache is not revalidated (CRA alone has ~850 packages).
  await runCommand(dir, 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball], childEnv(), 600_000);
  writeFileSync(stampPath, stamp);
  return { step: 'install', ms: Date.now() - started };
}

/** A free TCP port on 127.0.0.1 (free when asked; the app binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** An example being served. */
export interface RunningApp {
  /** e.g. http://127.0.0.1:41234 */
  origin: string;
  /** Everything the server printed so far. */
  output(): string;
  /** Stops the server and every process it started. */
  stop(): Promise<void>;
}

/**
 * Starts a long-running server in its own process group and waits until `GET` of each of `readyPaths` answers 200.
 * Rejects with the server's output when it exits first or is not ready within `timeoutMs`.
 */
export async function startServerProcess(opts: {
  cwd: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  readyPaths: string[];
  timeoutMs: number;
}): Promise<RunningApp> {
  const origin = `http://127.0.0.1:${opts.port}`;
  const child = spawn(opts.command, opts.args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));

  const stop = async () => {
    if (exitedEarly) return;
    killGroup(child.pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  const deadline = Date.now() + opts.timeoutMs;
  for (const path of opts.readyPaths) {
    for (;;) {
      if (exitedEarly) throw new Error(`${opts.command} ${opts.args.join(' ')} exited before serving ${origin}:\n${tail(output)}`);
      try {
        const res = await fetch(origin + path, { signal: AbortSignal.timeout(Math.max(1, deadline - Date.now())) });
        await res.arrayBuffer();
        if (res.status === 200) break;
      } catch {
        // Not listening yet, or still compiling.
      }
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`${origin}${path} did not answer 200 within ${opts.timeoutMs} ms:\n${tail(output)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return { origin, output: () => output, stop };
}

/** What the SDK in an example is told, through the framework's own environment variables or data- attributes. */
export interface SdkSettings {
  ingestUrl: string;
  apiKey: string;
  /** Left unset to exercise the SDK's default (`web-app`). */
  serviceName?: string;
  /** Left unset to exercise the SDK's default (NODE_ENV, else `production`). */
  env?: string;
}

export type Mode = 'production' | 'development';

/** One example app: how to build it and serve it. */
export interface Example {
  name: 'vite-react' | 'next' | 'cra' | 'cdn';
  dir: string;
  /** Modes the issue requires to be proven for this example. */
  modes: readonly Mode[];
  /** Builds the production bundle with `settings` baked in; absent for examples without a build. */
  build?(settings: SdkSettings): Promise<Timed>;
  /** Serves the example on a free port and waits until it answers. */
  start(mode: Mode, settings: SdkSettings): Promise<RunningApp>;
}

/** `PREFIX_SVC_*` variables for the settings that are set. */
function prefixed(prefix: string, settings: SdkSettings): Record<string, string> {
  const env: Record<string, string> = {
    [`${prefix}SVC_API_KEY`]: settings.apiKey,
    [`${prefix}SVC_INGEST_URL`]: settings.ingestUrl,
  };
  if (settings.serviceName !== undefined) env[`${prefix}SVC_SERVICE_NAME`] = settings.serviceName;
  if (settings.env !== undefined) env[`${prefix}SVC_ENV`] = settings.env;
  return env;
}

const bin = (dir: string, name: string) => join(dir, 'node_modules', '.bin', name);

async function timed(step: string, work: () => Promise<unknown>): Promise<Timed> {
  const started = Date.now();
  await work();
  return { step, ms: Date.now() - started };
}

/** Production builds of Next.js and CRA take about a minute on two cores; dev servers compile on first request. */
const BUILD_TIMEOUT_MS = 300_000;
const START_TIMEOUT_MS = 120_000;

function viteReact(): Example {
  const dir = join(EXAMPLES_DIR, 'vite-react');
  return {
    name: 'vite-react',
    dir,
    modes: ['production', 'development'],
    build: (settings) =>
      timed('build', () => runCommand(dir, 'npm', ['run', 'build', '--silent'], childEnv(prefixed('VITE_', settings)), BUILD_TIMEOUT_MS)),
    async start(mode, settings) {
      const port = await freePort();
      const args = mode === 'production' ? ['preview'] : [];
      return startServerProcess({
        cwd: dir,
        command: bin(dir, 'vite'),
        args: [...args, '--host', '127.0.0.1', '--port', String(port), '--strictPort'],
        // `vite preview` serves what `build` made; the dev server reads the variables itself.
        env: childEnv(prefixed('VITE_', settings)),
        port,
        readyPaths: ['/'],
        timeoutMs: START_TIMEOUT_MS,
      });
    },
  };
}

function next(): Example {
  const dir = join(EXAMPLES_DIR, 'next');
  // No internet on the test machines: Next.js must not try to send its usage telemetry.
  const env = (settings: SdkSettings) => childEnv({ ...prefixed('NEXT_PUBLIC_', settings), NEXT_TELEMETRY_DISABLED: '1' });
  return {
    name: 'next',
    dir,
    modes: ['production', 'development'],
    build: (settings) => timed('build', () => runCommand(dir, bin(dir, 'next'), ['build'], env(settings), BUILD_TIMEOUT_MS)),
    async start(mode, settings) {
      const port = await freePort();
      return startServerProcess({
        cwd: dir,
        command: bin(dir, 'next'),
        args: [mode === 'production' ? 'start' : 'dev', '--hostname', '127.0.0.1', '--port', String(port)],
        env: env(settings),
        port,
        // The dev server compiles each route on its first request: have both compiled before the browser comes.
        readyPaths: ['/', '/api/echo'],
        timeoutMs: START_TIMEOUT_MS,
      });
    },
  };
}

function cra(): Example {
  const dir = join(EXAMPLES_DIR, 'cra');
  return {
    name: 'cra',
    dir,
    modes: ['production'],
    // CI=true: warnings fail the build, as on a user's CI; so a warning the SDK causes in webpack fails this test.
    build: (settings) =>
      timed('build', () => runCommand(dir, bin(dir, 'react-scripts'), ['build'], childEnv({ ...prefixed('REACT_APP_', settings), CI: 'true' }), BUILD_TIMEOUT_MS)),
    async start(_mode, _settings) {
      const port = await freePort();
      return startServerProcess({
        cwd: dir,
        command: process.execPath,
        args: ['serve.js'],
        env: childEnv({ PORT: String(port) }),
        port,
        readyPaths: ['/'],
        timeoutMs: START_TIMEOUT_MS,
      });
    },
  };
}

function cdn(): Example {
  const dir = join(EXAMPLES_DIR, 'cdn');
  return {
    name: 'cdn',
    dir,
    modes: ['production'],
    async start(_mode, settings) {
      const port = await freePort();
      return startServerProcess({
        cwd: dir,
        command: process.execPath,
        args: ['server.js'],
        env: childEnv({ ...prefixed('', settings), PORT: String(port) }),
        port,
        readyPaths: ['/'],
        timeoutMs: START_TIMEOUT_MS,
      });
    },
  };
}

export const EXAMPLES = { 'vite-react': viteReact(), next: next(), cra: cra(), cdn: cdn() } as const;

/** Packs the SDK and installs it into `example`; returns what each step took. */
export async function prepareExample(example: Example): Promise<Timed[]> {
  const pack = await timed('pack', () => packSdk());
  return [pack, await installExample(example.dir)];
}

/** One line per step, e.g. `next: pack 2.1 s, install (cached) 0.0 s, build 61.3 s`. */
export function formatTimings(name: string, timings: Timed[]): string {
  const parts = timings.map((t) => `${t.step}${t.skipped ? ' (cached)' : ''} ${(t.ms / 1000).toFixed(1)} s`);
  return `${name}: ${parts.join(', ')}`;
}
