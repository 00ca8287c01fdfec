import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { MEMORY_ENV } from '../../server/src/runtime/memory-relaunch';
import { childEnv } from './child-env';
import { createTempDatabase, type DatabaseKind, type TempDatabase } from './databases';

// The shipped bin, built by the global setup (test/support/build-server.ts): what `npm start` runs.
const CLI = resolve(__dirname, '../../server/dist/cli.js');

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

/**
 * Starts `node server/dist/cli.js start` on a random port with `flags` (e.g. `{ 'database-url': …, 'secret-key': … }`)
 * and resolves once its banner is printed, i.e. it listens. Rejects with its output if it exits first.
 */
export function startServerProcess(flags: Record<string, string>, timeoutMs = 20_000): Promise<ServerProcess> {
  const args = [CLI, 'start', '--port', '0', ...Object.entries(flags).flatMap(([flag, value]) => [`--${flag}`, value])];
  // With MALLOC_ARENA_MAX already set, `svc-server start` does not relaunch itself (server/src/runtime/memory-relaunch.ts):
  // this child is the server, so kill() crashes the server itself rather than its launcher.
  const child = spawn(process.execPath, args, { env: childEnv({ ...MEMORY_ENV }), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const signal = async (name: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(name);
    await exited;
  };
  return new Promise<ServerProcess>((ready, fail) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`svc-server printed no banner within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onOutput = (chunk: Buffer) => {
      out += chunk.toString();
      // The banner ends with the control key, or with a hint where keys are when none can be shown.
      if (!/(control key:\s+\S+|keys:\s+see [^\n]*)\n/.test(out)) return;
      clearTimeout(timer);
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
    child.once('exit', (code, name) => {
      clearTimeout(timer);
      fail(new Error(`svc-server exited (${name ?? code}) before listening:\n${out}`));
    });
  });
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
