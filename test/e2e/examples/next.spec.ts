import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect } from '@playwright/test';
import { commitAt } from '../../../bundler-plugin/src/core/release';
import { ROOT } from '../../support/build-sdk';
import { EXAMPLES, nextIn } from '../../support/examples';
import { controlGet } from '../../support/svc-server';
import { ALIAS, describeExample, type CheckedBuild } from './scenario';

interface StoredMap {
  debug_id: string;
  release: string | null;
  url: string;
}

/**
 * What withSvc left in a production build's browser output (.next/static, served from /_next/static): every map the
 * server stored names a file there carrying the map's debug ID, under the release the SDK sent (the commit, handed to
 * the SDK through the config's `env`), among them the file the error was thrown from; no map is left to be served.
 */
async function checkBrowserOutput({ dir, project, issue }: CheckedBuild): Promise<void> {
  const browser = join(dir, '.next', 'static');
  const files = readdirSync(browser, { recursive: true, encoding: 'utf8' });
  expect(files.filter((file) => file.endsWith('.map')), 'maps left in .next/static').toEqual([]);
  const res = await controlGet<{ data: StoredMap[] }>(project, '/sourcemaps?limit=1000');
  expect(res.status).toBe(200);
  const stored = res.body.data;
  expect(stored.length, 'maps stored').toBeGreaterThan(1);
  const release = commitAt(dir) ?? null;
  expect(issue.first_seen.release, 'the release the SDK sent').toBe(release);
  for (const map of stored) {
    const file = map.url.replace(/^~\/_next\/static\//, '');
    expect(files, `the file of ${map.url}`).toContain(file);
    const text = readFileSync(join(browser, file), 'utf8');
    expect(text, `${file}: its debug ID is its stored map's`).toContain(`//# debugId=${map.debug_id}`);
    expect(text, `${file}: no reference to its deleted map`).not.toContain('sourceMappingURL=');
    expect(map.release, `${map.url}: release`).toBe(release);
  }
  const top = issue.stack.frames[0]!;
  expect(stored.find((map) => map.debug_id === top.debug_id)?.url, 'the map of the top frame').toBe(`~${new URL(top.url).pathname}`);
}

// `initSvc()` from `@svc/browser/react` in instrumentation-client.ts, configured through NEXT_PUBLIC_SVC_* (inlined by
// `next build`, and by the dev server), on the app router; a route handler answers /api/echo. The example builds with
// Turbopack (`next build`, Next's default), and a copy of it with `next build --webpack` at the same time.
describeExample(EXAMPLES.next, {
  configure: { serviceName: ALIAS, env: 'staging' },
  expected: { serviceName: ALIAS, env: 'staging', errorBoundary: true },
  timeoutMs: 180_000,
  // Turbopack names sources from its root: the repository's, here.
  coupons: { path: 'app/coupons.ts', mapName: `${relative(ROOT, EXAMPLES.next.dir)}/app/coupons.ts` },
  variants: [{ label: 'webpack', in: (dir) => nextIn(dir, 'webpack'), coupons: { path: 'app/coupons.ts', mapName: 'app/coupons.ts' } }],
  checkBuild: checkBrowserOutput,
});
