/**
 * Alert rules over a busy app's data (issue 34): 1,000 rules evaluated as the evaluator evaluates them, against the
 * detection interval they must fit in.
 *
 *   npm run bench:rules [-- --scale 0.02 --days 30 --databases postgres,sqlite --rules 1000 --loaded sqlite=FILE,postgres=URL]
 *
 * `--scale 0.27 --days 8` loads the full month's daily density (about 330,000 spans a day) over the last 8 days, the
 * most any rule here reads (a day-long window and its baseline a week earlier): the month's per-rule cost in a
 * quarter of its load time.
 *
 * Per database, `bench:scale --load-only` loads its data set at `--scale` (bench/scale-data.ts: sessions over 30 days
 * with their spans, logs and Web Vitals, and the issues the detector makes of their errors) through the real ingest,
 * and leaves the database (`--loaded` names databases such a load left instead: they are used as they are and kept, so
 * that two builds of the query layer can be measured in turn over the same data). This process then opens it as the server does and evaluates `--rules` rules, one after
 * another as one evaluator tick does: each rule's value over its window ending at the data's newest record
 * (`evaluateRule`) and, for a change condition, its baseline (`baselineValue`), first cold (nothing kept of its
 * ten-minute slots, alerts/query/slots.ts, as after a start) and then warm, one evaluation interval later. The rules
 * mix every signal and aggregate, windows of 5 minutes, an hour and a day, filters, and change conditions (a day, a
 * week, the previous release). Printed as the Markdown of docs/benchmarks.md: the time of all rules at once, cold; the
 * time a tick carries in the steady state (each rule is due once per its own interval, a tenth of its window between
 * 10 s and a minute, warm, plus its slots read again every REREAD_MS) against the detection interval; this process's
 * CPU time (on PostgreSQL the database's own work is in its server, not counted); and the median, p95 and maximum per
 * rule, cold and warm, per signal and per window. Exits non-zero when the steady state's tick would not fit in the
 * interval.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { baselineValue, evaluateRule } from '../server/src/alerts/query/index';
import type { AlertCondition, AlertQuery, RuleQuery, Signal } from '../server/src/alerts/rule';
import { openDatabase } from '../server/src/db/connect';
import { evaluationIntervalMs } from '../server/src/alerts/evaluate/options';
import { REREAD_MS, slotCacheOf } from '../server/src/alerts/query/slot-cache';
import { DETECTION_INTERVAL_MS } from '../server/src/incidents/detect/schedule';
import { POSTGRES_ADMIN_URL, type DatabaseKind } from '../test/support/databases';
import { runBench } from './harness';
import { loadedDatabases } from './loaded-databases';

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: '0.02' },
    /** Days the load spreads its data over: with `--scale D/30 --days D`, the full month's daily density. */
    days: { type: 'string', default: '30' },
    databases: { type: 'string', default: 'postgres,sqlite' },
    rules: { type: 'string', default: '1000' },
    loaded: { type: 'string', default: '' },
    /** Also print the N rules slowest when warm, with their query, window and condition. */
    slowest: { type: 'string', default: '0' },
  },
});
const SCALE = Number(args.scale);
const RULES = Number(args.rules);
const DAYS = Number(args.days);
if (!(SCALE > 0 && SCALE <= 1)) throw new Error('--scale must be a number in (0, 1]');
if (!Number.isInteger(RULES) || RULES < 10) throw new Error('--rules must be an integer ≥ 10');
// A week-change rule over a day-long window reads back 8 days: fewer days would leave its baseline empty.
if (!Number.isInteger(DAYS) || DAYS < 8 || DAYS > 30) throw new Error('--days must be an integer in 8..30');
const DATABASES = args.databases.split(',').map((name) => name.trim()) as DatabaseKind[];
for (const name of DATABASES)
  if (name !== 'sqlite' && name !== 'postgres') throw new Error(`unknown database "${name}" (known: sqlite, postgres)`);
const LOADED = loadedDatabases(args.loaded, DATABASES);

// ------------------------------------------------------------------------------------------------------------ the rules

const threshold: AlertCondition = { type: 'threshold', op: 'above', value: 1_000_000 };

