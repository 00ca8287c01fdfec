import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * Two settings that keep the server's memory where its work needs it, both read only when a process starts, so
 * `svc-server start` starts itself once more with them (measured with `npm run bench:cost`, docs/benchmarks.md):
 *
 * - `MALLOC_ARENA_MAX=2`: glibc's malloc gives threads that allocate at the same time arenas of their own (up to 8 per
 *   core) and keeps what is freed in them. The server's zlib work runs on libuv's thread pool, so a cost sync (hundreds
 *   of MiB through gunzip) left the process holding memory it no longer used: a month's re-sync peaked at 301–305 MiB,
 *   from 246–284 MiB held before it started.
 * - `--max-semi-space-size=4` (MiB, V8's default grows to 16): a young generation of short-lived parsed rows that grows
 *   large is RSS the process keeps; with both settings a sync peaked at 152 MiB and the re-sync at 235 MiB, at the same
 *   rows per second.
 *
 * Only on Linux with glibc (other C libraries, such as musl on Alpine, have no such arenas), and not when the user set
 * MALLOC_ARENA_MAX (any value): then the server runs in the one process, with the flags the user gave node.
 */
export const MEMORY_ENV = { MALLOC_ARENA_MAX: '2' } as const;
export const MEMORY_EXEC_ARGV = ['--max-semi-space-size=4'] as const;

/** Set by the launcher on its child, so the child knows its parent forwards signals and watches for the parent's exit. */
const LAUNCHED_ENV = 'SVC_SERVER_LAUNCHED';

export function needsMemoryRelaunch(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.MALLOC_ARENA_MAX !== undefined || env[LAUNCHED_ENV] !== undefined || process.platform !== 'linux')
    return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime !== undefined;
}

/**
 * Runs this same command in a child process with the memory settings and mirrors it: signals are passed on, and the
 * child's exit code (or 128 + signal number) becomes this process's. Resolves with that code.
 */
export function relaunchWithMemorySettings(): Promise<number> {
  // The user's own node flags come after ours, so one of theirs wins over ours.
  const child = spawn(process.execPath, [...MEMORY_EXEC_ARGV, ...process.execArgv, ...process.argv.slice(1)], {
    env: { ...process.env, ...MEMORY_ENV, [LAUNCHED_ENV]: '1' },
    // The IPC channel closes when this process dies, however it dies: the child then stops (watchLauncher).
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => child.kill(signal));
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? 128 + (signal ? constants.signals[signal] : 0)));
    child.once('error', () => resolve(1));
  });
}

/** In the relaunched child: calls `stop` when the launcher is gone (killed without passing a signal on). */
export function watchLauncher(stop: () => void): void {
  if (process.env[LAUNCHED_ENV] === undefined || !process.connected) return;
  process.on('disconnect', stop);
  // The channel must not keep the server alive by itself, nor keep it from exiting.
  process.channel?.unref();
}
