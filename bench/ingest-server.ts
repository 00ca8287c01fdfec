/**
 * Server child process for `bench/ingest.ts`, so the load generator never shares the server's event loop.
 *
 *   node bench/ingest-server.mjs svc <database-url>   the built reference server (startServer) on a SQLite file (WAL) or
 *                                                     a postgres:// URL
 *   node bench/ingest-server.mjs ceiling              node:http that reads and JSON.parses bodies, answers 200
 *
 * bench/ingest-child.ts bundles this file into a plain .mjs first (so the memory measured is the server's, not tsx's);
 * `node --import tsx bench/ingest-server.ts …` runs it too. Run it from the repository root: it loads server/dist
 * from the working directory, which the bundled copy in a temporary folder cannot find by its own location.
 *
 * Prints one JSON line `{"url", "pid", "writer", "ingestKey", "adminKey"}` to stdout when it listens. The keys are there
 * only when this start bootstrapped the database: a second replica on the same PostgreSQL database creates no keys and
 * sends the first one's. The admin key is made as `svc-server keys create --scope admin` makes it, for benchmarks that
 * set up projects and limits through the control plane. The ingest limits are read from the environment as `svc-server
 * start` reads them (`SVC_LIMIT_SPANS=rate=0,daily=0`), and so is retention (`SVC_RETENTION_DAYS=0`). Exits cleanly on SIGTERM/SIGINT or when stdin closes (so `--cpu-prof` writes its profile).
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as ServerModule from '../server/src/index';
import { closeWithParent } from '../test/support/child-lifecycle';

/**
 * Replicas sharing a database must share the secret key; given, the server also writes no key file (for PostgreSQL
 * it would write one into the working directory, the repository).
 */
const SECRET_KEY = 'bench-ingest-secret-key-0123456789abcdef01';

const [mode, databaseUrl] = process.argv.slice(2);

interface Ready {
  url: string;
  pid: number;
  /** How ingest writes rows (e.g. `sqlite, writer thread`, `postgres`). */
  writer: string;
  ingestKey?: string;
  adminKey?: string;
}

const announce = (ready: Ready) => console.log(JSON.stringify(ready));

/** The built server (`npm run bench:ingest` builds it first), as `npm start` runs it: only the build starts the writer thread. */
async function startReferenceServer(): Promise<() => Promise<void>> {
  if (!databaseUrl) throw new Error('usage: ingest-server svc <sqlite-file | postgres-url>');
  const dist = pathToFileURL(join(process.cwd(), 'server', 'dist', 'index.js')).href;
  const { createKey, loadConfig, startServer } = (await import(dist)) as typeof ServerModule;
  const { limits, retentionDays, retentionBySignal } = loadConfig([], process.env);
  const server = await startServer({
    port: 0,
    host: '127.0.0.1',
    databaseUrl,
    secretKey: SECRET_KEY,
    log: () => undefined,
    ...(limits ? { limits } : {}),
    retentionDays,
    ...(retentionBySignal ? { retentionBySignal } : {}),
  });
  const { bootstrap } = server;
  const admin =
    bootstrap &&
    (await createKey(
      server.database.db,
      { now: () => Date.now() },
      { projectId: bootstrap.projectId, scope: 'admin' },
    ));
  announce({
    url: server.url,
    pid: process.pid,
    writer: server.ingestWriter,
    ingestKey: bootstrap?.ingestKey.key,
    adminKey: admin?.key,
  });
  return () => server.close();
}

/** The least any JSON ingest server must do: read the whole body, parse it, answer. */
async function startCeiling(): Promise<() => Promise<void>> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"partialSuccess":{}}');
      } catch {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"error":{"code":"invalid_request","message":"bad JSON"}}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  announce({ url: `http://127.0.0.1:${port}`, pid: process.pid, writer: 'none' });
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

