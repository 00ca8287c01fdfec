/**
 * `npm test` announces each stage as it starts (test/stages.ts), so a run that takes 25 minutes is never silent for
 * minutes without saying what it is doing; `.ci/run` runs exactly that command.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../build/stale';
import { STAGES } from '../stages';

const work = mkdtempSync(join(tmpdir(), 'svc-npm-test-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('npm test', () => {
  it('runs the stage driver: typecheck, lint, build, Vitest, Playwright, each with its expected duration; .ci/run runs npm test', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toBe('tsx test/stages.ts');
    expect(STAGES.map((stage) => [stage.name, stage.command.join(' ')])).toEqual([
      ['typecheck', 'npm run typecheck --silent'],
      ['lint', 'npm run lint --silent'],
      ['build', 'npm run build --silent'],
      ['vitest', 'vitest run'],
      ['playwright', 'playwright test'],
    ]);
    for (const stage of STAGES) expect(stage.about, stage.name).toMatch(/^\d+( to \d+)? min$/);
    // The checks and the build each use one core and read nothing another writes: they run at once.
    expect(STAGES.filter((stage) => stage.together).map((stage) => stage.name)).toEqual(['typecheck', 'lint', 'build']);
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/^npm test \|\| status=\$\?$/m);
  });

  it('prints each stage before its output, and stops at the first that fails with its exit status, naming it', () => {
    // The driver as `npm test` runs it, with stages that finish at once: its output and theirs share one pipe, in order.
    const script = join(work, 'three-stages.mts');
    writeFileSync(
      script,
      `import { runStages } from ${JSON.stringify(join(ROOT, 'test/stages.ts'))};
process.exitCode = await runStages([
  { name: 'first', command: ['node', '-e', 'console.log("first ran")'], what: 'the first stage', about: '1 min' },
  { name: 'second', command: ['node', '-e', 'console.log("second ran"); process.exit(3)'], what: 'the second stage', about: '2 to 3 min' },
  { name: 'third', command: ['node', '-e', 'console.log("third ran")'], what: 'the third stage', about: '1 min' },
]);
`,
    );
    const run = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), [script], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(3);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines).toEqual([
      '==> npm test 1/3: first (about 1 min): the first stage',
      '    node -e console.log("first ran")',
      'first ran',
      '==> npm test 2/3: second (about 2 to 3 min): the second stage',
      '    node -e console.log("second ran"); process.exit(3)',
      'second ran',
      expect.stringMatching(/^==> npm test: second failed \(exit status 3\) after \d+\.\d s; later stages not run$/),
    ]);
  });

  it('runs neighbouring `together` stages at once, printing each output whole when it ends, then the first failure', () => {
    const script = join(work, 'together.mts');
    writeFileSync(
      script,
      `import { runStages } from ${JSON.stringify(join(ROOT, 'test/stages.ts'))};
process.exitCode = await runStages([
  { name: 'slow', command: ['node', '-e', 'setTimeout(() => { console.log("slow ran"); process.exit(4) }, 300)'], what: 'the slow one', about: '1 min', together: true },
  { name: 'quick', command: ['node', '-e', 'console.log("quick ran")'], what: 'the quick one', about: '1 min', together: true },
  { name: 'after', command: ['node', '-e', 'console.log("after ran")'], what: 'never run', about: '1 min' },
]);
`,
    );
    const run = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), [script], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(4);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines).toEqual([
      '==> npm test 1/3: slow (about 1 min): the slow one',
      expect.stringContaining('    node -e setTimeout'),
      '==> npm test 2/3: quick (about 1 min): the quick one',
      '    node -e console.log("quick ran")',
      "==> npm test: these 2 run at the same time; each one's output follows when it ends",
      expect.stringMatching(/^==> npm test: quick ended after \d+\.\d s \(exit status 0\); its output:$/),
      'quick ran',
      expect.stringMatching(/^==> npm test: slow ended after \d+\.\d s \(exit status 4\); its output:$/),
      'slow ran',
      expect.stringMatching(/^==> npm test: slow failed \(exit status 4\) after \d+\.\d s; later stages not run$/),
    ]);
  });
});
