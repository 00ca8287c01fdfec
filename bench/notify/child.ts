import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { cpuSecondsOf, stopProcess } from '../../test/support/child-lifecycle';
import { serverChildEnv, serverChildNodeArgs } from '../harness';

/** The reference server running in its own process (bench/notify/server.ts). */
export interface ServerChild {
  url: string;
  pid: number;
  controlKey: string;
  /** Moves the server's clock forward by `ms` and wakes its outbox; resolves once the server has done so. */
  advance(ms: number): Promise<void>;
  /** User + system CPU seconds the server process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 60_000;

/** Starts the server child on `databaseUrl`; `nodeArgs` go to node (e.g. `--cpu-prof`). */
export async function startServerChild(
  root: string,
  databaseUrl: string,
  options: { outboxConcurrency?: number; nodeArgs?: string[] },
): Promise<ServerChild> {
  const args = [
    ...(options.nodeArgs ?? []),
    '--import',
    'tsx',
    join(root, 'bench', 'notify', 'server.ts'),
    databaseUrl,
  ];
  if (options.outboxConcurrency !== undefined) args.push(String(options.outboxConcurrency));
  const proc = spawn(process.execPath, [...serverChildNodeArgs(), ...args], {
    cwd: root,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: serverChildEnv(),
  });
  const lines = createInterface({ input: proc.stdout! });
  const ready = await firstMessage<{ url: string; pid: number; controlKey: string }>(
    proc,
    lines,
    START_TIMEOUT_MS,
  ).catch((error: unknown) => {
    proc.kill('SIGKILL');
    throw error;
  });
  return {
    ...ready,
    async advance(ms) {
      const answered = firstMessage(proc, lines, 10_000);
      proc.stdin!.write(`advance ${ms}\n`);
      await answered;
    },
    cpuSeconds: () => cpuSecondsOf(ready.pid),
    stop: () => stopProcess(proc),
  };
}

/** The next JSON line the child prints; other lines are its diagnostics and go to stderr. */
function firstMessage<T>(proc: ChildProcess, lines: Interface, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => done(new Error(`the server exited with ${code}`));
    const onLine = (line: string) => {
      try {
        const message = JSON.parse(line) as T;
        done(undefined, message);
      } catch {
        process.stderr.write(`[server] ${line}\n`);
      }
    };
    const timer = setTimeout(
      () => done(new Error(`the server did not answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    function done(error: Error | undefined, message?: T) {
      clearTimeout(timer);
      lines.off('line', onLine);
      proc.off('exit', onExit);
      if (error) reject(error);
      else resolve(message!);
    }
    proc.once('exit', onExit);
    lines.on('line', onLine);
  });
}
