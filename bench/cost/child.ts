import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { cpuSecondsOf, stopProcess } from '../../test/support/child-lifecycle';
import { build } from 'esbuild';
import { serverChildEnv, serverChildNodeArgs } from '../harness';

/** The reference server running in its own process (bench/cost/server.ts). */
export interface CostServerChild {
  url: string;
  pid: number;
  controlKey: string;
  /** `VmRSS` and `VmHWM` (peak since start or the last `resetPeak`) of the server process, in bytes. */
  memory(): { rss: number; peak: number };
  /** Sets the process's peak RSS back to its current RSS (Linux `clear_refs` 5), so a phase's own peak can be read. */
  resetPeak(): void;
  /** User + system CPU seconds the server process has used so far. */
  cpuSeconds(): number;
  /** Starts the server's CPU profiler (bench/cost/server.ts). */
  startProfile(): Promise<void>;
  /** Stops it and writes what it sampled to `file`. */
  stopProfile(file: string): Promise<void>;
  stop(): Promise<void>;
}

export interface CostServerOptions {
  /** The server build to run: a folder holding `index.js` (server/dist, or a copy to compare with). */
  dist: string;
  databaseUrl: string;
  s3: string;
  sts: string;
  /** Where the server's clock starts. */
  now: Date;
  /** Folder for the child's plain-JavaScript script. */
  work: string;
  /** Arguments to node (`--cpu-prof`). */
  nodeArgs?: string[];
}

const START_TIMEOUT_MS = 60_000;
const COMMAND_TIMEOUT_MS = 60_000;

/**
 * Starts bench/cost/server.ts under plain node: its types are stripped with esbuild into `work` first, because running
 * it under `--import tsx` would add tsx's module-loader thread (~45 MB) to the very peak RSS the benchmark measures.
 */
export async function startCostServer(root: string, options: CostServerOptions): Promise<CostServerChild> {
  const source = join(root, 'bench', 'cost', 'server.ts');
  // Bundled (its few local helpers inlined; packages and the server's dist stay imports), so it runs under plain node.
  const script = join(options.work, 'cost-server.mjs');
  await build({
    entryPoints: [source],
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: script,
    logLevel: 'warning',
  });
  const childOptions = {
    dist: pathToFileURL(join(options.dist, 'index.js')).href,
    databaseUrl: options.databaseUrl,
    s3: options.s3,
    sts: options.sts,
    now: options.now.toISOString(),
  };
  const proc = spawn(
    process.execPath,
    [...serverChildNodeArgs(), ...(options.nodeArgs ?? []), script, JSON.stringify(childOptions)],
    {
      cwd: root,
      stdio: ['pipe', 'pipe', 'inherit'],
      // The base credentials the server signs AssumeRole with (the local STS accepts any); the SDK's notice that it will
      // want Node 22 from 2027 said once per process is noise here.
      env: serverChildEnv({
        AWS_ACCESS_KEY_ID: 'AKIDBENCHBASECREDS',
        AWS_SECRET_ACCESS_KEY: 'bench-base-secret',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      }),
    },
  );
  const messages = messagesOf(proc);
  const ready = await messages
    .next<{ url: string; pid: number; controlKey: string }>(START_TIMEOUT_MS)
    .catch((error: unknown) => {
      proc.kill('SIGKILL');
      throw error;
    });
  const command = async (line: string) => {
    const answered = messages.next<{ error?: string }>(COMMAND_TIMEOUT_MS);
    proc.stdin!.write(`${line}\n`);
    const answer = await answered;
    if (answer.error) throw new Error(`${line}: ${answer.error}`);
  };
  return {
    ...ready,
    memory: () => memoryOf(ready.pid),
    resetPeak: () => writeFileSync(`/proc/${ready.pid}/clear_refs`, '5'),
    cpuSeconds: () => cpuSecondsOf(ready.pid),
    startProfile: () => command('profile start'),
    stopProfile: (file) => command(`profile stop ${file}`),
    stop: () => stopProcess(proc),
  };
}

/** The child's JSON lines, one at a time; its other stdout lines are diagnostics and go to stderr. */
function messagesOf(proc: ChildProcess): { next<T>(timeoutMs: number): Promise<T> } {
  const lines = createInterface({ input: proc.stdout! });
  const queued: unknown[] = [];
  let waiting: ((message: unknown) => void) | undefined;
  lines.on('line', (line) => {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      process.stderr.write(`[server] ${line}\n`);
      return;
    }
    if (waiting) waiting(message);
    else queued.push(message);
  });
  return {
    next<T>(timeoutMs: number) {
      if (queued.length > 0) return Promise.resolve(queued.shift() as T);
      return new Promise<T>((resolve, reject) => {
        const onExit = (code: number | null) => done(new Error(`the server exited with ${code}`));
        const timer = setTimeout(
          () => done(new Error(`the server did not answer within ${timeoutMs / 1000} s`)),
          timeoutMs,
        );
        function done(error: Error | undefined, message?: unknown) {
          clearTimeout(timer);
          proc.off('exit', onExit);
          waiting = undefined;
          if (error) reject(error);
          else resolve(message as T);
        }
        proc.once('exit', onExit);
        waiting = (message) => done(undefined, message);
      });
    },
  };
}

function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), peak: kib('VmHWM') };
}
