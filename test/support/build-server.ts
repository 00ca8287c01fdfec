import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/**
 * Vitest global setup: builds the server once (esbuild, well under a second) before any suite, so the suites that run
 * what users run — the `svc-server` bin, the writer thread — test the build, and no two suites rebuild dist/ at once.
 */
export default function buildServer(): void {
  const build = spawnSync('npx', ['tsup'], { cwd: resolve(__dirname, '../../server'), encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`server build failed:\n${build.stdout}\n${build.stderr}`);
}
