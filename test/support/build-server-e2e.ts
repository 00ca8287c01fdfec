/**
 * Playwright global setup: the end-to-end suites run the built `svc-server` (server/dist/cli.js), so server/dist must
 * hold a build of the current server and console sources. It is built (`npm run build -w @svc/server`: tsup and Vite, a
 * few seconds) only when stale by the repository's one rule (build/stale.ts): after `npm test`'s own `npm run build`
 * nothing is rebuilt, and a plain `npx playwright test` builds. A failed build fails the run before any test, with the
 * build's output.
 */
import { buildIfStale, staleness } from '../../build/stale';

export default function buildServerForE2e(): void {
  const build = buildIfStale('server', 'pipe');
  if (build && (build.status !== 0 || staleness('server') !== null)) {
    throw new Error(
      `The end-to-end suites run the built server, and \`npm run build -w @svc/server\` failed:\n${build.output}`,
    );
  }
}
