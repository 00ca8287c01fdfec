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
  it('runs the stage driver: the build, then Vitest with the typecheck and lint beside it, then Playwright, each with its expected duration; .ci/run runs npm test', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).toBe('tsx test/stages.ts');
    expect(STAGES.map((stage) => [stage.name, stage.command.join(' ')])).toEqual([
      ['build', 'npm run build --silent'],
      ['vitest', 'vitest run'],
      ['typecheck', 'npm run typecheck --silent'],
      ['lint', 'npm run lint --silent'],
      ['playwright', 'playwright test'],
    ]);
    for (const stage of STAGES) expect(stage.about, stage.name).toMatch(/^\d+( to \d+)? min$/);
    // Vitest's suites mostly wait, leaving time for the checks, which read nothing the tests write; its output is live.
    expect(STAGES.filter((stage) => stage.together).map((stage) => stage.name)).toEqual([
      'vitest',
      'typecheck',
      'lint',
    ]);
    expect(STAGES.filter((stage) => stage.live).map((stage) => stage.name)).toEqual(['vitest']);
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
  { name: 'failing', command: ['node', '-e', 'console.log("failing ran"); process.exit(4)'], what: 'the failing one', about: '1 min', together: true },
  { name: 'passing', command: ['node', '-e', 'console.log("passing ran")'], what: 'the passing one', about: '1 min', together: true },
  { name: 'after', command: ['node', '-e', 'console.log("after ran")'], what: 'never run', about: '1 min' },
]);
`,
    );
    const run = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), [script], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(4);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines.slice(0, 5)).toEqual([
      '==> npm test 1/3: failing (about 1 min): the failing one',
      expect.stringContaining('    node -e console.log("failing ran")'),
      '==> npm test 2/3: passing (about 1 min): the passing one',
      '    node -e console.log("passing ran")',
      "==> npm test: these 2 run at the same time; each one's output follows when it ends",
    ]);
    // Which of the two ends first is theirs to decide; each output follows its own "ended" line, whole.
    for (const [name, status] of [
      ['failing', 4],
      ['passing', 0],
    ] as const) {
      const ended = lines.indexOf(
        lines.find(
          (line) =>
            line.startsWith(`==> npm test: ${name} ended after `) &&
            line.endsWith(`(exit status ${status}); its output:`),
        )!,
      );
      expect(ended, name).toBeGreaterThan(4);
      expect(lines[ended + 1]).toBe(`${name} ran`);
    }
    expect(lines.at(-1)).toMatch(
      /^==> npm test: failing failed \(exit status 4\) after \d+\.\d s; later stages not run$/,
    );
    expect(lines).toHaveLength(10);
  });

  it('shows the live stage of a batch as it runs, the others whole when they end, and says when each ended', () => {
    const script = join(work, 'live.mts');
    writeFileSync(
      script,
      `import { runStages } from ${JSON.stringify(join(ROOT, 'test/stages.ts'))};
process.exitCode = await runStages([
  { name: 'tests', command: ['node', '-e', 'console.log("tests ran")'], what: 'the tests', about: '1 min', together: true, live: true },
  { name: 'check', command: ['node', '-e', 'console.log("check ran")'], what: 'the check', about: '1 min', together: true },
]);
`,
    );
    const run = spawnSync(join(ROOT, 'node_modules/.bin/tsx'), [script], { cwd: ROOT, encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.split('\n').filter(Boolean);
    expect(lines.slice(0, 5)).toEqual([
      '==> npm test 1/2: tests (about 1 min): the tests',
      '    node -e console.log("tests ran")',
      '==> npm test 2/2: check (about 1 min): the check',
      '    node -e console.log("check ran")',
      "==> npm test: these 2 run at the same time; tests's output shows as it runs, each other's follows when it ends",
    ]);
    // The two run at once, so which ends first is theirs to decide; each held output follows its own "ended" line.
    const held = lines.findIndex((line) =>
      /^==> npm test: check ended after \d+\.\d s \(exit status 0\); its output:$/.test(line),
    );
    expect(lines[held + 1]).toBe('check ran');
    expect(lines.filter((line) => line === 'tests ran')).toHaveLength(1);
    expect(
      lines.filter((line) => /^==> npm test: tests ended after \d+\.\d s \(exit status 0\)$/.test(line)),
    ).toHaveLength(1);
    expect(lines.at(-1)).toMatch(
      /^==> npm test: all 2 stages passed in \d+\.\d s \(tests \d+\.\d s, check \d+\.\d s\)$/,
    );
    expect(lines).toHaveLength(10);
  });
});
