/**
 * One measured run of `bench:overhead`: a fresh browser context loads one variant's page of one workload, the
 * workload's driver (bench/overhead/workloads/<name>.ts) plays the same input through the DevTools protocol (mouse clicks and key presses, no script injected into the page), and
 * the page's main-thread time, heap and telemetry are read.
 *
 * Main-thread time comes from `Performance.getMetrics` with `timeDomain: 'threadTicks'`: `TaskDuration` (every task
 * of the renderer's main thread: script, style, layout, paint, GC) and `ScriptDuration` (script only), in thread
 * CPU time rather than wall time, so that another process taking the CPU (the machine is shared) does not count.
 * The metrics are cumulative for the page, read once at `load` (the page's start-up, SDK init included) and once at
 * the end of the workload plus a settle period long enough for both SDKs' periodic sends, so the time the SDKs spend
 * serialising and sending telemetry counts too. A trace would attribute time per task but costs more and perturbs
 * more; `--profile` takes a CPU profile in a separate run for attribution instead.
 */
import type { Browser, BrowserContext, CDPSession, Page } from '@playwright/test';
import type { Variant } from './build';
import type { Workload } from './page/workloads/names';
import { takeHeapSnapshot, type HeapGraph } from './heap-snapshot';
import type { CpuProfile } from './profile';
import type { AppServer, Sink, SinkRequest } from './servers';
import { WORKLOAD_DRIVERS } from './workloads';

/**
 * Wait after the workload: longer than every periodic send of both SDKs (svc: 2 s for OTLP, 5 s for replay chunks;
 * Sentry: 1 s idle-span timeout, replay segments 5-5.5 s after activity), so that little is left for the unload path.
 */
export const SETTLE_MS = 6_000;
/** After the page is closed, the run's telemetry is complete once the sink has been quiet this long. */
const SINK_QUIET_MS = 1_000;
const SINK_WAIT_LIMIT_MS = 10_000;
/** Upper bound for the page to settle after one input; a hang is a failed run, not a stuck benchmark. */
const STEP_TIMEOUT_MS = 15_000;

/** What one run measured. Times in ms of main-thread CPU; sizes in bytes. */
export interface RunResult {
  variant: Variant;
  workload: Workload;
  /** Unique number of the run (telemetry and downloads are attributed by it). */
  run: number;
  /** Which repetition the run belongs to; -1 for warm-up and profiled runs. */
  repetition: number;
  /** Main-thread time from navigation to the `load` event. */
  loadTaskMs: number;
  loadScriptMs: number;
  /** Main-thread time from `load` to the end of the settle period after the workload. */
  workTaskMs: number;
  workScriptMs: number;
  /** `JSHeapUsedSize` after the workload and a forced garbage collection. */
  heapBytes: number;
  /** JavaScript the page downloaded, gzip-encoded. */
  scriptBytes: number;
  /** Telemetry the sink received for this run, including sends after the page was closed. */
  telemetry: SinkRequest[];
  /** CPU profile of the page from navigation to the end of the settle period, when asked for. */
  profile?: CpuProfile;
  /** Heap snapshot after the workload and the garbage collection, when asked for. */
  heap?: HeapGraph;
}

type Metrics = Record<string, number>;

async function metrics(cdp: CDPSession): Promise<Metrics> {
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  return Object.fromEntries(list.map((metric) => [metric.name, metric.value]));
}

