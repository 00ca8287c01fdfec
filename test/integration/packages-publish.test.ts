/**
 * Every package of the repository can be published as it is, so its registry name works the day it is published:
 * `npm publish --dry-run` (its `prepack` builds what is stale, build/if-stale.ts) passes, with public access (a scoped
 * package is private on npm otherwise), and the files it would publish hold every file its package.json points at
 * (`exports`, `main`, `module`, `types`, `typesVersions`, `bin`, `unpkg`) and nothing of the sources or tests.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportedFiles, pathsIn, ROOT } from '../../build/stale';
import { childEnv } from '../support/child-env';
import { withPackageLocks } from '../support/lock';

/** Folder and name of each package; the root is the SDK. */
const PACKAGES = [
  ['.', '@svc/browser'],
  ['server', '@svc/server'],
  ['operator', '@svc/zero'],
  ['bundler-plugin', '@svc/build'],
  ['playwright', '@svc/playwright'],
] as const;

interface Manifest {
  name: string;
  private?: boolean;
  publishConfig?: { access?: string };
  exports?: Record<string, unknown>;
  [field: string]: unknown;
}

describe('npm publish --dry-run', () => {
  it.each(PACKAGES)(
    '%s (%s) publishes publicly, with every file its package.json names',
    async (dir, name) => {
      const pkg = JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest;
      expect(pkg.name).toBe(name);
      expect(pkg.private, 'a private package is never published').toBeUndefined();
      expect(pkg.publishConfig?.access).toBe('public');

      const args = ['publish', '--dry-run', '--json', ...(dir === '.' ? [] : ['-w', dir])];
      const run = await withPackageLocks(async () =>
        spawnSync('npm', args, { cwd: ROOT, encoding: 'utf8', env: childEnv(), timeout: 240_000 }),
      );
      expect(run.status, `npm ${args.join(' ')}\n${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stderr).toContain('with tag latest and public access (dry-run)');
      // The JSON answer starts after what the prepack script printed.
      const answer = JSON.parse(run.stdout.slice(run.stdout.search(/^\{/m))) as Record<
        string,
        { files: { path: string }[] }
      > & { files?: { path: string }[] };
      const files = (answer.files ?? answer[name]?.files ?? []).map((file) => file.path);

      const named = [
        ...exportedFiles(pkg.exports),
        ...['main', 'module', 'types', 'typesVersions', 'bin', 'unpkg', 'jsdelivr'].flatMap((field) =>
          pathsIn(pkg[field]),
        ),
      ];
      expect(named.length, 'a package names its entry points').toBeGreaterThan(0);
      for (const path of new Set(named)) expect(files, `${name}: ${path}`).toContain(path.replace(/^\.\//, ''));
      expect(files.filter((path) => /^(src|test|tests)\//.test(path) || path.endsWith('.test.ts'))).toEqual([]);
    },
    300_000,
  );
});
