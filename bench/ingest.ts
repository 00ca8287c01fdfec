/**
 * Trace ingest throughput: the reference server (SQLite file database, WAL) against a ceiling, a bare node:http
 * server that only reads and JSON.parses the same bodies. Both run in child processes (bench/ingest-server.ts); this
 * process only generates load, over loopback.
 *
 *   npm run bench:ingest [-- --duration 10 --warmup 2 --connections 16 --profile]
 *
 * Phase 1 (closed loop): `connections` keep-alive connections each send the next 100-span OTLP/JSON batch as soon as
 * the previous answer arrives, for `warmup` + `duration` seconds; only requests completed inside the measured window
 * count. Reports requests/s, spans/s, p50/p99 latency, server CPU and peak RSS (VmHWM).
 * Phase 2 (open loop): requests at a fixed rate, half the reference server's phase-1 maximum, for `duration` seconds;
 * latency counts from each request's scheduled send time, so a stalled server cannot hide its queueing delay.
 * Finally the SQLite file is opened and its spans counted: every acknowledged span must be there.
 *
 * `--profile` runs the reference server under `node --cpu-prof` and prints its top self-time functions and files.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpuProfileTables } from './cpu-profile';
import { prng, serverChildEnv, serverChildNodeArgs } from './harness';
import http from 'node:http';
import { cpus, tmpdir, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVER_SCRIPT = join(ROOT, 'bench', 'ingest-server.ts');
const SPANS_PER_BATCH = 100;

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    batches: { type: 'string', default: '64' },
    profile: { type: 'boolean', default: false },
  },
});
const DURATION_MS = Number(args.duration) * 1000;
const WARMUP_MS = Number(args.warmup) * 1000;
const CONNECTIONS = Number(args.connections);
const BATCHES = Number(args.batches);
for (const [k, v] of Object.entries({ DURATION_MS, WARMUP_MS, CONNECTIONS, BATCHES })) {
  if (!Number.isFinite(v) || v < 0 || (k !== 'WARMUP_MS' && v === 0)) throw new Error(`invalid --${k.toLowerCase()}`);
}
/** No single request may hang the benchmark. */
const REQUEST_TIMEOUT_MS = 30_000;

// ------------------------------------------------------------------------------------------------ realistic batches


const str = (v: string) => ({ stringValue: v });
const int = (v: number) => ({ intValue: v });
const bool = (v: boolean) => ({ boolValue: v });
const attrs = (o: Record<string, unknown>) => Object.entries(o).map(([key, value]) => ({ key, value }));

const USER_AGENT =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';
const API_PATHS = ['/api/cart', '/api/products?page=2', '/api/user/profile', '/api/checkout', '/api/search?q=shoes', '/api/recommendations'];
const ASSETS = ['/assets/index-4f2a1c.js', '/assets/vendor-91bd0e.js', '/assets/index-77aa12.css', '/img/hero-1280.webp', '/fonts/inter.woff2'];

/**
 * One browser session's export: 100 spans in traces of ten (a documentLoad or click root with fetch and resource
 * children), each span with about ten HTTP/browser attributes and three timing events, as the browser SDK sends them.
 */
