import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Vitest global setup: builds the server and the operator once (esbuild, about a second each) before any suite, so the
 * suites that run what users run — the `svc-server` and `svc-zero` bins, the writer thread, the Node.js agent — test
 * the build, and no two suites rebuild dist/ at once.
 */
export default function buildPackages(): void {
  for (const workspace of ['server', 'operator']) {
    const build = spawnSync('npm', ['run', 'build'], { cwd: resolve(__dirname, '../..', workspace), encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`${workspace} build failed:\n${build.stdout}\n${build.stderr}`);
  }
}