/**
 * `SVC_BENCH_STALLS=1`: what held the event loop. SIGUSR2 starts a window; SIGUSR1 prints one JSON line to stderr
 * with the window's event-loop delay (p50, p99, max), garbage-collection pauses, and the main thread's SQLite statements
 * and transactions that took 20 ms or more, so a latency tail can be told apart: a loop blocked as long as the tail
 * (synchronous work, a statement or GC on the main thread) or a free loop (the writer).
 */
function watchStalls(): void {
  const slow = timeStatements();
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  let pauses: number[] = [];
  new PerformanceObserver((list) => pauses.push(...list.getEntries().map((e) => e.duration))).observe({
    entryTypes: ['gc'],
  });
  process.on('SIGUSR2', () => {
    loop.reset();
    pauses = [];
    slow.clear();
  });
  process.on('SIGUSR1', () => {
    const ms = (ns: number) => Math.round(ns / 1e5) / 10;
    const stalls = {
      loopP50: ms(loop.percentile(50)),
      loopP99: ms(loop.percentile(99)),
      loopMax: ms(loop.max),
      gcPauses: pauses.length,
      gcOver20ms: pauses.filter((d) => d > 20).length,
      gcMaxMs: Math.round(Math.max(0, ...pauses)),
      gcTotalMs: Math.round(pauses.reduce((a, b) => a + b, 0)),
      slowStatements: [...slow.entries()]
        .sort((a, b) => b[1].maxMs - a[1].maxMs)
        .slice(0, 8)
        .map(([sql, s]) => ({ sql: sql.slice(0, 160), ...s })),
    };
    console.error(JSON.stringify({ stalls }));
  });
}

/** Synchronous better-sqlite3 calls on the server's main thread over this long are recorded, by statement text. */
const SLOW_STATEMENT_MS = 20;

interface SlowStatement {
  count: number;
  maxMs: number;
}

/**
 * Times every statement the main thread's SQLite connection runs (better-sqlite3 is synchronous: a statement's whole
 * run blocks the event loop), by wrapping the driver's Statement methods; the writer thread loads its own copy.
 */
function timeStatements(): Map<string, SlowStatement> {
  const slow = new Map<string, SlowStatement>();
  const SQLite = createRequire(join(process.cwd(), 'server', 'package.json'))(
    'better-sqlite3',
  ) as typeof import('better-sqlite3');
  const probe = new SQLite(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>;
  probe.close();
  const note = (sql: string, ms: number) => {
    if (ms < SLOW_STATEMENT_MS) return;
    const seen = slow.get(sql) ?? { count: 0, maxMs: 0 };
    slow.set(sql, { count: seen.count + 1, maxMs: Math.max(seen.maxMs, Math.round(ms)) });
  };
  // A transaction holds the connection (and, begun immediate, the write lock) across awaits: timed from BEGIN to its
  // end, named after its first statement.
  let open: { started: number; first?: string } | undefined;
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = proto[method]!;
    proto[method] = function timed(this: { source: string }, ...args: unknown[]) {
      const sql = this.source;
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        note(sql, performance.now() - started);
        if (/^begin/i.test(sql)) open = { started };
        else if (/^(commit|rollback)/i.test(sql) && open) {
          note(`transaction: ${open.first ?? ''}`, performance.now() - open.started);
          open = undefined;
        } else if (open && !open.first) open.first = sql;
      }
    };
  }
  const connection = SQLite.prototype as unknown as Record<string, (...a: unknown[]) => unknown>;
  for (const method of ['exec', 'pragma']) {
    const original = connection[method]!;
    connection[method] = function timed(this: unknown, ...args: unknown[]) {
      const started = performance.now();
      try {
        return original.apply(this, args);
      } finally {
        note(`${method}: ${String(args[0])}`, performance.now() - started);
      }
    };
  }
  return slow;
}

async function main(): Promise<void> {
  if (process.env.SVC_BENCH_STALLS) watchStalls();
  if (mode === 'svc') closeWithParent(await startReferenceServer());
  else if (mode === 'ceiling') closeWithParent(await startCeiling());
  else throw new Error(`unknown mode ${String(mode)}: use svc or ceiling`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
