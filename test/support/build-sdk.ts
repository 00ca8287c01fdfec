/**
 * Makes sure dist/ holds a build of the current SDK sources, building it (`rollup -c`) only when an output is missing
 * or older than an input. Usable as a Vitest `globalSetup` (default export) or from a `beforeAll`.
 *
 * Test files run in parallel processes, so the build is serialised with a lock directory: the first caller builds,
 * the others wait for it and then find dist/ fresh.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BUILDS, ROOT, staleness } from '../../build/stale';
import { withLock } from './lock';

export { ROOT };

/** Files that `npm pack` must ship for the exports map to work; checked for freshness. */
export const REQUIRED_OUTPUTS = BUILDS.sdk.outputs;

/** A lock older than this belongs to a crashed run; a real build takes well under a minute. */
const STALE_LOCK_MS = 180_000;

/** True when every required output exists and none is older than an input (build/stale.ts). */
export const isDistFresh = (): boolean => staleness('sdk') === null;

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
