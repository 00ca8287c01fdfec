/**
 * Server child process of `bench/notify.ts`, so the load generator and the receiver never share the server's event
 * loop.
 *
 *   node --import tsx bench/notify/server.ts <database-url> [outbox-concurrency]
 *
 * Runs the built reference server (`npm run bench:notify` builds it first) as `npm start` does, with a secret key,
 * private targets allowed (the receiver is on loopback) and incident detection off (only the benchmark opens
 * incidents). Prints one JSON line `{"url", "pid", "controlKey"}` to stdout when it listens.
 *
 * Commands on stdin, one per line: `advance <ms>` moves the server's clock forward and wakes the outbox, answering
 * `{"advanced": <ms>}`; this is how the drain phase makes a whole backlog of delayed deliveries due at the same
 * moment. The process exits cleanly (so `--cpu-prof` writes its profile) on SIGTERM, SIGINT or the end of stdin.
 */
import { closeWithParent } from '../../test/support/child-lifecycle';
import type * as ServerModule from '../../server/src/index';

const { startServer } = (await import('../../server/dist/index.js' as string)) as typeof ServerModule;

const [databaseUrl, outboxConcurrency] = process.argv.slice(2);

async function main(): Promise<void> {
  if (!databaseUrl) throw new Error('usage: bench/notify/server.ts <database-url> [outbox-concurrency]');
  let offsetMs = 0;
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl,
    clock: { now: () => Date.now() + offsetMs },
    secretKey: 'bench-notify-secret-key-0123456789abcdef',
    allowPrivateTargets: true,
    detection: false,
    outbox: outboxConcurrency ? { concurrency: Number(outboxConcurrency) } : undefined,
    log: (line) => process.stderr.write(`[server] ${line}\n`),
  });
  if (!server.bootstrap) throw new Error('expected an empty database to bootstrap');
  console.log(JSON.stringify({ url: server.url, pid: process.pid, controlKey: server.bootstrap.controlKey.key }));

  const commands = closeWithParent(() => server.close());
  commands.on('line', (line) => {
    const [command, argument] = line.trim().split(/\s+/);
    if (command !== 'advance' || !Number.isFinite(Number(argument))) {
      process.stderr.write(`[server] unknown command: ${line}\n`);
      return;
    }
    offsetMs += Number(argument);
    server.notify.outbox.wake();
    console.log(JSON.stringify({ advanced: Number(argument) }));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
