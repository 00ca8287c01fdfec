/**
 * The example apps of examples/ as the end-to-end specs drive them, doing what a user does: pack the SDK
 * (`npm pack` at the repository root), the build plugin `@svc/build` (`npm pack -w bundler-plugin`) and
 * `@svc/playwright` (`npm pack -w playwright`, for the Vite example's Playwright suite), the tarballs
 * the examples' package.json point at, `npm install` the example, build it with the SDK settings in the framework's
 * environment variables and upload its source maps (the plugin during the build, or `svc-server sourcemaps upload`
 * after it), serve it (production build or dev server) on a free port, and stop it.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { basename, join, relative } from 'node:path';
import { staleness } from '../../build/stale';
import { REQUIRED_OUTPUTS, ROOT, ensureSdkBuilt } from './build-sdk';
import { childEnv } from './child-env';
import { withLock } from './lock';

export const EXAMPLES_DIR = join(ROOT, 'examples');

const packageAt = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name: string; version: string };

/** The file `npm pack` names a package's tarball, at the repository root: `@svc/browser` 0.1.0 → svc-browser-0.1.0.tgz. */
const tarballOf = ({ name, version }: { name: string; version: string }) =>
  join(ROOT, `${name.replace(/^@/, '').replace('/', '-')}-${version}.tgz`);

/** Where `npm pack` at the repository root writes the SDK, and where every example's package.json points. */
export const SDK_TARBALL = tarballOf(packageAt(ROOT));

const BUILD_PLUGIN_DIR = join(ROOT, 'bundler-plugin');

/** The packed `@svc/build`, which the Vite and Next.js examples' package.json point at. */
export const BUILD_PLUGIN_TARBALL = tarballOf(packageAt(BUILD_PLUGIN_DIR));

const PLAYWRIGHT_DIR = join(ROOT, 'playwright');

/** The packed `@svc/playwright`, which the Vite example's Playwright suite installs. */
export const PLAYWRIGHT_TARBALL = tarballOf(packageAt(PLAYWRIGHT_DIR));

/** Written into an example's node_modules after a successful install; names the tarballs and package.json it matches. */
const INSTALL_STAMP = join('node_modules', '.svc-example-install');

const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Output of a finished command, for error messages: the end of it, where the reason usually is. */
const tail = (text: string, lines = 60) => text.split('\n').slice(-lines).join('\n');

/**
 * Runs a command to completion (in its own process group, all of which a timeout kills); resolves its standard
 * output, rejects with its output when it fails or outlives `timeoutMs`.
 */
