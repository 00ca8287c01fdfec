import type { CostServerChild } from './child';
import type { CostControl, MappingRule, SyncStatus } from './control';

/** One sync run as the server recorded it, with the server process's memory and CPU around it. */
export interface SyncResult {
  lineItems: number;
  periods: string[];
  /** `last_run.started_at` → `finished_at`, the server's own account of the run. */
  seconds: number;
  /** VmRSS just before the run. */
  rssBefore: number;
  /** VmHWM during the run (the peak was reset just before it). */
  peakRss: number;
  /** Server CPU over the run, 1 = one core busy for the whole run. */
  cpuCores: number;
}

export interface Bench {
  server: CostServerChild;
  control: CostControl;
}

/** How long a sync may take before the run is declared hung: far beyond a server that is merely slow. */
const syncTimeoutMs = (rows: number) => 120_000 + rows * 1;

/**
 * Runs one sync and waits for it: `providerId` null connects the account (its first sync starts at once), else the
 * connection's sync is triggered again. A run that did not succeed, or read another number of line items, is an error.
 */
export async function measureSync(
  bench: Bench,
  target: { providerId: string | null; config: Record<string, string>; rows: number },
): Promise<{ providerId: string; result: SyncResult }> {
  const { server, control } = bench;
  const previous =
    target.providerId === null ? null : ((await control.syncStatus(target.providerId)).last_run?.finished_at ?? null);
  const rssBefore = server.memory().rss;
  server.resetPeak();
  const cpuBefore = server.cpuSeconds();
  let providerId = target.providerId;
  if (providerId === null) providerId = await control.connectAws(target.config);
  else await control.triggerSync(providerId);
  const status = await control.awaitSync(providerId, previous, syncTimeoutMs(target.rows));
  const cpu = server.cpuSeconds() - cpuBefore;
  const { peak } = server.memory();
  const run = checkRun(status, target.rows);
  const seconds = (Date.parse(run.finished_at) - Date.parse(run.started_at)) / 1000;
  return {
    providerId,
    result: {
      lineItems: run.line_items!,
      periods: run.periods ?? [],
      seconds,
      rssBefore,
      peakRss: peak,
      cpuCores: cpu / seconds,
    },
  };
}

function checkRun(status: SyncStatus, rows: number): NonNullable<SyncStatus['last_run']> {
  const run = status.last_run;
  if (!run || run.status !== 'succeeded') throw new Error(`the sync failed: ${run?.error ?? status.state}`);
  if (run.line_items !== rows) throw new Error(`the sync read ${run.line_items} line items, the report has ${rows}`);
  return run;
}

/** Latencies of one report endpoint, in ms. */
export interface QueryResult {
  path: string;
  ms: number[];
}

/** The report endpoints, each answered `warmup` times unmeasured and then `requests` times one after another. */
export async function measureQueries(
  bench: Bench,
  paths: readonly string[],
  options: { requests: number; warmup: number },
): Promise<QueryResult[]> {
  const results: QueryResult[] = [];
  for (const path of paths) {
    for (let i = 0; i < options.warmup; i++) await bench.control.call('GET', path);
    const ms: number[] = [];
    for (let i = 0; i < options.requests; i++) ms.push((await bench.control.call('GET', path)).ms);
    results.push({ path, ms });
  }
  return results;
}

export interface MappingResult {
  resources: number;
  ms: number[];
}

/**
 * `POST /control-plane/cost/mappings` `times` times, alternating two rule lists that attribute differently, so each
 * save really re-attributes every stored resource. Leaves the first list in force.
 */
export async function measureMappings(
  bench: Bench,
  lists: readonly [MappingRule[], MappingRule[]],
  times: number,
): Promise<MappingResult> {
  const ms: number[] = [];
  let resources = 0;
  for (let i = 0; i < times; i++) {
    const { body, ms: took } = await bench.control.call('POST', '/cost/mappings', { rules: lists[(i + 1) % 2] });
    ms.push(took);
    resources = body.resources_reattributed as number;
  }
  await bench.control.call('POST', '/cost/mappings', { rules: lists[0] });
  return { resources, ms };
}
