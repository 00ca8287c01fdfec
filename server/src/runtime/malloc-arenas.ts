import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * glibc's malloc gives threads that allocate at the same time arenas of their own (up to 8 per core) and keeps what is
 * freed in them instead of returning it to the system. The server's zlib work runs on libuv's thread pool, so a cost
 * sync (hundreds of MiB through gunzip) leaves the process holding memory it no longer uses: `npm run bench:cost`
 * measured a month's re-sync peaking at 301–303 MiB (from 246–284 MiB held before it started), and 199 MiB with
 * MALLOC_ARENA_MAX=2, at the same speed. glibc reads the variable only when the process starts, so `svc-server start`
 * starts itself once more with it set; a value the user set (any value) is kept and nothing is relaunched, and other C
 * libraries (musl on Alpine) have no such arenas.
 */
export const ARENA_ENV = { MALLOC_ARENA_MAX: '2' } as const;

/** Set by the launcher on its child, so the child knows its parent forwards signals and watches for the parent's exit. */
const LAUNCHED_ENV = 'SVC_SERVER_LAUNCHED';

export function needsArenaLimit(env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.MALLOC_ARENA_MAX !== undefined || env[LAUNCHED_ENV] !== undefined || process.platform !== 'linux') return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return report?.header?.glibcVersionRuntime !== undefined;
}

/**
 * Runs this same command in a child process with ARENA_ENV and mirrors it: signals are passed on, and the child's exit
 * code (or 128 + signal number) becomes this process's. Resolves with that code.
 */
export function relaunchWithArenaLimit(): Promise<number> {
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    env: { ...process.env, ...ARENA_ENV, [LAUNCHED_ENV]: '1' },
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