export function runCommand(
  cwd: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<string> {
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
      reject(
        new Error(`${command} ${args.join(' ')} (in ${cwd}) did not finish within ${timeoutMs} ms:\n${tail(output)}`),
      );
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else
        reject(new Error(`${command} ${args.join(' ')} (in ${cwd}) exited with ${code ?? signal}:\n${tail(output)}`));
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
 * `npm pack` with `args` (none for the root package, `-w <dir>` for a workspace) into `tarball`. The new tarball
 * replaces the old one by rename, so an install reading the old one is unaffected; an identical one (npm packs with
 * fixed timestamps) leaves the old file in place, so its hash, and the installs stamped with it, stay valid.
 */
async function packInto(tarball: string, args: string[]): Promise<void> {
  const work = mkdtempSync(join(ROOT, '.tmp', 'pack-'));
  try {
    // --ignore-scripts: each package is built by its caller, under its lock, and only when stale (a `prepack` build
    // would print into the JSON answer, and rebuild every time).
    const command = ['pack', ...args, '--ignore-scripts', '--pack-destination', work, '--json', '--loglevel=error'];
    const stdout = await runCommand(ROOT, 'npm', command, childEnv(), 120_000);
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    if (!packed) throw new Error(`npm pack ${args.join(' ')} printed no result: ${stdout}`);
    const fresh = join(work, packed.filename);
    if (existsSync(tarball) && sha256(fresh) === sha256(tarball)) utimesSync(tarball, new Date(), new Date());
    else renameSync(fresh, tarball);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Builds the SDK if dist/ is stale and packs it to {@link SDK_TARBALL}, unless the tarball there is already newer than
 * every build output.
 */
export async function packSdk(): Promise<string> {
  await ensureSdkBuilt();
  return withLock('sdk-pack', 120_000, async () => {
    const newestOutput = Math.max(...REQUIRED_OUTPUTS.map((output) => statSync(join(ROOT, output)).mtimeMs));
    if ((statSync(SDK_TARBALL, { throwIfNoEntry: false })?.mtimeMs ?? 0) > newestOutput) return SDK_TARBALL;
    await packInto(SDK_TARBALL, []);
    return SDK_TARBALL;
  });
}

/**
 * Builds a tsup workspace (what its `prepack` runs) when it is stale (build/stale.ts), and packs it to `tarball`. Packed
 * on every call (a second or two): an unchanged package packs to the same bytes, which leave the tarball and the
 * installs stamped with it as they are.
 */
async function packWorkspace(name: 'bundler-plugin' | 'playwright', tarball: string, lock: string): Promise<string> {
  await withLock(lock, 120_000, async () => {
    if (staleness(name) !== null)
      await runCommand(ROOT, 'npm', ['run', 'build', '-w', name, '--silent'], childEnv(), 120_000);
    await packInto(tarball, ['-w', name]);
  });
  return tarball;
}

/** Builds `@svc/build` when stale and packs it to {@link BUILD_PLUGIN_TARBALL} (see `packWorkspace`). */
export const packBuildPlugin = (): Promise<string> =>
  packWorkspace('bundler-plugin', BUILD_PLUGIN_TARBALL, 'build-plugin-pack');

/**
 * Builds `@svc/playwright` when stale and packs it to {@link PLAYWRIGHT_TARBALL} (see `packWorkspace`). Under the lock
 * the nested-suite tests build the package with (`playwright-package-build`): tsup empties dist/ first, so a pack
 * must not run during a build.
 */
export const packPlaywright = (): Promise<string> =>
  packWorkspace('playwright', PLAYWRIGHT_TARBALL, 'playwright-package-build');

/** The tarballs packed here, and what packs each. */
const PACKED = [
  { tarball: SDK_TARBALL, pack: packSdk },
  { tarball: BUILD_PLUGIN_TARBALL, pack: packBuildPlugin },
  { tarball: PLAYWRIGHT_TARBALL, pack: packPlaywright },
];

/** Those of {@link PACKED} an example's package.json points at (`file:../../….tgz`). */
function packedFor(dir: string): typeof PACKED {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<
    'dependencies' | 'devDependencies',
    Record<string, string> | undefined
  >;
  const specs = new Set(Object.values({ ...pkg.dependencies, ...pkg.devDependencies }));
  return PACKED.filter(({ tarball }) => specs.has(`file:${relative(dir, tarball)}`));
}

/** How long a step took, for the timings each spec prints. */
export interface Timed {
  step: string;
  ms: number;
  /** True when the step had nothing to do (an install already matching the tarball and package.json). */
  skipped?: boolean;
}

/**
 * `npm install` in an example, with its tarballs named explicitly: a plain `npm install` would keep a previously
 * installed tarball of the same version (npm checks the version, not the content). Skipped when the last install was
 * of these very tarballs and package.json.
 */
export async function installExample(dir: string): Promise<Timed> {
  const started = Date.now();
  const tarballs = packedFor(dir).map((packed) => packed.tarball);
  const stamp = `${[...tarballs, join(dir, 'package.json')].map(sha256).join(' ')}\n`;
  const stampPath = join(dir, INSTALL_STAMP);
  // Locked: two spec files use the Vite example, and two installs in one directory break each other.
  return withLock(`install-${basename(dir)}`, 600_000, async () => {
    if (existsSync(stampPath) && readFileSync(stampPath, 'utf8') === stamp)
      return { step: 'install', ms: Date.now() - started, skipped: true };
    // --prefer-offline: package metadata already in the npm cache is not revalidated (CRA alone has ~850 packages).
    const args = [
      'install',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--loglevel=error',
      ...tarballs.map((tarball) => relative(dir, tarball)),
    ];
    await runCommand(dir, 'npm', args, childEnv(), 600_000);
    writeFileSync(stampPath, stamp);
    return { step: 'install', ms: Date.now() - started };
  });
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
 * Rejects with the server's output when it exits first. No deadline of its own (a dev server compiles for as long as
 * the machine makes it): the test's timeout bounds the wait, and the group is killed when the test process exits.
 */
export async function startServerProcess(opts: {
  cwd: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  port: number;
  readyPaths: string[];
}): Promise<RunningApp> {
  const origin = `http://127.0.0.1:${opts.port}`;
  const child = spawn(opts.command, opts.args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let exitedEarly = false;
  void exited.then(() => (exitedEarly = true));
  const killWithTestProcess = () => killGroup(child.pid, 'SIGKILL');
  process.once('exit', killWithTestProcess);
  void exited.then(() => process.off('exit', killWithTestProcess));

  const stop = async () => {
    if (exitedEarly) return;
    killGroup(child.pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };

  for (const path of opts.readyPaths) {
    for (;;) {
      if (exitedEarly)
        throw new Error(`${opts.command} ${opts.args.join(' ')} exited before serving ${origin}:\n${tail(output)}`);
      try {
        const res = await fetch(origin + path);
        await res.arrayBuffer();
        if (res.status === 200) break;
      } catch {
        // Not listening yet, or still compiling.
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
  /** The build's release (`service.version`, and the maps' release): the Vite example's VITE_SVC_SERVICE_VERSION. */
  release?: string;
}

export type Mode = 'production' | 'development';

/** Where a build uploads its source maps: `SVC_URL` and `SVC_CONTROL_KEY`, read by `@svc/build` and `svc-server sourcemaps`. */
export interface UploadSettings {
  serverUrl: string;
  controlKey: string;
}

const uploadEnv = (upload: UploadSettings) => ({ SVC_URL: upload.serverUrl, SVC_CONTROL_KEY: upload.controlKey });

/** One example app: how to build it and serve it. */
export interface Example {
  name: 'vite-react' | 'next' | 'cra' | 'cdn';
  dir: string;
  /** Modes the issue requires to be proven for this example. */
  modes: readonly Mode[];
  /** Builds the production bundle with `settings` baked in, and uploads its source maps. */
  build(settings: SdkSettings, upload: UploadSettings): Promise<Timed>;
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

/** Production builds of Next.js and CRA take about a minute on two cores. */
const BUILD_TIMEOUT_MS = 300_000;

/** `npm run <script>` in an example. */
const npmRun = (dir: string, script: string, env: Record<string, string>) =>
  runCommand(dir, 'npm', ['run', script, '--silent'], childEnv(env), BUILD_TIMEOUT_MS);

/** The Vite example, or a copy of it in `dir` (test/e2e/examples/vite-react-redeploy.spec.ts builds a changed copy). */
export function viteReactIn(dir: string): Example {
  return {
    name: 'vite-react',
    dir,
    modes: ['production', 'development'],
    // The plugin in vite.config.ts uploads the maps.
    build: (settings, upload) => {
      const release: Record<string, string> =
        settings.release === undefined ? {} : { VITE_SVC_SERVICE_VERSION: settings.release };
      return timed('build', () =>
        npmRun(dir, 'build', { ...prefixed('VITE_', settings), ...release, ...uploadEnv(upload) }),
      );
    },
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
      });
    },
  };
}

/** How a Next.js build bundles: Turbopack (`npm run build`, i.e. `next build`, Next's default) or `next build --webpack`. */
export type NextBundler = 'turbopack' | 'webpack';

/** The Next.js example, or a copy of it in `dir` (test/e2e/examples/next.spec.ts builds one with each bundler at once). */
export function nextIn(dir: string, bundler: NextBundler = 'turbopack'): Example {
  // No internet on the test machines: Next.js must not try to send its usage telemetry.
  const env = (settings: SdkSettings) => ({ ...prefixed('NEXT_PUBLIC_', settings), NEXT_TELEMETRY_DISABLED: '1' });
  return {
    name: 'next',
    dir,
    modes: ['production', 'development'],
    // withSvc in next.config.ts gives the browser chunks their debug IDs and uploads the maps, with either bundler.
    build: (settings, upload) =>
      timed('build', () => {
        const vars = { ...env(settings), ...uploadEnv(upload) };
        if (bundler === 'turbopack') return npmRun(dir, 'build', vars);
        return runCommand(dir, bin(dir, 'next'), ['build', '--webpack'], childEnv(vars), BUILD_TIMEOUT_MS);
      }),
    async start(mode, settings) {
      const port = await freePort();
      return startServerProcess({
        cwd: dir,
        command: bin(dir, 'next'),
        args: [mode === 'production' ? 'start' : 'dev', '--hostname', '127.0.0.1', '--port', String(port)],
        env: childEnv(env(settings)),
        port,
        // The dev server compiles each route on its first request: have both compiled before the browser comes.
        readyPaths: ['/', '/api/echo'],
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
    // CI=true: warnings fail the build, as on a user's CI; so a warning the SDK causes in webpack fails this test. Then
    // `svc-server sourcemaps upload build`, the CLI for builds without the plugin.
    build: (settings, upload) =>
      timed('build', async () => {
        await npmRun(dir, 'build', { ...prefixed('REACT_APP_', settings), CI: 'true' });
        await npmRun(dir, 'sourcemaps', uploadEnv(upload));
      }),
    async start(_mode, _settings) {
      const port = await freePort();
      return startServerProcess({
        cwd: dir,
        command: process.execPath,
        args: ['serve.js'],
        env: childEnv({ PORT: String(port) }),
        port,
        readyPaths: ['/'],
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
    // The page's checkout script (esbuild), then `svc-server sourcemaps upload dist`; the SDK itself needs no build.
    build: (_settings, upload) =>
      timed('build', async () => {
        await npmRun(dir, 'build', {});
        await npmRun(dir, 'sourcemaps', uploadEnv(upload));
      }),
    async start(_mode, settings) {
      const port = await freePort();
      return startServerProcess({
        cwd: dir,
        command: process.execPath,
        args: ['server.js'],
        env: childEnv({ ...prefixed('', settings), PORT: String(port) }),
        port,
        readyPaths: ['/'],
      });
    },
  };
}

export const EXAMPLES = {
  'vite-react': viteReactIn(join(EXAMPLES_DIR, 'vite-react')),
  next: nextIn(join(EXAMPLES_DIR, 'next')),
  cra: cra(),
  cdn: cdn(),
} as const;

/** What an example's directory holds besides its sources. */
const NOT_SOURCES = new Set(['node_modules', 'dist', 'build', '.next']);

/**
 * A copy of an installed example's sources in a new directory under .tmp/, using the example's node_modules (a
 * symlink): for a spec that edits the sources and rebuilds without disturbing the example's other spec.
 */
export function copyExample(example: Example): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(ROOT, '.tmp', `${example.name}-copy-`));
  cpSync(example.dir, dir, { recursive: true, filter: (source) => !NOT_SOURCES.has(basename(source)) });
  symlinkSync(join(example.dir, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Packs the SDK (and the build plugin and `@svc/playwright`, for the examples using them) and installs the example; returns what each step took. */
export async function prepareExample(example: Example): Promise<Timed[]> {
  const pack = await timed('pack', () => Promise.all(packedFor(example.dir).map((packed) => packed.pack())));
  return [pack, await installExample(example.dir)];
}

/** One line per step, e.g. `next: pack 2.1 s, install (cached) 0.0 s, build 61.3 s`. */
export function formatTimings(name: string, timings: Timed[]): string {
  const parts = timings.map((t) => `${t.step}${t.skipped ? ' (cached)' : ''} ${(t.ms / 1000).toFixed(1)} s`);
  return `${name}: ${parts.join(', ')}`;
}