/** What the rules ask, in turn: every signal and aggregate, with the filters people set. */
const QUERIES: ReadonlyArray<[Signal, AlertQuery]> = [
  ['vitals', { aggregate: 'p75', metric: 'LCP', filter: { route: '/checkout*' } }],
  ['vitals', { aggregate: 'p90', metric: 'INP' }],
  ['vitals', { aggregate: 'p75', metric: 'LCP', filter: { env: ['production'] } }],
  ['vitals', { aggregate: 'p75', metric: 'CLS', filter: { route: '/products/:id' } }],
  ['vitals', { aggregate: 'p75', metric: 'TTFB', filter: { app: ['web-app'] } }],
  ['spans', { aggregate: 'count' }],
  ['spans', { aggregate: 'error_rate', filter: { route: '/api/checkout*' } }],
  ['spans', { aggregate: 'p95', filter: { name: 'HTTP GET' } }],
  ['spans', { aggregate: 'p99', filter: { route: '/api/cart*', env: ['staging'] } }],
  ['spans', { aggregate: 'p50', filter: { name: 'documentLoad' } }],
  ['spans', { aggregate: 'error_rate', filter: { attributes: { 'http.response.status_code': '500' } } }],
  ['logs', { aggregate: 'count', filter: { severity: ['error', 'fatal'] } }],
  ['logs', { aggregate: 'count', filter: { text: 'websocket' } }],
  ['logs', { aggregate: 'count', filter: { severity: ['warn'], env: ['production'] } }],
  ['metrics', { aggregate: 'avg', metric: 'web_vital_lcp_ms' }],
  ['metrics', { aggregate: 'p95', metric: 'web_vital_ttfb_ms', filter: { route: '/cart' } }],
  ['issues', { aggregate: 'new_issues' }],
  ['issues', { aggregate: 'events' }],
  ['sessions', { aggregate: 'count' }],
  ['sessions', { aggregate: 'error_free_share', filter: { env: ['production'] } }],
];

/** Most rules compare with a threshold; one in five with the day before, one in twenty the week, one in fifty a release. */
function conditionOf(i: number): AlertCondition {
  if (i % 50 === 49) return { type: 'change', op: 'above', percent: 50, compare_to: 'previous_release' };
  if (i % 20 === 19) return { type: 'change', op: 'above', percent: 50, compare_to: 'week' };
  if (i % 5 === 4) return { type: 'change', op: 'above', percent: 50, compare_to: 'day' };
  return threshold;
}

/** Windows: 60 % five minutes, 30 % an hour, 10 % a day. */
const windowOf = (i: number) => [300, 300, 300, 300, 300, 300, 3600, 3600, 3600, 86_400][i % 10]!;

function rulesOf(projectId: string): RuleQuery[] {
  return Array.from({ length: RULES }, (_, i) => {
    const [signal, query] = QUERIES[i % QUERIES.length]!;
    return {
      projectId,
      signal,
      query,
      // Shifted each round of the queries, so that every query gets every window and condition.
      windowSeconds: windowOf(i + Math.floor(i / QUERIES.length)),
      condition: conditionOf(i + 3 * Math.floor(i / QUERIES.length)),
      recovery: null,
      forSeconds: 0,
    };
  });
}

// ------------------------------------------------------------------------------------------------------------ the load

/** Runs `bench:scale --load-only` for one database; resolves with the URL of the database it left. */
function loadScale(kind: DatabaseKind): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'npx',
      ['tsx', 'bench/scale.ts', '--load-only', '--scale', String(SCALE), '--days', String(DAYS), '--databases', kind],
      { maxBuffer: 64 * 2 ** 20 },
      (error, _stdout, stderr) => {
        const url = /loaded, left at (\S+)/.exec(stderr)?.[1];
        if (error || !url) reject(new Error(`bench:scale --load-only failed: ${error?.message ?? ''}\n${stderr}`));
        else resolve(url);
      },
    );
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  });
}

/** Drops what the load left: the PostgreSQL database, or the SQLite file's folder. */
async function dropLoaded(kind: DatabaseKind, url: string): Promise<void> {
  if (kind === 'sqlite') return void rmSync(dirname(url), { recursive: true, force: true });
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
  } finally {
    await admin.end();
  }
}

// ------------------------------------------------------------------------------------------------------ the evaluation

/** One evaluation's cost: wall time, and CPU time of this process and of the database server's processes. */
interface Cost {
  ms: number;
  cpuMs: number;
  /** PostgreSQL's processes (their /proc times; the machine otherwise idle); 0 on SQLite, which runs in this process. */
  dbCpuMs: number;
}

interface Timed {
  rule: RuleQuery;
  signal: Signal;
  windowSeconds: number;
  /** The rule's first evaluation, nothing of it kept yet (alerts/query/slots.ts): as after a start. */
  cold: Cost;
  /** Its next evaluation, one interval later, with what the first kept. */
  warm: Cost;
  /** How often the evaluator evaluates the rule (alerts/evaluate/options.ts). */
  intervalMs: number;
}

