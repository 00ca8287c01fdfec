/**
 * `@svc/playwright` (playwright/) as the tests use it: through the workspace link node_modules/@svc/playwright, which
 * resolves to playwright/dist. A nested Playwright run (the package's own suite, the AI fix's reproduction test)
 * needs that build to be the current sources.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { staleness } from '../../build/stale';
import { ROOT } from './build-sdk';
import { childEnv } from './child-env';
import { withLockSync } from './lock';

export const PACKAGE = join(ROOT, 'playwright');

/** A build takes seconds; a lock older than this belongs to a crashed run. */
const STALE_LOCK_MS = 120_000;

/** True when dist/ holds the fixture and the reporter, newer than every source of the package (build/stale.ts). */
const isPackageFresh = (): boolean => staleness('playwright') === null;

/**
 * Builds the package (tsup) unless dist/ is newer than its sources: `npm test` has built it already. Serialised with
 * a lock, since tsup empties dist/ first and test files of both runners (Vitest, Playwright) may ask at once; the
 * examples' packing of the package (test/support/examples.ts) takes the same lock. It waits synchronously: not to be
 * called while this process holds that lock.
 */
export function ensurePackageBuilt(): void {
  if (isPackageFresh()) return;
  withLockSync('playwright-package-build', STALE_LOCK_MS, () => {
    if (isPackageFresh()) return;
    const build = spawnSync('npm', ['run', 'build'], { cwd: PACKAGE, encoding: 'utf8', env: childEnv() });
    if (build.status !== 0) throw new Error(`@svc/playwright build failed:\n${build.stdout}\n${build.stderr}`);
  });
}