/** CDP reports these metrics in seconds. */
const toMs = (seconds: number | undefined) => (seconds ?? NaN) * 1000;

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${STEP_TIMEOUT_MS} ms`)), STEP_TIMEOUT_MS);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** How to click a control: see `ClickControl`. */
export interface ClickOptions {
  /** > 1: move the mouse there in that many steps first (a `mousemove` each), as a hand does. */
  moveSteps?: number;
  /** More input while the page works on the click. */
  meanwhile?: () => Promise<void>;
  /** false: do not wait for the page to be idle afterwards (input given while the page is busy). */
  wait?: boolean;
}

/**
 * Clicks a control of the workload page (the names a workload's page side returns, bench/overhead/page/workloads),
 * runs `meanwhile`, then waits until the page is idle.
 */
export type ClickControl = (target: string, options?: ClickOptions) => Promise<void>;

/** Waits until the work started by earlier input is done (`window.bench.idle()`), or fails after a timeout. */
export const idle = (page: Page): Promise<void> =>
  withTimeout(
    page.evaluate(() => window.bench!.idle()),
    'the page',
  );

/**
 * Real input for the workload page through the DevTools protocol, at the controls' current places (read from the
 * page at each click: a page that scrolls moves them).
 */
export function controlsOf(page: Page): ClickControl {
  return async (target, { moveSteps = 1, meanwhile, wait = true } = {}) => {
    const place = (await page.evaluate(() => window.bench!.targets()))[target];
    if (!place) throw new Error(`the page has no control "${target}"`);
    if (moveSteps > 1) await page.mouse.move(place.x, place.y, { steps: moveSteps });
    await page.mouse.click(place.x, place.y);
    await meanwhile?.();
    if (wait) await idle(page);
  };
}

async function waitForQuietSink(sink: Sink, run: number, closedAt: number): Promise<void> {
  const deadline = closedAt + SINK_WAIT_LIMIT_MS;
  while (performance.now() < deadline) {
    if (performance.now() - Math.max(closedAt, sink.lastArrival(run)) >= SINK_QUIET_MS) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Closes the page the way a user leaves it (unload handlers, so the SDKs' final flushes, run first) and returns the
 * run's telemetry once the sink has been quiet for a while.
 */
export async function closeAndCollect(page: Page, sink: Sink, run: number): Promise<SinkRequest[]> {
  // With `runBeforeUnload`, close() returns before the page is gone; the unload handlers (final flushes) run first.
  const closed = new Promise<void>((resolve) => page.once('close', () => resolve()));
  await page.close({ runBeforeUnload: true });
  await withTimeout(closed, 'closing the page');
  await waitForQuietSink(sink, run, performance.now());
  return sink.requests(run);
}

/** A fresh browser context with a page, and the address of a variant's workload page for one run. */
export interface VariantPage {
  context: BrowserContext;
  page: Page;
  url: string;
  /** Closes the context. */
  done(): Promise<void>;
}

/** Opens a fresh browser context for one run of a variant (the page is not navigated yet). */
export async function openVariant(
  browser: Browser,
  app: AppServer,
  variant: Variant,
  workload: Workload,
  run: number,
): Promise<VariantPage> {
  app.assign(run, workload);
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  const url = `${app.origin}/r/${run}/${variant}/`;
  return { context, page, url, done: () => context.close() };
}

/** Which run to make. */
export interface RunOptions {
  variant: Variant;
  workload: Workload;
  run: number;
  repetition: number;
  /** Take a CPU profile from navigation to the end of the settle period. */
  profile: boolean;
  /** Take a heap snapshot at the end. */
  heapSnapshot?: boolean;
}

/** Runs the workload once in a new browser context and returns what it measured. */
export async function measureRun(
  browser: Browser,
  servers: { app: AppServer; sink: Sink },
  options: RunOptions,
): Promise<RunResult> {
  const { variant, workload, run, repetition, profile } = options;
  const { context, page, url, done } = await openVariant(browser, servers.app, variant, workload, run);
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
    if (profile) {
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
      await cdp.send('Profiler.start');
    }
    await page.goto(url, { waitUntil: 'load' });
    const atLoad = await metrics(cdp);
    await WORKLOAD_DRIVERS[workload](page, controlsOf(page));
    await page.waitForTimeout(SETTLE_MS);
    const atEnd = await metrics(cdp);
    const cpuProfile = profile ? ((await cdp.send('Profiler.stop')).profile as CpuProfile) : undefined;
    await cdp.send('HeapProfiler.collectGarbage');
    const afterGc = await metrics(cdp);
    const heap = options.heapSnapshot ? await takeHeapSnapshot(cdp) : undefined;
    const telemetry = await closeAndCollect(page, servers.sink, run);
    return {
      variant,
      workload,
      run,
      repetition,
      loadTaskMs: toMs(atLoad.TaskDuration),
      loadScriptMs: toMs(atLoad.ScriptDuration),
      workTaskMs: toMs(atEnd.TaskDuration) - toMs(atLoad.TaskDuration),
      workScriptMs: toMs(atEnd.ScriptDuration) - toMs(atLoad.ScriptDuration),
      heapBytes: afterGc.JSHeapUsedSize ?? NaN,
      scriptBytes: servers.app.scriptBytes(run),
      telemetry,
      ...(cpuProfile ? { profile: cpuProfile } : {}),
      ...(heap ? { heap } : {}),
    };
  } finally {
    await done();
  }
}
