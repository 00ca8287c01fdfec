/**
 * One bash, fed one command at a time, as a reader types a page's commands into a terminal: `cd` and variables carry
 * from one command to the next, and each command's exit status and output (stdout and stderr, interleaved) are
 * known before the next is typed, so a later command can use what an earlier one printed.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';

export interface CommandResult {
  status: number;
  output: string;
}

export interface ShellSession {
  /** Runs `command` (its stdin empty); rejects when it outlives `timeoutMs`, having killed the shell and its children. */
  run(command: string, timeoutMs: number): Promise<CommandResult>;
  close(): void;
}

export function startShell(cwd: string, env: NodeJS.ProcessEnv): ShellSession {
  // Its own process group: a timeout kills whatever the command started too.
  const shell = spawn('bash', ['--norc', '--noprofile'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let stdout = '';
  let transcript = '';
  let heard = (): void => undefined;
  shell.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    transcript += chunk.toString();
    heard();
  });
  shell.stderr.on('data', (chunk: Buffer) => {
    transcript += chunk.toString();
  });
  const kill = () => {
    try {
      process.kill(-shell.pid!, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  return {
    run(command, timeoutMs) {
      const marker = `__svc_command_done_${randomBytes(6).toString('hex')}__`;
      const done = new RegExp(`\\n${marker} (\\d+)\\n`);
      stdout = '';
      transcript = '';
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          kill();
          reject(new Error(`\`${command}\` did not finish within ${timeoutMs} ms:\n${transcript}`));
        }, timeoutMs);
        heard = () => {
          const end = done.exec(stdout);
          if (!end) return;
          clearTimeout(timer);
          heard = () => undefined;
          resolve({ status: Number(end[1]), output: transcript.replace(done, '\n') });
        };
        shell.stdin.write(`{\n${command}\n} </dev/null\nprintf '\\n${marker} %s\\n' "$?"\n`);
      });
    },
    close: kill,
  };
}