interface Result {
  kind: DatabaseKind;
  records: { spans: number; logs: number; points: number; sessions: number; issues: number };
  timed: Timed[];
  noData: number;
  /** Slots one rule keeps, at most (slot-cache.ts). */
  maxSlots: number;
}

/** CPU ms the PostgreSQL server's processes have used so far (utime + stime of each, at 100 ticks a second). */
function postgresCpuMs(): number {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    if (!stat.includes('(postgres)')) continue;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

async function measured<T>(kind: DatabaseKind, run: () => Promise<T>): Promise<{ value: T; cost: Cost }> {
  const cpu0 = process.cpuUsage();
  const db0 = kind === 'postgres' ? postgresCpuMs() : 0;
  const t0 = performance.now();
  const value = await run();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const dbCpuMs = kind === 'postgres' ? postgresCpuMs() - db0 : 0;
  return { value, cost: { ms, cpuMs: (cpu.user + cpu.system) / 1000, dbCpuMs } };
}

async function evaluateAll(kind: DatabaseKind, url: string): Promise<Result> {
  const handle = openDatabase(url);
  const { db } = handle;
  try {
    const count = async (table: 'spans' | 'logs' | 'metric_points' | 'sessions' | 'detection_groups') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const project = await db.selectFrom('projects').select('id').executeTakeFirstOrThrow();
    const newest = await db
      .selectFrom('spans')
      .select((eb) => eb.fn.max('time_ms').as('t'))
      .executeTakeFirstOrThrow();
    // The data's own now: the generator's newest session starts an hour before the load.
    const nowMs = Number(newest.t) + 1;
    const rules = rulesOf(project.id);
    const evaluate = async (rule: RuleQuery, atMs: number) => {
      const window = { fromMs: atMs - rule.windowSeconds * 1000, toMs: atMs };
      const value = await evaluateRule(db, rule, window, atMs);
      if (rule.condition.type === 'change') await baselineValue(db, rule, window, atMs);
      return value;
    };
    const cache = slotCacheOf(db);
    // Warm-up: the first queries of a connection plan and cache.
    for (const rule of rules.slice(0, QUERIES.length)) await evaluate(rule, nowMs);
    const timed: Timed[] = [];
    let noData = 0;
    let maxSlots = 0;
    for (const rule of rules) {
      // The rules here repeat 20 queries, which would share their slots; a user's rules each have their own.
      cache.clear();
      const intervalMs = evaluationIntervalMs(rule.windowSeconds);
      const cold = await measured(kind, () => evaluate(rule, nowMs));
      if (cold.value === null) noData += 1;
      const warm = await measured(kind, () => evaluate(rule, nowMs + intervalMs));
      maxSlots = Math.max(maxSlots, cache.size);
      timed.push({
        rule,
        signal: rule.signal,
        windowSeconds: rule.windowSeconds,
        cold: cold.cost,
        warm: warm.cost,
        intervalMs,
      });
    }
    return {
      kind,
      records: {
        spans: await count('spans'),
        logs: await count('logs'),
        points: await count('metric_points'),
        sessions: await count('sessions'),
        issues: await count('detection_groups'),
      },
      timed,
      noData,
      maxSlots,
    };
  } finally {
    await handle.close();
  }
}

// ---------------------------------------------------------------------------------------------------------- the report

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const spread = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `${fmt(quantile(sorted, 0.5), 1)} / ${fmt(quantile(sorted, 0.95), 1)} / ${fmt(sorted[sorted.length - 1]!, 1)}`;
};

/**
 * What one detection tick carries in the steady state, of a cost (`pick`: wall or CPU time): each rule is due once per
 * its own interval (a tenth of its window, 10 s to a minute), so a tick evaluates its share of each, warm; and each
 * rule's kept slots are read again every REREAD_MS (slot-cache.ts), a cold evaluation's worth spread over the
 * evaluations between.
 */
const perTick = (r: Result, pick: (c: Cost) => number) =>
  r.timed.reduce(
    (sum, t) =>
      sum + ((pick(t.warm) + (pick(t.cold) * t.intervalMs) / REREAD_MS) * DETECTION_INTERVAL_MS) / t.intervalMs,
    0,
  );
const wall = (c: Cost) => c.ms;
const cpuOfBoth = (c: Cost) => c.cpuMs + c.dbCpuMs;

