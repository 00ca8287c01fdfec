import { buildIfStale } from '../../build/stale';

/**
 * Vitest global setup: builds the server and the operator (esbuild, a second or two each) before any suite when they
 * are stale (build/stale.ts), so the suites that run what users run — the `svc-server` and `svc-zero` bins, the writer
 * thread, the Node.js agent — test a build of the current sources, and no two suites rebuild dist/ at once. After
 * `npm test`'s own build nothing is rebuilt, so dist/ is never emptied under a suite still reading it.
 */
export default function buildPackages(): void {
  for (const name of ['server', 'operator'] as const) {
    const build = buildIfStale(name, 'pipe');
    if (build && build.status !== 0) throw new Error(`${name} build failed (${build.reason}):\n${build.output}`);
  }
}
