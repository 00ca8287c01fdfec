/** Where the CLI writes and what it reads from its environment; the bin passes the process's, tests their own. */
export interface CliIo {
  /** One line (or block) of normal output, without the trailing newline. */
  out(text: string): void;
  /** One line (or block) of diagnostics, without the trailing newline. */
  err(text: string): void;
  env: Record<string, string | undefined>;
  /** Pause between polls of `install --wait`. */
  sleep(ms: number): Promise<void>;
}

export function processIo(): CliIo {
  return {
    out: (text) => process.stdout.write(`${text}\n`),
    err: (text) => process.stderr.write(`${text}\n`),
    env: process.env,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  };
}
