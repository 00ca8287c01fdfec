/**
 * `npm start` builds only what is stale (build/stale.ts: an output missing, or older than the newest input), so a
 * restart with nothing changed starts in seconds; `npm run serve` starts without looking.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILDS, ROOT, staleness } from '../../build/stale';
import { ensureSdkBuilt } from '../support/build-sdk';

const work = mkdtempSync(join(tmpdir(), 'svc-stale-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Writes `path` under the scratch checkout with its modification time `secondsAgo` in the past. */
function file(path: string, secondsAgo: number): void {
  const full = join(work, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, '');
  const when = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(full, when, when);
}

describe('npm start', () => {
  it('is a server build only when one of its outputs is missing or older than an input, named in the reason', () => {
    expect(staleness('server', work)).toBe('server/dist/cli.js is missing');
    for (const output of BUILDS.server.outputs) file(output, 60);
    file('server/src/app.ts', 120);
    file('bundler-plugin/src/core/scan.ts', 90);
    expect(staleness('server', work)).toBeNull();
    // The server bundles the build plugin's core: a change there is a change to the server.
    file('bundler-plugin/src/core/scan.ts', 30);
    expect(staleness('server', work)).toBe('bundler-plugin/src/core/scan.ts is newer than server/dist/cli.js');
    for (const output of BUILDS.server.outputs) file(output, 10);
    rmSync(join(work, 'server/dist/console/index.html'));
    expect(staleness('server', work)).toBe('server/dist/console/index.html is missing');
  });

  it('builds nothing when nothing changed: it says the SDK and the server are up to date (the README test starts it)', async () => {
    const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(scripts.start).toBe('tsx build/if-stale.ts sdk server && npm run serve --silent');
    expect(scripts.serve).toBe('node server/dist/cli.js start --demo-sdk dist/cdn/svc.min.js');
    // The server is built by the global setup (test/support/build-server.ts), the SDK here, both only when stale.
    await ensureSdkBuilt();
    const outputs = [...BUILDS.sdk.outputs, ...BUILDS.server.outputs].map((output) => join(ROOT, output));
    const before = outputs.map((output) => statSync(output).mtimeMs);
    const run = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), ['build/if-stale.ts', 'sdk', 'server'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('sdk: up to date\nserver: up to date\n');
    expect(run.stdout, 'stdout is left to the command that runs it (npm pack --json)').toBe('');
    expect(outputs.map((output) => statSync(output).mtimeMs)).toEqual(before);
  }, 180_000); // ensureSdkBuilt builds the SDK when its sources changed since the last build: a minute on two busy cores
});
