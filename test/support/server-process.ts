import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MEMORY_ENV } from '../../server/src/runtime/memory-relaunch';
import { childEnv } from './child-env';
import { createTempDatabase, type DatabaseKind, type TempDatabase } from './databases';

// The shipped bin, built by the global setups (test/support/build-server.ts for Vitest, test/support/build-server-e2e.ts
// for Playwright): what `npm start` runs. From import.meta.url, which Playwright's ES module loader has (no __dirname).
export const SERVER_CLI = fileURLToPath(new URL('../../server/dist/cli.js', import.meta.url));

/** A `svc-server start` process, as an operator runs it. */
export interface ServerProcess {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  /** The control key of the banner: printed on every start of a SQLite file, only on the first of a PostgreSQL database. */
  controlKey: string | undefined;
  /** The ingest key of the banner, printed alongside the control key. */
  ingestKey: string | undefined;
  /** Everything the process printed so far, stdout and stderr interleaved. */
  output(): string;
  /** SIGKILL: the process dies at once, finishing and recording nothing. Resolves once it has exited. */
  kill(): Promise<void>;
  /** SIGTERM, the graceful shutdown; resolves once it has exited. */
  stop(): Promise<void>;
}

export interface ServerProcessOptions {
  /**
   * Lets `svc-server start` relaunch itself with its memory settings, as it does for a user (server/src/runtime/
   * memory-relaunch.ts): stop() then reaches the server through its launcher, which passes the signal on, and kill()
   * kills the launcher only (the server notices and stops). Default false: the child is the server itself.
   */
  relaunch?: boolean;
}

/**
 * Starts `node server/dist/cli.js start` on a random port with `flags` (e.g. `{ 'database-url': …, 'secret-key': … }`)
 * and resolves once its banner is printed, i.e. it listens. Rejects with its output if it exits first. No deadline of
 * its own: a loaded machine makes the start slower, not a failure; the test's timeout bounds the wait.
 */
export function startServerProcess(
  flags: Record<string, string>,
  options: ServerProcessOptions = {},
): Promise<ServerProcess> {
  const args = [
    SERVER_CLI,
    'start',
    '--port',
    '0',
    ...Object.entries(flags).flatMap(([flag, value]) => [`--${flag}`, value]),
  ];
  // Unless `relaunch` is asked for, MALLOC_ARENA_MAX is set, so `svc-server start` does not relaunch itself
  // (server/src/runtime/memory-relaunch.ts): this child is the server, so kill() crashes the server itself rather than
  // its launcher.
  const child = spawn(process.execPath, args, {
    env: childEnv(options.relaunch ? {} : { ...MEMORY_ENV }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killWithTestProcess(child);
  let out = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return new Promise<ServerProcess>((ready, fail) => {
    const onOutput = (chunk: Buffer) => {
      out += chunk.toString();
      // The banner ends with the control key, or with a hint where keys are when none can be shown.
      if (!/(control key:\s+\S+|keys:\s+see [^\n]*)\n/.test(out)) return;
      child.stdout.off('data', onOutput);
      child.stdout.on('data', (more: Buffer) => (out += more.toString()));
      ready({
        url: /listening on (\S+)/.exec(out)![1]!,
        controlKey: /control key:\s+(\S+)/.exec(out)?.[1],
        ingestKey: /ingest key:\s+(\S+)/.exec(out)?.[1],
        output: () => out,
        kill: () => signal('SIGKILL'),
        stop: () => signal('SIGTERM'),
      });
    };
    child.stdout.on('data', onOutput);
    child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.once('error', fail);
    child.once('exit', (code, name) =>
      fail(new Error(`svc-server exited (${name ?? code}) before listening:\n${out}`)),
    );
  });
}

/** Children started here and still running: killed if the test process exits first. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * With no deadline of their own, a start or command that hangs lasts until the test's timeout ends the test process
 * (Vitest's forks, Playwright's workers): the child dies with it rather than outliving the run.
 */
function killWithTestProcess(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/**
 * A database that outlives the processes using it: a SQLite file in a fresh directory (an in-memory database would die
 * with its process), or a fresh PostgreSQL database.
 */
export async function createLastingDatabase(kind: DatabaseKind): Promise<TempDatabase> {
  if (kind === 'postgres') return createTempDatabase(kind);
  const dir = mkdtempSync(join(tmpdir(), 'svc-durable-'));
  return { url: join(dir, 'svc.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs an administration command of the built `svc-server` (`projects create …`, `keys create …`, `apps alias add …`)
 * as an operator types it, and resolves with what it printed on stdout; rejects with its output when it fails.
 */
export function runServerCli(args: readonly string[]): Promise<string> {
  const child = spawn(process.execPath, [SERVER_CLI, ...args], { env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  killWithTestProcess(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<string>((done, fail) => {
    child.once('error', fail);
    child.once('exit', (code, signal) => {
      if (code === 0) done(stdout);
      else fail(new Error(`svc-server ${args.join(' ')} exited (${signal ?? code}):\n${stdout}${stderr}`));
    });
  });
}
