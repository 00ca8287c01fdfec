/**
 * Makes sure dist/ holds a build of the current SDK sources, building it (`rollup -c`) only when an output is missing
 * or older than an input. Usable as a Vitest `globalSetup` (default export) or from a `beforeAll`.
 *
 * Test files run in parallel processes, so the build is serialised with a lock directory: the first caller builds,
 * the others wait for it and then find dist/ fresh.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withLock } from './lock';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Files that `npm pack` must ship for the exports map to work; checked for freshness. */
export const REQUIRED_OUTPUTS = [
  'dist/esm/index.js',
  'dist/esm/auto.js',
  'dist/esm/react.js',
  'dist/esm/replay/recorder.js',
  'dist/cjs/index.cjs',
  'dist/cjs/auto.cjs',
  'dist/cjs/react.cjs',
  'dist/types/index.d.ts',
  'dist/types/index.d.cts',
  'dist/types/auto.d.ts',
  'dist/types/auto.d.cts',
  'dist/types/react.d.ts',
  'dist/types/react.d.cts',
  'dist/cdn/svc.min.js',
  'dist/cdn/svc.min.js.map',
  'dist/cdn/svc-recorder.min.js',
  'dist/cdn/svc-recorder.min.js.map',
] as const;

const INPUT_DIRS = ['src', 'wire'];
const INPUT_FILES = ['rollup.config.mjs', 'package.json', 'tsconfig.json', 'tsconfig.base.json'];
/** A lock older than this belongs to a crashed run; a real build takes well under a minute. */
const STALE_LOCK_MS = 180_000;

function newestMtime(path: string): number {
  let stats;
  try {
    stats = statSync(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** True when every required output exists and none is older than the newest input. */
export function isDistFresh(): boolean {
  const newestInput = Math.max(
    ...INPUT_DIRS.map((dir) => newestMtime(join(ROOT, dir))),
    ...INPUT_FILES.map((file) => newestMtime(join(ROOT, file))),
  );
  for (const output of REQUIRED_OUTPUTS) {
    let mtime: number;
    try {
      mtime = statSync(join(ROOT, output)).mtimeMs;
    } catch {
      return false;
    }
    if (mtime < newestInput) return false;
  }
  return true;
}

function rollupBin(): string {
  const pkgPath = join(ROOT, 'node_modules', 'rollup', 'package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin: { rollup: string } };
  return join(dirname(pkgPath), pkg.bin.rollup);
}

function build(): void {
  const result = spawnSync(process.execPath, [rollupBin(), '-c'], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`SDK build failed (rollup -c, exit ${String(result.status)}):\n${result.stdout}\n${result.stderr}`);
  }
}

/** Builds the SDK unless dist/ is already fresh. Idempotent and safe to call from parallel test files. */
export async function ensureSdkBuilt(): Promise<void> {
  if (isDistFresh()) return;
  await withLock('sdk-build', STALE_LOCK_MS, async () => {
    if (!isDistFresh()) build();
  });
}

/** Vitest globalSetup entry point. */
export default async function setup(): Promise<void> {
  await ensureSdkBuilt();
}
