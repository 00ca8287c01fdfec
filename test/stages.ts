/**
 * `npm test`: every suite, one stage after the other, each announced as it starts with what it runs and about how long
 * it takes on a 2-core machine (the whole run: about 20 minutes), and a summary of the stages' times at the end. The
 * first stage that fails ends the run with its exit status. `.ci/run` runs `npm test`, so CI prints the same.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface Stage {
  name: string;
  /** What it runs, at the repository root. */
  command: readonly string[];
  /** What the reader waits for, e.g. "unit and integration tests (Vitest), on SQLite and PostgreSQL". */
  what: string;
  /** Its usual length on a 2-core machine, as said before it starts. */
  about: string;
}

export const STAGES: readonly Stage[] = [
  {
    name: 'typecheck',
    command: ['npm', 'run', 'typecheck', '--silent'],
    what: 'tsc on the SDK, server, console, operator, build plugin and Playwright package',
    about: '1 to 2 min',
  },
  {
    name: 'lint',
    command: ['npm', 'run', 'lint', '--silent'],
    what: 'ESLint and Prettier (formatting, 120 columns) on the whole repository',
    about: '1 min',
  },
  {
    name: 'build',
    command: ['npm', 'run', 'build', '--silent'],
    what: 'SDK (rollup), server and console, operator, build plugin, Playwright package',
    about: '1 min',
  },
  {
    name: 'vitest',
    command: ['vitest', 'run'],
    what: 'unit and integration tests (Vitest), on SQLite and PostgreSQL',
    about: '7 to 8 min',
  },
  {
    name: 'playwright',
    command: ['playwright', 'test'],
    what: 'end-to-end tests in Chromium (Playwright), the example apps included',
    about: '10 to 12 min',
  },
];

const seconds = (ms: number) =>
  ms >= 60_000 ? `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;

/** Runs `command` with this process's terminal (colours and live output as when run by hand); resolves its exit status. */
function run(command: readonly string[]): Promise<number> {
  return new Promise((done) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: 'inherit' });
    child.once('error', (error) => {
      console.error(`${command.join(' ')}: ${error.message}`);
      done(127);
    });
    child.once('exit', (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

/** Runs the stages in order, announcing each; stops at the first that fails. Resolves the exit status for the run. */
export async function runStages(
  stages: readonly Stage[],
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const took: string[] = [];
  const started = Date.now();
  for (const [index, stage] of stages.entries()) {
    write(
      `\n==> npm test ${index + 1}/${stages.length}: ${stage.name} (about ${stage.about}): ${stage.what}\n    ${stage.command.join(' ')}`,
    );
    const stageStarted = Date.now();
    const status = await run(stage.command);
    took.push(`${stage.name} ${seconds(Date.now() - stageStarted)}`);
    if (status !== 0) {
      write(
        `\n==> npm test: ${stage.name} failed (exit status ${status}) after ${seconds(Date.now() - stageStarted)}; later stages not run`,
      );
      return status;
    }
  }
  write(`\n==> npm test: all ${stages.length} stages passed in ${seconds(Date.now() - started)} (${took.join(', ')})`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await runStages(STAGES);
