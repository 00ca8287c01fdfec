import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { stopProcess } from '../test/support/child-lifecycle';
import { plainNodeScript, serverChildEnv, serverChildNodeArgs } from './harness';

/** Where load is sent: a server's base URL and the ingest key it accepts (none for the ceiling). */
export interface Target {
  url: string;
  pid: number;
  ingestKey?: string;
}

/** A server child of bench/ingest-server.ts. */
export interface IngestChild extends Target {
  name: string;
  /** How it writes ingest rows (`sqlite, writer thread`, `postgres`, or `none` for the ceiling). */
  writer: string;
  /** An admin key of the project the server bootstrapped, for the control plane (none for the ceiling or a replica). */
  adminKey?: string;
  stop(): Promise<void>;
}

/**
 * Starts a server child: `args` are ingest-server's (`svc <database-url>` or `ceiling`), `nodeArgs` node's
 * (`--cpu-prof`), `env` its settings over this process's environment (`SVC_LIMIT_SPANS`).
 */
export type LaunchChild = (
  name: string,
  args: string[],
  nodeArgs?: string[],
  env?: Record<string, string>,
) => Promise<IngestChild>;

const START_TIMEOUT_MS = 60_000;

/** Children still running, killed if this process exits without stopping them (their stdin closing stops them too). */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Bundles bench/ingest-server.ts into `work` once and returns how to start children of it: under plain node, with the
 * memory settings `svc-server start` gives itself (serverChildNodeArgs, serverChildEnv), from the repository `root`.
 */
export async function childLauncher(root: string, work: string): Promise<LaunchChild> {
  const script = await plainNodeScript(join(root, 'bench', 'ingest-server.ts'), join(work, 'ingest-server.mjs'));
  return async (name, args, nodeArgs = [], env = {}) => {
    const proc = spawn(process.execPath, [...serverChildNodeArgs(), ...nodeArgs, script, ...args], {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
      env: serverChildEnv(env),
    });
    running.add(proc);
    proc.once('exit', () => running.delete(proc));
    const ready = await readyMessage(name, proc).catch((error: unknown) => {
      proc.kill('SIGKILL');
      throw error;
    });
    return { name, ...ready, stop: () => stopProcess(proc) };
  };
}

/** Starts a child, runs `use` on it, and stops it whether `use` succeeds or not. */
export async function withChild<T>(
  launch: LaunchChild,
  name: string,
  args: string[],
  use: (child: IngestChild) => Promise<T>,
  nodeArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<T> {
  const child = await launch(name, args, nodeArgs, env);
  try {
    return await use(child);
  } finally {
    await child.stop();
  }
}

/** The child's one JSON line saying it listens; any other line it prints is a diagnostic, passed on to stderr. */
function readyMessage(name: string, proc: ChildProcess): Promise<Omit<IngestChild, 'name' | 'stop'>> {
  const lines = createInterface({ input: proc.stdout! });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${name} did not start within ${START_TIMEOUT_MS / 1000} s`)),
      START_TIMEOUT_MS,
    );
    const onExit = (code: number | null) => reject(new Error(`${name} exited with ${code} before listening`));
    proc.once('exit', onExit);
    lines.on('line', (line) => {
      try {
        const ready = JSON.parse(line) as Omit<IngestChild, 'name' | 'stop'>;
        clearTimeout(timer);
        proc.off('exit', onExit);
        resolve(ready);
      } catch {
        process.stderr.write(`[${name}] ${line}\n`);
      }
    });
  });
}
