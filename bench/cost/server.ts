/**
 * Server child process of `bench/cost.ts`: the built reference server (`server/dist`, as `npm start` runs it), so its
 * memory and CPU are its own and never the benchmark's.
 *
 *   node bench/cost/server.mjs '<json>'     (bench/cost/child.ts strips the types to a plain .mjs first)
 *   node --import tsx bench/cost/server.ts '<json>'
 *
 * The JSON argument: `dist` (file URL of server/dist/index.js), `databaseUrl`, `s3` and `sts` (the local s3rver and STS
 * endpoints the cost sources use instead of AWS's), `now` (ISO time the server's clock starts at; it then runs at the
 * real rate, so a sync's recorded start and finish are real durations). The periodic sync poll is an hour: a sync runs
 * when a connection is created or `POST /control-plane/cost/providers/{id}/sync` wakes the worker, nothing else.
 *
 * Prints one JSON line `{"url", "pid", "controlKey"}` to stdout when it listens; its log goes to stderr. Commands on
 * stdin, one per line, so `--profile` can show each phase apart (a whole-process `--cpu-prof` mixes the sync with the
 * report queries): `profile start` starts the V8 CPU profiler, answering `{"profiling": true}`; `profile stop <file>`
 * writes what it sampled since to `<file>` (a `.cpuprofile`), answering `{"profile": "<file>"}`. Exits on SIGTERM,
 * SIGINT or the end of stdin.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { closeWithParent } from '../../test/support/child-lifecycle';
import type * as ServerModule from '../../server/src/index';

interface ChildOptions {
  dist: string;
  databaseUrl: string;
  s3: string;
  sts: string;
  now: string;
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? 'null') as ChildOptions | null;
  if (!options) throw new Error(`usage: bench/cost/server.ts '{"dist", "databaseUrl", "s3", "sts", "now"}'`);
  const { startServer } = (await import(options.dist)) as typeof ServerModule;
  const offsetMs = Date.parse(options.now) - Date.now();
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: options.databaseUrl,
    clock: { now: () => Date.now() + offsetMs },
    secretKey: 'bench-cost-secret-key-0123456789abcdef0123',
    detection: false,
    cost: { endpoints: { s3: options.s3, sts: options.sts }, sync: { pollMs: 3_600_000 } },
    log: (line) => process.stderr.write(`[server] ${line}\n`),
  });
  if (!server.bootstrap) throw new Error('expected an empty database to bootstrap');
  console.log(JSON.stringify({ url: server.url, pid: process.pid, controlKey: server.bootstrap.controlKey.key }));

  const stdin = closeWithParent(() => server.close());
  const profiler = new Session();
  profiler.connect();
  stdin.on('line', (line) => {
    const [command, action, file] = line.trim().split(/\s+/);
    const answer =
      command !== 'profile'
        ? undefined
        : action === 'start'
          ? profiler
              .post('Profiler.enable')
              .then(() => profiler.post('Profiler.start'))
              .then(() => ({ profiling: true }))
          : action === 'stop' && file
            ? profiler.post('Profiler.stop').then(({ profile }) => {
                writeFileSync(file, JSON.stringify(profile));
                return { profile: file };
              })
            : undefined;
    if (!answer) {
      process.stderr.write(`[server] unknown command: ${line}\n`);
      return;
    }
    answer.then(
      (message) => console.log(JSON.stringify(message)),
      (error: unknown) => console.log(JSON.stringify({ error: String(error) })),
    );
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
