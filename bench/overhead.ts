/**
 * Browser overhead of the SDK (issues 3, 4 and 16): the same workload page with no SDK, with `@svc/browser` (every
 * option at its default, session replay included), with `@sentry/browser` (tracing, every transaction sampled, and
 * session replay, every session recorded) and with Datadog RUM + logs (`@datadog/browser-rum`, `@datadog/browser-logs`:
 * sessions, replay, traces and logs all at 100 %), in real Chromium, in one run.
 *
 *   npm run bench:overhead [-- --runs 3 --session-seconds 60 --session-runs 1 --profile --variants none,svc,sentry,datadog
 *                              --workloads classic,typing-churn,...]
 *
 * `--variants` also takes `svc-no-replay` and `sentry-no-replay`, issue 3's comparison without replay, and
 * `svc-baseline` with `--baseline-dist <dir>`: svc's page on the SDK build in `<dir>` (a copy of `dist/` made before a
 * change), so that a change and the build before it are measured in the same runs, under the same load.
 *
 * Each variant is built with Vite (minified, bench/overhead/build.ts) and served from a local origin; telemetry goes
 * to a local sink on another origin (bench/overhead/servers.ts). Issue 35's workloads stand for kinds of app, each a
 * page module (bench/overhead/page/workloads/<name>.ts) and a driver giving it real input
 * (bench/overhead/workloads/<name>.ts); `--workloads` picks them (default: all; `classic` is the page of issues 3, 4
 * and 16). Every repetition runs each workload with each variant back to back, in a fresh browser context, in an
 * order rotated per repetition and workload; one unmeasured warm-up run per variant comes first. A run
 * (bench/overhead/run.ts) plays the workload's input, then waits 6 s.
 *
 * Reported per workload and variant (medians): added main-thread time against the baseline (CDP `Performance.getMetrics`
 * `TaskDuration`, thread time, from navigation to the end of the workload), added script time (`ScriptDuration`),
 * bytes sent to the sink (request bodies as on the wire, counted after the page is closed so that final flushes
 * count), JS heap after a forced GC, and the JavaScript transferred; first issue 35's table (every workload, ratios to
 * Datadog against its targets), then per workload the full table and the verdict on each peer's targets (against
 * Sentry, issue 4: svc's added time, bytes and heap each at most half; against Datadog, issue 16: time and bytes at
 * most half, heap at most Datadog's) and where each SDK's bytes go. Then, per SDK, a recorded session of
 * `--session-seconds` at a person's pace (bench/overhead/session.ts): bytes sent per minute. `--profile` adds one
 * profiled run per SDK on unminified builds and prints where its JavaScript time goes (bench/overhead/profile.ts).
 */
import { chromium, type Browser } from '@playwright/test';
import { cpus, loadavg, totalmem } from 'node:os';
import { parseArgs } from 'node:util';
import { browserLaunchOptions } from '../test/support/browser';
import { ROOT, ensureSdkBuilt } from '../test/support/build-sdk';
import { DEFAULT_VARIANTS, VARIANTS, buildVariant, type Variant, type VariantBuild } from './overhead/build';
import { buildClasses, heapBreakdownTable, heapParts, type HeapParts } from './overhead/heap-breakdown';
import { summarizeProfile } from './overhead/profile';
import { WORKLOADS, isWorkload, type Workload } from './overhead/page/workloads/names';
import {
  aggregateByWorkload,
  bytesTable,
  figuresTable,
  profileTable,
  sessionTable,
  verdict,
  workloadTable,
  workloadVerdict,
} from './overhead/report';
import { SETTLE_MS, measureRun, type RunResult } from './overhead/run';
import { recordSession, type SessionResult } from './overhead/session';
import { startAppServer, startSink, type AppServer, type Sink } from './overhead/servers';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'session-seconds': { type: 'string', default: '60' },
    'session-runs': { type: 'string', default: '1' },
    profile: { type: 'boolean', default: false },
    'heap-breakdown': { type: 'boolean', default: false },
    variants: { type: 'string', default: DEFAULT_VARIANTS.join(',') },
    workloads: { type: 'string', default: WORKLOADS.join(',') },
    'baseline-dist': { type: 'string' },
  },
});

