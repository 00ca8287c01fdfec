/**
 * Playwright global setup: the end-to-end suites run the built `svc-server` (server/dist/cli.js), so server/dist must
 * hold a build of the current server and console sources. It is built (`npm run build -w @svc/server`: tsup and Vite, a few seconds) only
 * when an output is missing or older than an input: after `npm test`'s own `npm run build` nothing is rebuilt, and a
 * plain `npx playwright test` builds. A failed build fails the run before any test, with the build's output.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { childEnv } from './child-env';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INPUTS = ['server/src', 'server/console/src', 'server/console/index.html', 'server/console/vite.config.ts', 'server/package.json', 'server/tsup.config.ts', 'server/tsconfig.json', 'wire'];
const OUTPUTS = ['server/dist/cli.js', 'server/dist/index.js', 'server/dist/sqlite-writer-thread.js', 'server/dist/console/index.html'];

function newestMtime(path: string): number {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) return 0;
  if (!stats.isDirectory()) return stats.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newestMtime(join(path, entry))));
}

/** True when every output exists and none is older than the newest input. */
export function isServerBuildFresh(): boolean {
  const newestInput = Math.max(...INPUTS.map((input) => newestMtime(join(ROOT, input))));
  return OUTPUTS.every((output) => (statSync(join(ROOT, output), { throwIfNoEntry: false })?.mtimeMs ?? -1) >= newestInput);
}

export default function buildServerForE2e(): void {
  if (isServerBuildFresh()) return;
  const build = spawnSync('npm', ['run', 'build', '-w', '@svc/server'], { cwd: ROOT, env: childEnv(), encoding: 'utf8' });
  if (build.status !== 0 || !isServerBuildFresh()) {
    throw new Error(`The end-to-end suites run the built server, and \`npm run build -w @svc/server\` failed:\n${build.stdout}\n${build.stderr}`);
  }
}
