/**
 * `npm test`: every suite, each stage announced as it starts with what it runs and about how long it takes on a 2-core
 * machine (the whole run: 30 to 40 minutes), and a summary of the stages' times at the end. The build runs first; the
 * typecheck and lint then run beside Vitest, whose suites mostly wait on servers, databases and child processes and
 * leave a core's worth of time they can use; Playwright runs last. The first stage that fails ends the run with its
 * exit status (stages running at once end first). `.ci/run` runs `npm test`, so CI prints the same.
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
  /**
   * Runs at the same time as the stages beside it that say so too (none reads what another writes); their output is
   * held and printed whole as each ends, but for the `live` one's.
   */
  together?: true;
  /** Of stages run together, the one whose output is shown as it runs (at most one per batch). */
  live?: true;
}

export const STAGES: readonly Stage[] = [
  {
    name: 'build',
    command: ['npm', 'run', 'build', '--silent'],
    what: 'SDK (rollup), server and console, operator, build plugin, Playwright package',
    about: '1 to 3 min',
  },
  {
    name: 'vitest',
    command: ['vitest', 'run'],
    what: 'unit and integration tests (Vitest), on SQLite and PostgreSQL; its output shows as it runs',
    about: '11 to 14 min',
    together: true,
    live: true,
  },
  {
    name: 'typecheck',
    command: ['npm', 'run', 'typecheck', '--silent'],
    what: 'tsc on the SDK, server, console, operator, build plugin and Playwright package, beside Vitest',
    about: '3 to 5 min',
    together: true,
  },
  {
    name: 'lint',
    command: ['npm', 'run', 'lint', '--silent'],
    what: 'ESLint and Prettier (formatting, 120 columns) on the whole repository, beside Vitest',
    about: '2 to 3 min',
    together: true,
  },
  {
    name: 'playwright',
    command: ['playwright', 'test'],
    what: 'end-to-end tests in Chromium (Playwright), the example apps included',
    about: '15 to 22 min',
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

/** Runs `command` with its output held; resolves its exit status and what it printed (stdout and stderr, interleaved). */
function runHeld(command: readonly string[]): Promise<{ status: number; output: string }> {
  return new Promise((done) => {
    const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.once('error', (error) => done({ status: 127, output: `${command.join(' ')}: ${error.message}\n` }));
    child.once('close', (code, signal) =>
      done({ status: code ?? (signal ? 128 : 1), output: Buffer.concat(chunks).toString() }),
    );
  });
}

/** The stages in batches: each `together` run of neighbours is one batch, every other stage a batch of its own. */
function batchesOf(stages: readonly Stage[]): Stage[][] {
  const batches: Stage[][] = [];
  for (const stage of stages) {
    const last = batches.at(-1);
    if (stage.together && last?.[0]?.together) last.push(stage);
    else batches.push([stage]);
  }
  return batches;
}

/**
 * Runs one batch: a lone stage with the terminal, or `together` stages at once, the `live` one with the terminal and
 * the others' output held and printed as each ends. Resolves the first failure (in stage order), or undefined when
 * all passed.
 */
async function runBatch(
  batch: readonly Stage[],
  write: (line: string) => void,
  took: string[],
): Promise<{ stage: Stage; status: number; ms: number } | undefined> {
  const started = Date.now();
  const ends = await Promise.all(
    batch.map(async (stage) => {
      if (batch.length === 1) return { stage, status: await run(stage.command), ms: Date.now() - started };
      // The live stage's output is already on the terminal; a held one's follows its "ended" line.
      const { status, output } = stage.live ? { status: await run(stage.command) } : await runHeld(stage.command);
      const ms = Date.now() - started;
      const held = output?.trim() ? `; its output:\n${output.trimEnd()}` : output === undefined ? '' : '; its output:';
      // One write: the live stage writes to the same terminal meanwhile, and must not land between the two.
      write(`\n==> npm test: ${stage.name} ended after ${seconds(ms)} (exit status ${status})${held}`);
      return { stage, status, ms };
    }),
  );
  for (const end of ends) took.push(`${end.stage.name} ${seconds(end.ms)}`);
  return ends.find((end) => end.status !== 0);
}

/** Runs the stages in order, announcing each; stops at the first that fails. Resolves the exit status for the run. */
export async function runStages(
  stages: readonly Stage[],
  write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const took: string[] = [];
  const started = Date.now();
  let index = 0;
  for (const batch of batchesOf(stages)) {
    for (const stage of batch) {
      index += 1;
      write(
        `\n==> npm test ${index}/${stages.length}: ${stage.name} (about ${stage.about}): ${stage.what}\n    ${stage.command.join(' ')}`,
      );
    }
    if (batch.length > 1) {
      const live = batch.find((stage) => stage.live);
      const shown = live ? `${live.name}'s output shows as it runs, each other's` : "each one's output";
      write(`\n==> npm test: these ${batch.length} run at the same time; ${shown} follows when it ends`);
    }
    const failed = await runBatch(batch, write, took);
    if (failed) {
      write(
        `\n==> npm test: ${failed.stage.name} failed (exit status ${failed.status}) after ${seconds(failed.ms)}; later stages not run`,
      );
      return failed.status;
    }
  }
  write(`\n==> npm test: all ${stages.length} stages passed in ${seconds(Date.now() - started)} (${took.join(', ')})`);
  return 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await runStages(STAGES);
