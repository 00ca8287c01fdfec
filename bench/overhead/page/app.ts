/**
 * The workload pages of `bench:overhead`: one bundle per variant, identical in every variant but for the SDK set up
 * before `startApp`. The app server names the run's workload in `<meta name="bench-workload">`; `startApp` renders
 * it (bench/overhead/page/workloads/<name>.ts) and exposes `window.bench` to the driver (bench/overhead/run.ts and
 * bench/overhead/workloads/<name>.ts), which clicks, types and scrolls through real input events.
 */
import { createTracker } from './kit';
import { WORKLOAD_PAGES } from './workloads';
import { isWorkload } from './workloads/names';

/** Where the driver should click, in CSS pixels of the viewport. */
export type BenchTargets = Record<string, { x: number; y: number }>;

/** What the page exposes to the driver as `window.bench`. */
export interface BenchPage {
  /** Centres of the workload's controls, where they are now (a page that scrolls moves them). */
  targets(): BenchTargets;
  /** Resolves once every request and render started by earlier input has finished. */
  idle(): Promise<void>;
}

declare global {
  interface Window {
    bench?: BenchPage;
  }
}

/** What the driver passes in the page URL: the run (for attribution) and the telemetry sink's origin. */
interface BenchParams {
  run: string;
  sink: string;
}

/**
 * Reads the run number from the path (`/r/<run>/<variant>/...`) and the sink origin from `<meta name="bench-sink">`
 * (not from the query string, which both SDKs would copy into every URL attribute and inflate the bytes sent).
 */
function benchParams(): BenchParams {
  const run = /^\/r\/(\d+)\//.exec(location.pathname)?.[1] ?? '0';
  const sink = document.querySelector<HTMLMetaElement>('meta[name="bench-sink"]')?.content ?? location.origin;
  return { run, sink };
}

/** svc's `ingestUrl` for this run: the sink, under `/r/<run>` so that the sink can tell runs apart. */
export function svcIngestUrl(): string {
  const { run, sink } = benchParams();
  return `${sink}/r/${run}`;
}

/** Sentry's DSN for this run: the project id is the run number, so envelopes arrive as `/api/<run>/envelope/`. */
export function sentryDsn(): string {
  const { run, sink } = benchParams();
  const dsn = new URL(sink);
  dsn.username = 'bench';
  dsn.pathname = `/${run}`;
  return dsn.href;
}

/**
 * Datadog's `proxy` for this run: every intake request goes to the sink as `/r/<run>/dd/api/v2/<track>?<parameters>`
 * (Datadog's own path and query kept, so the sink tells RUM, logs and replay apart).
 */
export function datadogProxy(): (request: { path: string; parameters: string }) => string {
  const { run, sink } = benchParams();
  return ({ path, parameters }) => `${sink}/r/${run}/dd${path}?${parameters}`;
}

/** Renders the run's workload into `document.body` and wires it; call after the SDK (if any) is initialised. */
export function startApp(): void {
  const name = document.querySelector<HTMLMetaElement>('meta[name="bench-workload"]')?.content ?? 'classic';
  if (!isWorkload(name)) throw new Error(`unknown workload "${name}"`);
  const base = /^\/r\/\d+\/[a-z-]+\//.exec(location.pathname)?.[0] ?? '/';
  const tracker = createTracker();
  const controls = WORKLOAD_PAGES[name]({ base, track: tracker.track, settle: tracker.settle });
  window.bench = {
    targets() {
      return Object.fromEntries(
        Object.entries(controls).map(([control, node]) => {
          const rect = node.getBoundingClientRect();
          return [control, { x: rect.left + rect.width / 2, y: rect.top + rect.height / 2 }];
        }),
      );
    },
    idle: tracker.idle,
  };
}
