/**
 * How long `svc-server start` takes to listen, for one or more builds side by side, in turn.
 *
 *   npm run bench:startup [-- --cli server/dist/cli.js,/path/to/other/checkout/server/dist/cli.js --runs 6]
 *
 * Each run spawns `<cli> start --port 0 --database-url :memory:` (its memory relaunch included, as users start it) and
 * times it from the spawn to the "listening" line, then stops it. The builds take turns, so a change in the machine's
 * load falls on each alike. Printed: the median and every run per build.
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';

const { values: args } = parseArgs({
  options: {
    cli: { type: 'string', default: 'server/dist/cli.js' },
    runs: { type: 'string', default: '6' },
  },
});
const CLIS = args.cli.split(',').filter(Boolean);
const RUNS = Number(args.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error('--runs must be a positive integer');

/** Milliseconds from spawning `cli start` to its "listening" line. */
function timeToListen(cli: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, 'start', '--port', '0', '--database-url', ':memory:'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let listenedAt: number | undefined;
    child.stdout.on('data', (chunk: Buffer) => {
      if (listenedAt === undefined && chunk.toString().includes('listening')) {
        listenedAt = performance.now() - started;
        child.kill();
      }
    });
    child.once('error', reject);
    child.once('exit', () =>
      listenedAt === undefined ? reject(new Error(`${cli} exited before it listened`)) : resolve(listenedAt),
    );
  });
}

const times = new Map(CLIS.map((cli) => [cli, [] as number[]]));
for (let run = 0; run < RUNS; run++) for (const cli of CLIS) times.get(cli)!.push(await timeToListen(cli));
for (const [cli, ms] of times) {
  const sorted = [...ms].sort((a, b) => a - b);
  console.log(
    `${cli}: median ${Math.round(sorted[sorted.length >> 1]!)} ms to listen (runs: ${ms.map(Math.round).join(', ')})`,
  );
}
