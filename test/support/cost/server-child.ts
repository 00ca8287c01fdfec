/**
 * The reference server in a process of its own, for a test that needs a process-wide setting an in-process server
 * cannot be given: NODE_EXTRA_CA_CERTS, which Node reads once at start, so the server trusts a local HTTPS fake's
 * certificate the way an operator's server trusts a private CA (the Azure SDK sends bearer tokens over HTTPS only).
 *
 *   NODE_EXTRA_CA_CERTS=<ca.pem> node --import tsx test/support/cost/server-child.ts '<options as JSON>'
 *
 * Options ({@link ServerChildOptions}): the database URL, a fixed clock and the cost endpoints. Incident detection is
 * off. Prints one JSON line `{"url", "controlKey"}` to stdout once it listens; its log goes to stderr. Stops cleanly
 * on SIGTERM or SIGINT, and when stdin closes, so it never outlives the test that started it.
 */
import { randomBytes } from 'node:crypto';
import { closeWithParent } from '../child-lifecycle';
import { startServer } from '../../../server/src/index';
import type { CostEndpoints } from '../../../server/src/cost/sources/types';

export interface ServerChildOptions {
  databaseUrl: string;
  /** The server's clock stands still at this time (epoch ms). */
  nowMs: number;
  endpoints: CostEndpoints;
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '') as ServerChildOptions;
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl: options.databaseUrl,
    clock: { now: () => options.nowMs },
    // Sealed connection secrets live only as long as the test's database: no key file is written.
    secretKey: randomBytes(32).toString('hex'),
    detection: false,
    cost: { endpoints: options.endpoints },
    log: (line) => process.stderr.write(`[server] ${line}\n`),
  });
  if (!server.bootstrap) throw new Error('expected an empty database to bootstrap');
  console.log(JSON.stringify({ url: server.url, controlKey: server.bootstrap.controlKey.key }));

  closeWithParent(() => server.close());
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
