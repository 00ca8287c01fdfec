/**
 * The repository's builds and the one rule for when each must run: a build is stale when one of its outputs is missing,
 * or older than the newest file among its inputs. `npm start`, each package's `prepack` and the test suites' set-ups
 * build only what is stale (build/if-stale.ts), so a restart with nothing changed starts in seconds.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

export interface Build {
  /** What makes it, run at the repository root. */
  command: readonly string[];
  /** Files and folders (every file under them) it reads, relative to the root. */
  inputs: readonly string[];
  /** Files it writes, relative to the root: each must exist and be newer than every input. */
  outputs: readonly string[];
}

/** Every path a package.json field names (`exports`, `bin`, …), in a string or any nesting of objects and arrays. */
export const pathsIn = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : typeof value === 'object' && value !== null
      ? Object.values(value).flatMap(pathsIn)
      : [];

/** The files a package's `exports` map points at, its own package.json aside (`./dist/vite.js`, …). */
export const exportedFiles = (exports: Record<string, unknown> | undefined): string[] => [
  ...new Set(
    Object.entries(exports ?? {})
      .filter(([entry]) => entry !== './package.json')
      .flatMap(([, target]) => pathsIn(target)),
  ),
];

/** Every file an `exports` map points at, for a package whose outputs are its entry points. */
function exportTargets(dir: string): string[] {
  const { exports } = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as {
    exports: Record<string, unknown>;
  };
  return exportedFiles(exports).map((target) => join(dir, target));
}

/** A tsup workspace (bundler-plugin/, playwright/): its sources and config in, its entry points out. */
const tsupWorkspace = (dir: string): Build => ({
  command: ['npm', 'run', 'build', '-w', dir, '--silent'],
  inputs: ['src', 'package.json', 'tsup.config.ts', 'tsconfig.json', '../tsconfig.base.json'].map((input) =>
    join(dir, input),
  ),
  outputs: exportTargets(dir),
});

export const BUILDS = {
  /** The browser SDK (rollup): the files `npm pack` ships for the exports map, the CDN scripts and their maps. */
  sdk: {
    command: ['npm', 'run', 'build:sdk', '--silent'],
    inputs: [
      'src',
      'wire',
      'build/rrweb-trim.mjs',
      'rollup.config.mjs',
      'package.json',
      'tsconfig.json',
      'tsconfig.base.json',
    ],
    outputs: [
      'dist/esm/index.js',
      'dist/esm/auto.js',
      'dist/esm/react.js',
      'dist/esm/otel.js',
      'dist/esm/replay/recorder.js',
      'dist/cjs/index.cjs',
      'dist/cjs/auto.cjs',
      'dist/cjs/react.cjs',
      'dist/cjs/otel.cjs',
      'dist/types/index.d.ts',
      'dist/types/index.d.cts',
      'dist/types/auto.d.ts',
      'dist/types/auto.d.cts',
      'dist/types/react.d.ts',
      'dist/types/react.d.cts',
      'dist/types/otel.d.ts',
      'dist/types/otel.d.cts',
      'dist/cdn/svc.min.js',
      'dist/cdn/svc.min.js.map',
      'dist/cdn/svc-recorder.min.js',
      'dist/cdn/svc-recorder.min.js.map',
    ],
  },
  /** The reference server (tsup) and its console (Vite); it bundles the wire types and the build plugin's core. */
  server: {
    command: ['npm', 'run', 'build', '-w', '@svc/server', '--silent'],
    inputs: [
      'server/src',
      'server/console/src',
      'server/console/index.html',
      'server/console/vite.config.ts',
      'server/package.json',
      'server/tsup.config.ts',
      'server/tsconfig.json',
      'wire',
      'bundler-plugin/src/core',
    ],
    outputs: [
      'server/dist/cli.js',
      'server/dist/index.js',
      'server/dist/sqlite-writer-thread.js',
      'server/dist/console/index.html',
    ],
  },
  /** The cluster operator: CLI, controller and the Node.js agent's preload (tsup). */
  operator: {
    command: ['npm', 'run', 'build', '-w', '@svc/zero', '--silent'],
    inputs: [
      'operator/src',
      'operator/agents',
      'operator/package.json',
      'operator/tsup.config.ts',
      'operator/tsconfig.json',
    ],
    outputs: ['operator/dist/cli.js', 'operator/dist/main.js', 'operator/dist/agents/node/register.cjs'],
  },
  'bundler-plugin': tsupWorkspace('bundler-plugin'),
  playwright: tsupWorkspace('playwright'),
} satisfies Record<string, Build>;

export type BuildName = keyof typeof BUILDS;

export const isBuildName = (name: string): name is BuildName => Object.hasOwn(BUILDS, name);

/** The newest file under `path` (itself when a file), or undefined when there is none. */
function newestFile(path: string): { path: string; mtimeMs: number } | undefined {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) return undefined;
  if (!stats.isDirectory()) return { path, mtimeMs: stats.mtimeMs };
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(path)) {
    const candidate = newestFile(join(path, entry));
    if (candidate && (!newest || candidate.mtimeMs > newest.mtimeMs)) newest = candidate;
  }
  return newest;
}

/**
 * Why `name` must be built ("server/dist/cli.js is missing", "server/src/app.ts is newer than server/dist/cli.js"), or
 * null when every output exists and none is older than the newest input. `root`: the checkout (another one in tests).
 */
export function staleness(name: BuildName, root = ROOT): string | null {
  const build: Build = BUILDS[name];
  let newestInput: { path: string; mtimeMs: number } | undefined;
  for (const input of build.inputs) {
    const candidate = newestFile(join(root, input));
    if (candidate && (!newestInput || candidate.mtimeMs > newestInput.mtimeMs)) newestInput = candidate;
  }
  for (const output of build.outputs) {
    const mtimeMs = statSync(join(root, output), { throwIfNoEntry: false })?.mtimeMs;
    if (mtimeMs === undefined) return `${output} is missing`;
    if (newestInput && mtimeMs < newestInput.mtimeMs)
      return `${relative(root, newestInput.path)} is newer than ${output}`;
  }
  return null;
}

/**
 * Runs `name`'s build when it is stale (see {@link staleness}), its output shown (`inherit`) or kept for an error
 * message (`pipe`); `starting` hears why before it runs. Returns how it ended, or null when it was up to date.
 */
export function buildIfStale(
  name: BuildName,
  /** `inherit`: the build's output goes to this process's stderr (stdout may be a tool's answer: `npm pack --json`). */
  stdio: 'inherit' | 'pipe',
  starting: (reason: string) => void = () => undefined,
): { reason: string; status: number | null; output: string } | null {
  const reason = staleness(name);
  if (reason === null) return null;
  starting(reason);
  const [command, ...args] = BUILDS[name].command;
  const run = spawnSync(command!, args, {
    cwd: ROOT,
    stdio: stdio === 'inherit' ? ['inherit', process.stderr, 'inherit'] : 'pipe',
    encoding: 'utf8',
  });
  return { reason, status: run.status, output: `${run.stdout ?? ''}${run.stderr ?? ''}` };
}