function count(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} must be an integer ≥ ${min}`);
  return n;
}
/** 0 (with `--heap-breakdown`) skips the measured runs. */
const RUNS = count('runs', args.runs, args['heap-breakdown'] ? 0 : 1);
/** 0 skips the recorded sessions. */
const SESSION_SECONDS = count('session-seconds', args['session-seconds'], 0);
const SESSION_RUNS = count('session-runs', args['session-runs'], 1);
const SELECTED = args.variants.split(',').map((name) => name.trim()) as Variant[];
for (const name of SELECTED)
  if (!VARIANTS.includes(name)) throw new Error(`unknown variant "${name}" (known: ${VARIANTS.join(', ')})`);
if (!SELECTED.includes('none')) SELECTED.unshift('none');
const SELECTED_WORKLOADS = args.workloads.split(',').map((name) => name.trim());
for (const name of SELECTED_WORKLOADS)
  if (!isWorkload(name)) throw new Error(`unknown workload "${name}" (known: ${WORKLOADS.join(', ')})`);
const RUN_WORKLOADS = SELECTED_WORKLOADS as Workload[];

const SDK_VARIANTS = SELECTED.filter((name) => name !== 'none');

/** A run takes 15-25 s, a session its length plus about 10 s; far beyond that is a hang, and the benchmark must stop. */
const WATCHDOG_MS =
  (120 +
    (RUNS * RUN_WORKLOADS.length + 2) * SELECTED.length * 60 +
    (SESSION_SECONDS > 0 ? SESSION_RUNS * SDK_VARIANTS.length * (SESSION_SECONDS * 2 + 60) : 0) +
    // Two snapshot runs per workload, each a run and a snapshot to read.
    (args['heap-breakdown'] ? RUN_WORKLOADS.length * 2 * 120 : 0)) *
  1000;

async function buildAll(minify: boolean, variants: readonly Variant[] = SELECTED): Promise<Map<Variant, VariantBuild>> {
  const builds = new Map<Variant, VariantBuild>();
  for (const variant of variants) builds.set(variant, await buildVariant(ROOT, variant, minify, args['baseline-dist']));
  return builds;
}

/**
 * Every repetition runs each workload with each variant back to back; the order of the variants rotates per
 * repetition and workload, so that no variant always runs first or last.
 */
function schedule(): Array<{ variant: Variant; workload: Workload; repetition: number }> {
  const plan: Array<{ variant: Variant; workload: Workload; repetition: number }> = [];
  for (let repetition = 0; repetition < RUNS; repetition++) {
    RUN_WORKLOADS.forEach((workload, w) => {
      for (let i = 0; i < SELECTED.length; i++)
        plan.push({ variant: SELECTED[(i + repetition + w) % SELECTED.length]!, workload, repetition });
    });
  }
  return plan;
}

async function measureAll(browser: Browser, servers: { app: AppServer; sink: Sink }): Promise<RunResult[]> {
  let run = 0;
  // One warm-up run per variant, on the first workload: the browser's caches and code are warm for every variant.
  for (const variant of SELECTED)
    await measureRun(browser, servers, {
      variant,
      workload: RUN_WORKLOADS[0]!,
      run: ++run,
      repetition: -1,
      profile: false,
    });
  const results: RunResult[] = [];
  for (const { variant, workload, repetition } of schedule()) {
    const result = await measureRun(browser, servers, { variant, workload, run: ++run, repetition, profile: false });
    results.push(result);
    const sent = result.telemetry.reduce((sum, request) => sum + request.body.length, 0);
    console.error(
      `  repetition ${repetition + 1}/${RUNS} ${workload} ${variant}: main thread ${result.loadTaskMs.toFixed(0)} + ${result.workTaskMs.toFixed(0)} ms, ` +
        `script ${(result.loadScriptMs + result.workScriptMs).toFixed(0)} ms, ${result.telemetry.length} requests / ${sent} B sent, ` +
        `heap ${(result.heapBytes / 1e6).toFixed(2)} MB`,
    );
  }
  return results;
}

/** The recorded sessions: each SDK in turn, `SESSION_RUNS` times. */
async function recordSessions(
  browser: Browser,
  servers: { app: AppServer; sink: Sink },
  firstRun: number,
): Promise<SessionResult[]> {
  const sessions: SessionResult[] = [];
  let run = firstRun;
  for (let repetition = 0; repetition < SESSION_RUNS; repetition++) {
    for (const variant of SDK_VARIANTS) {
      const session = await recordSession(browser, servers, { variant, run: ++run, seconds: SESSION_SECONDS });
      sessions.push(session);
      const sent = session.telemetry.reduce((sum, request) => sum + request.body.length, 0);
      console.error(
        `  session ${repetition + 1}/${SESSION_RUNS} ${variant}: ${session.seconds.toFixed(0)} s, ${session.telemetry.length} requests / ${sent} B sent`,
      );
    }
  }
  return sessions;
}

async function profileSdks(browser: Browser, sink: Sink, builds: Map<Variant, VariantBuild>): Promise<string[]> {
  const app = await startAppServer(builds, sink.origin);
  try {
    const tables: string[] = [];
    let run = 60_000;
    for (const variant of SDK_VARIANTS) {
      const result = await measureRun(
        browser,
        { app, sink },
        { variant, workload: RUN_WORKLOADS[0]!, run: ++run, repetition: -1, profile: true },
      );
      if (result.profile) tables.push(profileTable(variant, summarizeProfile(result.profile, builds.get(variant)!)));
    }
    return tables;
  } finally {
    await app.close();
  }
}

/** `--heap-breakdown`: a heap snapshot of svc's page and of the page without SDK after each workload, compared. */
async function heapBreakdown(browser: Browser, sink: Sink, builds: Map<Variant, VariantBuild>): Promise<string> {
  const app = await startAppServer(builds, sink.origin);
  const classes = buildClasses(builds.get('svc')!);
  try {
    const rows: Array<{ workload: Workload; svc: HeapParts; none: HeapParts }> = [];
    let run = 70_000;
    for (const workload of RUN_WORKLOADS) {
      const snapshot = async (variant: Variant) => {
        const options = { variant, workload, run: ++run, repetition: -1, profile: false, heapSnapshot: true };
        return heapParts((await measureRun(browser, { app, sink }, options)).heap!, classes);
      };
      const none = await snapshot('none');
      const svc = await snapshot('svc');
      console.error(
        `  heap snapshots ${workload}: svc ${(svc.totalBytes / 1e6).toFixed(2)} MB, none ${(none.totalBytes / 1e6).toFixed(2)} MB`,
      );
      rows.push({ workload, svc, none });
    }
    return heapBreakdownTable(rows);
  } finally {
    await app.close();
  }
}

async function main(): Promise<void> {
  if (SELECTED.includes('svc') || args['heap-breakdown']) await ensureSdkBuilt();
  console.error(`building ${SELECTED.join(', ')} with Vite${args.profile ? ', minified and not' : ''}...`);
  const builds = await buildAll(true);
  // Built up front, like the measured variants: dist/ may be rebuilt while the benchmark runs.
  const profileBuilds = args.profile ? await buildAll(false) : undefined;
  const heapBuilds = args['heap-breakdown'] ? await buildAll(false, ['none', 'svc']) : undefined;
  const sink = await startSink();
  const app = await startAppServer(builds, sink.origin);
  const browser = await chromium.launch(browserLaunchOptions());
  const loadStart = loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');
  try {
    console.error(
      `Chromium ${browser.version()}; ${RUNS} repetitions of ${SELECTED.join(', ')} on ${RUN_WORKLOADS.join(', ')} ` +
        `(plus one warm-up run per variant)`,
    );
    const results = RUNS > 0 ? await measureAll(browser, { app, sink }) : [];
    if (SESSION_SECONDS > 0)
      console.error(`recording a ${SESSION_SECONDS} s session per SDK, ${SESSION_RUNS} time(s)...`);
    // Run numbers above the measured runs' (1 … (RUNS × workloads + 1) × variants), so the sink keeps them apart.
    const sessions = SESSION_SECONDS > 0 ? await recordSessions(browser, { app, sink }, 50_000) : [];
    const profiles = profileBuilds ? await profileSdks(browser, sink, profileBuilds) : [];
    const heapTable = heapBuilds ? await heapBreakdown(browser, sink, heapBuilds) : undefined;
    const workloads = aggregateByWorkload(results);

    console.log(`\n## bench:overhead, ${new Date().toISOString().slice(0, 10)}\n`);
    const flags = process.argv.slice(2).join(' ');
    console.log(`\`npm run bench:overhead${flags ? ` -- ${flags}` : ''}\`\n`);
    console.log(
      `Machine: ${cpus().length} × ${cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ` +
        `Node ${process.version}, Chromium ${browser.version()} headless; ${RUNS} repetitions, medians; ` +
        `load average ${loadStart} at the start, ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' / ')} at the end.\n`,
    );
    if (workloads.length > 0) console.log(`${workloadTable(workloads)}\n\n${workloadVerdict(workloads)}\n`);
    for (const { workload, figures } of workloads) {
      console.log(`### ${workload}\n\n${figuresTable(figures)}\n\n${verdict(figures)}\n`);
      // The bytes breakdown is long: with one workload only.
      if (workloads.length === 1)
        for (const f of figures.filter((f) => f.variant !== 'none')) console.log(`${bytesTable(f)}\n`);
    }
    if (sessions.length > 0) {
      console.log(
        `Recorded sessions (${SESSION_SECONDS} s of use at a person's pace, then ${SETTLE_MS / 1000} s idle; bytes as on the wire):\n`,
      );
      console.log(`${sessionTable(sessions)}\n`);
    }
    for (const table of profiles) console.log(`${table}\n`);
    if (heapTable) {
      console.log(
        'Heap breakdown (`--heap-breakdown`): svc against the page without SDK, one heap snapshot each after the ' +
          'workload on unminified builds; retained KB per part (bench/overhead/heap-breakdown.ts):\n',
      );
      console.log(`${heapTable}\n`);
    }
  } finally {
    await browser.close();
    await app.close();
    await sink.close();
  }
}

const watchdog = setTimeout(() => {
  console.error(`bench:overhead did not finish within ${WATCHDOG_MS / 1000} s; giving up`);
  process.exit(2);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  () => clearTimeout(watchdog),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
