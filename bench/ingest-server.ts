/**
 * Server child process for `bench/ingest.ts`, so the load generator never shares the server's event loop.
 *
 *   node --import tsx bench/ingest-server.ts svc <sqlite-file>   the built reference server (startServer), SQLite file, WAL
 *   node --import tsx bench/ingest-server.ts ceiling             node:http that reads and JSON.parses bodies, answers 200
 *
 * Prints one JSON line `{"url", "pid", "ingestKey"}` to stdout when it listens; exits cleanly on SIGTERM/SIGINT (so
 * `--cpu-prof` writes its profile).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type * as ServerModule from '../server/src/index';
import { closeWithParent } from '../test/support/child-lifecycle';

// The built server (`npm run bench:ingest` builds it first), as `npm start` runs it: only the build starts the ingest
// writer thread.
const { startServer } = (await import('../server/dist/index.js' as string)) as typeof ServerModule;

const [mode, databasePath] = process.argv.slice(2);

async function main(): Promise<void> {
  let close: () => Promise<void>;
  if (mode === 'svc') {
    if (!databasePath) throw new Error('usage: ingest-server.ts svc <sqlite-file>');
    const server = await startServer({ port: 0, host: '127.0.0.1', databaseUrl: databasePath, log: () => undefined });
    if (!server.bootstrap) throw new Error('expected an empty database to bootstrap');
    console.error(`reference server ingest writer: ${server.ingestWriter}`);
    console.log(JSON.stringify({ url: server.url, pid: process.pid, ingestKey: server.bootstrap.ingestKey.key }));
    close = () => server.close();
  } else if (mode === 'ceiling') {
    // The least any JSON ingest server must do: read the whole body, parse it, answer.
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        try {
          JSON.parse(Buffer.concat(chunks).toString('utf8'));
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"partialSuccess":{}}');
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"code":"invalid_request","message":"bad JSON"}}');
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    console.log(JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: process.pid, ingestKey: '' }));
    close = () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
  } else {
    throw new Error(`unknown mode ${String(mode)}: use svc or ceiling`);
  }
  closeWithParent(close);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
