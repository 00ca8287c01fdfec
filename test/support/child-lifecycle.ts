import { createInterface, type Interface } from 'node:readline';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

/**
 * In a server child process (bench servers, the Azure test's server): closes the server and exits on SIGTERM, SIGINT
 * or when the parent closes stdin — so it exits with the parent even if that dies without signalling. Returns stdin's
 * lines, for children that take commands.
 */
export function closeWithParent(close: () => Promise<void>): Interface {
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const lines = createInterface({ input: process.stdin });
  lines.on('close', stop);
  return lines;
}

/** In the parent: SIGTERM, and SIGKILL if the child has not exited 15 s later. */
export async function stopProcess(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  proc.kill('SIGTERM');
  const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** User + system CPU seconds a process has used (Linux /proc). */
export function cpuSecondsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}