function makeBatch(seed: number): Buffer {
  const rnd = prng(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  const hex = (bytes: number) => randomBytes(bytes).toString('hex');
  const sessionId = hex(16);
  const baseNs = BigInt(Date.now()) * 1_000_000n - 60_000_000_000n;
  const spans: unknown[] = [];
  for (let trace = 0; trace < SPANS_PER_BATCH / 10; trace++) {
    const traceId = hex(16);
    const rootId = hex(8);
    const rootStart = baseNs + BigInt(trace) * 5_000_000_000n + BigInt(Math.floor(rnd() * 1e6));
    const isLoad = trace % 3 === 0;
    const rootEnd = rootStart + BigInt(Math.floor(200e6 + rnd() * 1800e6));
    spans.push({
      traceId,
      spanId: rootId,
      name: isLoad ? 'documentLoad' : 'click',
      kind: 1,
      startTimeUnixNano: rootStart.toString(),
      endTimeUnixNano: rootEnd.toString(),
      attributes: attrs({
        'url.full': `https://shop.example.com/${pick(['', 'products', 'cart', 'checkout'])}`,
        'user_agent.original': str(USER_AGENT),
        'session.id': str(sessionId),
        'browser.page.visibility': str('visible'),
        ...(isLoad
          ? { 'document.title': str('Example Shop'), 'navigation.type': str('navigate'), 'http.response.body.size': int(48213) }
          : { event_type: str('click'), target_element: str('BUTTON'), target_xpath: str('//*[@id="add-to-cart"]') }),
        'screen.width': int(1440),
        'screen.height': int(900),
      }).map((a) => (typeof a.value === 'string' ? { key: a.key, value: str(a.value) } : a)),
      events: isLoad
        ? ['fetchStart', 'domContentLoadedEventEnd', 'loadEventEnd'].map((name, i) => ({
            timeUnixNano: (rootStart + BigInt(i * 50_000_000)).toString(),
            name,
          }))
        : [],
      status: {},
    });
    for (let child = 0; child < 9; child++) {
      const isFetch = !isLoad || child % 2 === 0;
      const start = rootStart + BigInt(Math.floor(rnd() * 150e6));
      const dur = BigInt(Math.floor(5e6 + rnd() * 400e6));
      const status = rnd() < 0.05 ? 500 : rnd() < 0.05 ? 404 : 200;
      const path = isFetch ? pick(API_PATHS) : pick(ASSETS);
      const method = isFetch ? pick(['GET', 'GET', 'GET', 'POST']) : 'GET';
      spans.push({
        traceId,
        spanId: hex(8),
        parentSpanId: rootId,
        name: isFetch ? `HTTP ${method}` : 'resourceFetch',
        kind: 3,
        startTimeUnixNano: start.toString(),
        endTimeUnixNano: (start + dur).toString(),
        attributes: [
          { key: 'http.request.method', value: str(method) },
          { key: 'url.full', value: str(`https://${isFetch ? 'api' : 'cdn'}.example.com${path}`) },
          { key: 'server.address', value: str(isFetch ? 'api.example.com' : 'cdn.example.com') },
          { key: 'server.port', value: int(443) },
          { key: 'http.response.status_code', value: int(status) },
          { key: 'http.response.body.size', value: int(Math.floor(rnd() * 200_000)) },
          { key: 'network.protocol.name', value: str('http') },
          { key: 'network.protocol.version', value: str(pick(['1.1', '2', '3'])) },
          { key: 'component', value: str(isFetch ? 'fetch' : 'resource') },
          { key: 'http.response.cached', value: bool(rnd() < 0.2) },
          { key: 'session.id', value: str(sessionId) },
        ],
        events: ['fetchStart', 'responseStart', 'responseEnd'].map((name, i) => ({
          timeUnixNano: (start + (dur * BigInt(i)) / 2n).toString(),
          name,
        })),
        status: status >= 500 ? { code: 2, message: `HTTP ${status}` } : {},
      });
    }
  }
  const body = {
    resourceSpans: [
      {
        resource: {
          attributes: attrs({
            'service.name': str('web-app'),
            'service.version': str('1.4.2'),
            'deployment.environment.name': str('production'),
            'telemetry.sdk.name': str('opentelemetry'),
            'telemetry.sdk.language': str('webjs'),
            'telemetry.sdk.version': str('2.12.0'),
            'session.id': str(sessionId),
            'browser.platform': str('macOS'),
            'browser.mobile': bool(false),
            'browser.language': str('en-US'),
            'user_agent.original': str(USER_AGENT),
          }),
        },
        scopeSpans: [{ scope: { name: '@svc/browser', version: '0.1.0' }, spans }],
      },
    ],
  };
  return Buffer.from(JSON.stringify(body));
}

// ------------------------------------------------------------------------------------------------ server children

interface Child {
  name: string;
  url: string;
  pid: number;
  ingestKey: string;
  process: ChildProcess;
}

async function startChild(name: string, mode: 'svc' | 'ceiling', extraArgs: string[], dbPath?: string): Promise<Child> {
  const proc = spawn(process.execPath, [...serverChildNodeArgs(), ...extraArgs, '--import', 'tsx', SERVER_SCRIPT, mode, ...(dbPath ? [dbPath] : [])], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'inherit'],
    env: serverChildEnv(),
  });
  const lines = createInterface({ input: proc.stdout! });
  const ready = await new Promise<{ url: string; pid: number; ingestKey: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s`)), 60_000);
    proc.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
    lines.on('line', (line) => {
      try {
        const msg = JSON.parse(line) as { url: string; pid: number; ingestKey: string };
        clearTimeout(timer);
        resolve(msg);
      } catch {
        process.stderr.write(`[${name}] ${line}\n`);
      }
    });
  });
  return { name, ...ready, process: proc };
}

async function stopChild(child: Child): Promise<void> {
  if (child.process.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.process.once('exit', () => resolve()));
  child.process.kill('SIGTERM');
  const timer = setTimeout(() => child.process.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Peak resident set size of a process, MiB (VmHWM). */
function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** User + system CPU seconds a process has used so far. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

// ------------------------------------------------------------------------------------------------ load

interface Outcome {
  status: number;
  endMs: number;
}

function post(agent: http.Agent, target: Child, body: Buffer): Promise<Outcome> {
  return new Promise((resolve) => {
    const url = new URL('/otlp/v1/traces', target.url);
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': target.ingestKey },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, endMs: performance.now() }));
        res.on('error', () => resolve({ status: 0, endMs: performance.now() }));
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, endMs: performance.now() }));
    req.end(body);
  });
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : NaN);

interface LoadResult {
  requests: number;
  errors: number;
  acknowledged: number;
  seconds: number;
  rps: number;
  spansPerSecond: number;
  p50: number;
  p99: number;
  cpuPercent: number;
}

function summarize(latencies: number[], errors: number, acknowledged: number, seconds: number, cpu: number): LoadResult {
  const sorted = latencies.sort((a, b) => a - b);
  return {
    requests: sorted.length,
    errors,
    acknowledged,
    seconds,
    rps: sorted.length / seconds,
    spansPerSecond: (sorted.length * SPANS_PER_BATCH) / seconds,
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    cpuPercent: (cpu / seconds) * 100,
  };
}

/** Closed loop: `connections` workers, each sending its next request as soon as the previous one is answered. */
async function closedLoop(target: Child, bodies: Buffer[]): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const start = performance.now();
  const windowStart = start + WARMUP_MS;
  const windowEnd = windowStart + DURATION_MS;
  const latencies: number[] = [];
  let errors = 0;
  let acknowledged = 0;
  let next = 0;
  let cpuAtWindowStart: number | undefined;
  const cpuTimer = setTimeout(() => (cpuAtWindowStart = cpuSeconds(target.pid)), WARMUP_MS);
  const worker = async () => {
    while (performance.now() < windowEnd) {
      const body = bodies[next++ % bodies.length]!;
      const t0 = performance.now();
      const { status, endMs } = await post(agent, target, body);
      if (status === 200) acknowledged += 1;
      if (t0 >= windowStart && endMs <= windowEnd) {
        if (status === 200) latencies.push(endMs - t0);
        else errors += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  clearTimeout(cpuTimer);
  const cpu = cpuSeconds(target.pid) - (cpuAtWindowStart ?? cpuSeconds(target.pid));
  agent.destroy();
  return summarize(latencies, errors, acknowledged, DURATION_MS / 1000, cpu);
}

/** Open loop: one request every 1/rate s regardless of answers; latency from each request's scheduled time. */
async function openLoop(target: Child, bodies: Buffer[], rate: number): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const interval = 1000 / rate;
  const count = Math.max(1, Math.floor((DURATION_MS / 1000) * rate));
  const latencies: number[] = [];
  let errors = 0;
  let acknowledged = 0;
  const cpu0 = cpuSeconds(target.pid);
  const start = performance.now() + 20;
  const pending: Promise<void>[] = [];
  for (let i = 0; i < count; i++) {
    const scheduled = start + i * interval;
    const wait = scheduled - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(
      post(agent, target, bodies[i % bodies.length]!).then(({ status, endMs }) => {
        if (status === 200) {
          acknowledged += 1;
          latencies.push(endMs - scheduled);
        } else errors += 1;
      }),
    );
  }
  await Promise.all(pending);
  const seconds = (performance.now() - start) / 1000;
  const cpu = cpuSeconds(target.pid) - cpu0;
  agent.destroy();
  const result = summarize(latencies, errors, acknowledged, seconds, cpu);
  return { ...result, rps: count / seconds, spansPerSecond: (count * SPANS_PER_BATCH) / seconds };
}

// ------------------------------------------------------------------------------------------------ main

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '–');

async function main(): Promise<void> {
  const bodies = Array.from({ length: BATCHES }, (_, i) => makeBatch(i + 1));
  const avgKiB = bodies.reduce((n, b) => n + b.length, 0) / bodies.length / 1024;
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const dbPath = join(work, 'svc.db');
  const profileDir = join(work, 'profile');
  const children: Child[] = [];
  const cleanup = () => {
    for (const c of children) if (c.process.exitCode === null) c.process.kill('SIGKILL');
  };
  process.on('exit', cleanup);

  try {
    console.log(
      `# Ingest benchmark: ${CONNECTIONS} connections, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s per phase, ` +
        `${BATCHES} distinct ${SPANS_PER_BATCH}-span OTLP/JSON batches (avg ${fmt(avgKiB, 1)} KiB)\n`,
    );
    console.log(`Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${fmt(totalmem() / 2 ** 30, 1)} GiB RAM, Node ${process.version}\n`);

    const ceiling = await startChild('ceiling', 'ceiling', []);
    children.push(ceiling);
    const ceilingResult = await closedLoop(ceiling, bodies);
    const ceilingRss = peakRssMiB(ceiling.pid);
    await stopChild(ceiling);

    const svc = await startChild('svc', 'svc', args.profile ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [], dbPath);
    children.push(svc);
    const svcResult = await closedLoop(svc, bodies);
    const svcRss = peakRssMiB(svc.pid);
    const halfRate = svcResult.rps / 2;
    const open = await openLoop(svc, bodies, halfRate);
    const svcRssEnd = peakRssMiB(svc.pid);
    await stopChild(svc);

    // Nothing acknowledged may be missing from the database.
    const db = new Database(dbPath, { readonly: true });
    const stored = (db.prepare('select count(*) as n from spans').get() as { n: number }).n;
    db.close();
    const acknowledgedSpans = (svcResult.acknowledged + open.acknowledged) * SPANS_PER_BATCH;

    const ratio = svcResult.spansPerSecond / ceilingResult.spansPerSecond;
    const row = (name: string, r: LoadResult, rss: number) =>
      `| ${name} | ${fmt(r.rps, 1)} | ${fmt(r.spansPerSecond)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(rss)} | ${fmt(r.cpuPercent)} % | ${r.errors} |`;
    console.log('## Phase 1: maximum throughput (closed loop)\n');
    console.log('| server | requests/s | spans/s | p50 ms | p99 ms | peak RSS MiB | server CPU | errors |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    console.log(row('ceiling: node:http + JSON.parse', ceilingResult, ceilingRss));
    console.log(row('svc reference server, SQLite (WAL)', svcResult, svcRss));
    console.log(`\nsvc / ceiling spans/s: **${fmt(ratio * 100, 1)} %** (target ≥ 60 %: ${ratio >= 0.6 ? 'met' : 'MISSED'})\n`);

    console.log(`## Phase 2: svc at half its maximum rate (open loop, ${fmt(halfRate, 1)} requests/s)\n`);
    console.log('| server | offered requests/s | spans/s | p50 ms | p99 ms | peak RSS MiB | server CPU | errors |');
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    console.log(row('svc reference server, SQLite (WAL)', open, svcRssEnd));
    console.log(`\np99 at half the maximum rate: **${fmt(open.p99, 1)} ms** (target < 50 ms: ${open.p99 < 50 ? 'met' : 'MISSED'})\n`);

    console.log(
      `Stored spans: ${fmt(stored)} of ${fmt(acknowledgedSpans)} acknowledged ${stored === acknowledgedSpans ? '(all present)' : '(MISMATCH)'}`,
    );
    if (args.profile) {
      const inclusive = /server\/src\/|kysely\/dist\/esm\/dialect\/sqlite\/|node_modules\/better-sqlite3\//;
      console.log(`\n${cpuProfileTables({ dir: profileDir, root: ROOT, title: 'ingest', inclusive })}\n`);
    }
    if (stored !== acknowledgedSpans || svcResult.errors + open.errors + ceilingResult.errors > 0) process.exitCode = 1;
  } finally {
    for (const c of children) await stopChild(c).catch(() => undefined);
    if (!args.profile) rmSync(work, { recursive: true, force: true });
    else console.log(`\n(profile and database kept in ${work})`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