/** All rules evaluated one after another, cold (the work a start leaves for the first ticks) or warm. */
const totalMs = (r: Result, phase: 'cold' | 'warm') => r.timed.reduce((sum, t) => sum + t[phase].ms, 0);

function report(results: Result[]): void {
  console.log(`\n## bench:rules, ${new Date().toISOString().slice(0, 10)}\n`);
  const flags = process.argv.slice(2).join(' ');
  console.log(`\`npm run bench:rules${flags ? ` -- ${flags}` : ''}\`\n`);
  console.log(
    `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, Node ${process.version}. ` +
      `${RULES} rules, one after another; detection interval ${DETECTION_INTERVAL_MS / 1000} s.\n`,
  );
  console.log(
    '| database | spans | logs | metric points | sessions | issues | rules | all at once, cold, s | all at once, warm, s | per tick (steady state), s | of the interval | CPU per tick (this process + database), s | CPU share of the interval (2 cores) | most slots one rule keeps | no data |',
  );
  console.log(
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  );
  for (const r of results) {
    const { spans, logs, points, sessions, issues } = r.records;
    const tickMs = perTick(r, wall);
    const tickCpuMs = perTick(r, cpuOfBoth);
    console.log(
      `| ${r.kind} | ${fmt(spans)} | ${fmt(logs)} | ${fmt(points)} | ${fmt(sessions)} | ${fmt(issues)} | ${r.timed.length} | ${fmt(totalMs(r, 'cold') / 1000, 2)} | ${fmt(totalMs(r, 'warm') / 1000, 2)} | ${fmt(tickMs / 1000, 2)} | ${fmt((100 * tickMs) / DETECTION_INTERVAL_MS)} % | ${fmt(tickCpuMs / 1000, 2)} | ${fmt((100 * tickCpuMs) / (cpus().length * DETECTION_INTERVAL_MS))} % | ${fmt(r.maxSlots)} | ${r.noData} |`,
    );
  }
  const signals = [...new Set(QUERIES.map(([s]) => s))];
  const row = (label: string, pick: (t: Timed) => number, only: (t: Timed) => boolean = () => true) =>
    console.log(`| ${label} | ${results.map((r) => spread(r.timed.filter(only).map(pick))).join(' | ')} |`);
  console.log(`\n| per rule, ms (median / p95 / max) | ${results.map((r) => r.kind).join(' | ')} |`);
  console.log(`| --- |${' ---: |'.repeat(results.length)}`);
  row('every rule, cold', (t) => t.cold.ms);
  row('every rule, warm', (t) => t.warm.ms);
  row('every rule, warm, CPU (this process + database)', (t) => cpuOfBoth(t.warm));
  for (const signal of signals)
    row(
      `${signal}, warm`,
      (t) => t.warm.ms,
      (t) => t.signal === signal,
    );
  for (const seconds of [300, 3600, 86_400]) {
    const ofWindow = (t: Timed) => t.windowSeconds === seconds;
    row(`${seconds / 60}-minute windows, cold`, (t) => t.cold.ms, ofWindow);
    row(`${seconds / 60}-minute windows, warm`, (t) => t.warm.ms, ofWindow);
  }
  for (const r of results.filter(() => Number(args.slowest) > 0)) {
    console.log(`\n${r.kind}: the ${args.slowest} rules slowest when warm, ms (cold / warm)\n`);
    for (const t of [...r.timed].sort((a, b) => b.warm.ms - a.warm.ms).slice(0, Number(args.slowest)))
      console.log(
        `- ${fmt(t.cold.ms, 1)} / ${fmt(t.warm.ms, 1)}: ${t.signal} ${JSON.stringify(t.rule.query)}, ${t.windowSeconds} s, ${JSON.stringify(t.rule.condition)}`,
      );
  }
  for (const r of results)
    if (perTick(r, wall) > DETECTION_INTERVAL_MS) {
      console.log(`\n${r.kind}: the steady state's tick took longer than the detection interval.`);
      process.exitCode = 1;
    }
}

async function main(): Promise<void> {
  const results: Result[] = [];
  for (const kind of DATABASES) {
    const loaded = LOADED.get(kind);
    if (loaded === undefined) console.error(`${kind}: loading the bench:scale data set at --scale ${SCALE}...`);
    const url = loaded ?? (await loadScale(kind));
    try {
      console.error(`${kind}: evaluating ${RULES} rules...`);
      results.push(await evaluateAll(kind, url));
    } finally {
      if (loaded === undefined) await dropLoaded(kind, url);
    }
  }
  report(results);
}

runBench('bench:rules', main, new Set(), 3 * 3_600_000);
