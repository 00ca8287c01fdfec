/**
 * Turns the runs of `bench:overhead` into markdown: medians per variant, the added cost of each SDK against the
 * baseline, the verdict on the targets (against Sentry: svc's added main-thread time, bytes sent and, since issue 4,
 * added JS heap each at most half of Sentry's; against Datadog, issue 16: time and bytes at most half, heap at most
 * Datadog's), bytes per minute of a recorded session, and where the bytes (and with `--profile`
 * the time) go.
 *
 * "Added" figures are medians of paired differences: in each repetition the variants run back to back, so the
 * difference with the same repetition's baseline cancels most of the drift of a shared machine.
 */
import { COMPARISONS, type Targets, type Variant } from './build';
import type { Workload } from './page/workloads/names';
import type { ProfileSummary } from './profile';
import type { RunResult } from './run';
import type { SessionResult } from './session';
import { summarizeTelemetry, type TelemetrySummary } from './telemetry';

export function median(values: readonly number[]): number {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');
const kb = (bytes: number) => (Number.isFinite(bytes) ? (bytes / 1000).toFixed(1) : 'n/a');
const mb = (bytes: number) => (bytes / 1e6).toFixed(2);
const signed = (value: number, format: (v: number) => string) => (value > 0 ? `+${format(value)}` : format(value));

/** Every figure of one variant, aggregated over its runs. */
export interface VariantFigures {
  variant: Variant;
  runs: number;
  totalTaskMs: number;
  totalScriptMs: number;
  loadTaskMs: number;
  workTaskMs: number;
  /** Medians of the per-repetition differences with the baseline (0 for the baseline itself). */
  addedTaskMs: number;
  addedScriptMs: number;
  addedTaskRange: [number, number];
  heapBytes: number;
  addedHeapBytes: number;
  sentBytes: number;
  /** Of `sentBytes`, the requests carrying session replay. */
  replayBytes: number;
  sentRequests: number;
  encodings: string[];
  scriptBytes: number;
  /** The run with the median bytes sent, for the breakdown. */
  medianTelemetry: TelemetrySummary;
}

const total = (run: RunResult, key: 'Task' | 'Script') => run[`load${key}Ms`] + run[`work${key}Ms`];

/** Aggregates the measured runs per variant, pairing each with the baseline run of its repetition. */
export function aggregate(results: readonly RunResult[]): VariantFigures[] {
  const variants = [...new Set(results.map((result) => result.variant))];
  const baseline = new Map(results.filter((r) => r.variant === 'none').map((r) => [r.repetition, r]));
  return variants.map((variant) => {
    const runs = results.filter((r) => r.variant === variant);
    const paired = (f: (r: RunResult) => number) =>
      runs.flatMap((r) => {
        const base = baseline.get(r.repetition);
        return base ? [f(r) - f(base)] : [];
      });
    const addedTask = paired((r) => total(r, 'Task'));
    const telemetry = runs.map((r) => summarizeTelemetry(r.telemetry)).sort((a, b) => a.bytes - b.bytes);
    return {
      variant,
      runs: runs.length,
      totalTaskMs: median(runs.map((r) => total(r, 'Task'))),
      totalScriptMs: median(runs.map((r) => total(r, 'Script'))),
      loadTaskMs: median(runs.map((r) => r.loadTaskMs)),
      workTaskMs: median(runs.map((r) => r.workTaskMs)),
      addedTaskMs: median(addedTask),
      addedScriptMs: median(paired((r) => total(r, 'Script'))),
      addedTaskRange: [Math.min(...addedTask), Math.max(...addedTask)],
      heapBytes: median(runs.map((r) => r.heapBytes)),
      addedHeapBytes: median(paired((r) => r.heapBytes)),
      sentBytes: median(telemetry.map((t) => t.bytes)),
      replayBytes: median(telemetry.map((t) => t.replayBytes)),
      sentRequests: median(telemetry.map((t) => t.requests)),
      encodings: [...new Set(telemetry.flatMap((t) => t.encodings))],
      scriptBytes: median(runs.map((r) => r.scriptBytes)),
      medianTelemetry: telemetry[telemetry.length >> 1]!,
    };
  });
}

/** One workload's figures. */
export interface WorkloadFigures {
  workload: Workload;
  figures: VariantFigures[];
}

/** Aggregates the measured runs per workload (in the order they ran), then per variant as `aggregate` does. */
export function aggregateByWorkload(results: readonly RunResult[]): WorkloadFigures[] {
  const workloads = [...new Set(results.map((result) => result.workload))];
  return workloads.map((workload) => ({
    workload,
    figures: aggregate(results.filter((result) => result.workload === workload)),
  }));
}

/** Issue 35's targets against Datadog, on every workload. */
export const ISSUE_35_TARGETS: Targets = { time: 0.5, heap: 1, bytes: 0.3 };

/** The variants whose ratios to Datadog are judged against issue 35's targets (the others' are shown bare). */
const JUDGED: readonly Variant[] = ['svc', 'svc-baseline'];

/**
 * Ours as a share of theirs; undefined when their figure is within the noise (at or below zero: the runs did not
 * resolve it), as `targetLine` treats it. A cost of ours at or below zero counts as 0.
 */
function ratioTo(ours: number, theirs: number): number | undefined {
  return Number.isFinite(ours) && theirs > 0 ? Math.max(ours, 0) / theirs : undefined;
}

/** A ratio to Datadog's figure, judged against `target` when given. */
function ratioCell(ours: number, theirs: number, target?: number): string {
  const ratio = ratioTo(ours, theirs);
  if (ratio === undefined) return 'n/r';
  return target === undefined ? ratio.toFixed(2) : `${ratio.toFixed(2)} **${ratio <= target ? 'met' : 'missed'}**`;
}

/**
 * Issue 35's table: per workload and SDK variant, the added main-thread and script time, added JS heap and bytes
 * sent, with the ratios to Datadog's on the same workload (svc's judged against the targets). "n/r": Datadog's
 * added figure is within the noise (at or below zero), no ratio.
 */
export function workloadTable(workloads: readonly WorkloadFigures[]): string {
  const rows = workloads.flatMap(({ workload, figures }) => {
    const datadog = figures.find((f) => f.variant === 'datadog');
    return figures
      .filter((f) => f.variant !== 'none')
      .map((f) => {
        const judged = JUDGED.includes(f.variant) ? ISSUE_35_TARGETS : undefined;
        const ratio = (key: 'addedTaskMs' | 'addedHeapBytes' | 'sentBytes', target?: number) =>
          !datadog || f.variant === 'datadog' ? '—' : ratioCell(f[key], datadog[key], target);
        return [
          workload,
          f.variant,
          `${signed(f.addedTaskMs, ms)} (${ms(f.addedTaskRange[0])} … ${ms(f.addedTaskRange[1])})`,
          signed(f.addedScriptMs, ms),
          signed(f.addedHeapBytes / 1e6, (v) => v.toFixed(2)),
          kb(f.sentBytes),
          ratio('addedTaskMs', judged?.time),
          ratio('addedHeapBytes', judged?.heap),
          ratio('sentBytes', judged?.bytes),
        ].join(' | ');
      });
  });
  return [
    `| workload | variant | added main-thread ms (min … max) | added script ms | added JS heap MB after GC | KB sent | main-thread / Datadog (≤ ${ISSUE_35_TARGETS.time.toFixed(1)}) | heap / Datadog (≤ ${ISSUE_35_TARGETS.heap.toFixed(1)}) | bytes / Datadog (≤ ${ISSUE_35_TARGETS.bytes.toFixed(1)}) |`,
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** One line per workload: which of issue 35's targets svc met against Datadog there. */
export function workloadVerdict(workloads: readonly WorkloadFigures[]): string {
  const lines = workloads.flatMap(({ workload, figures }) => {
    const svc = figures.find((f) => f.variant === 'svc');
    const datadog = figures.find((f) => f.variant === 'datadog');
    if (!svc || !datadog) return [];
    const judge = (what: string, ours: number, theirs: number, target: number) => {
      const ratio = ratioTo(ours, theirs);
      return ratio === undefined
        ? { met: undefined, text: `${what} not resolved` }
        : { met: ratio <= target, text: `${what} ${ratio.toFixed(2)} (${ratio <= target ? 'met' : 'missed'})` };
    };
    const verdicts = [
      judge('main-thread', svc.addedTaskMs, datadog.addedTaskMs, ISSUE_35_TARGETS.time),
      judge('heap', svc.addedHeapBytes, datadog.addedHeapBytes, ISSUE_35_TARGETS.heap),
      judge('bytes', svc.sentBytes, datadog.sentBytes, ISSUE_35_TARGETS.bytes),
    ];
    const state = verdicts.some((v) => v.met === false)
      ? '**missed**'
      : verdicts.some((v) => v.met === undefined)
        ? 'not resolved'
        : '**met**';
    return [`- ${workload}: ${state}: ${verdicts.map((v) => v.text).join(', ')}`];
  });
  return lines.length > 0
    ? [`svc against Datadog on issue 35's targets, per workload:`, ...lines].join('\n')
    : '(the per-workload verdict needs svc and datadog)';
}

/** The main table: one row per variant. */
export function figuresTable(figures: readonly VariantFigures[]): string {
  const baselineScript = figures.find((f) => f.variant === 'none')?.scriptBytes ?? NaN;
  const rows = figures.map((f) =>
    [
      f.variant,
      f.variant === 'none'
        ? '—'
        : `${signed(f.addedTaskMs, ms)} (${ms(f.addedTaskRange[0])} … ${ms(f.addedTaskRange[1])})`,
      f.variant === 'none' ? '—' : signed(f.addedScriptMs, ms),
      `${ms(f.totalTaskMs)} (${ms(f.loadTaskMs)} + ${ms(f.workTaskMs)})`,
      ms(f.totalScriptMs),
      `${kb(f.sentBytes)} (${f.sentRequests})`,
      kb(f.replayBytes),
      `${mb(f.heapBytes)}${f.variant === 'none' ? '' : ` (${signed(f.addedHeapBytes / 1e6, (v) => v.toFixed(2))})`}`,
      f.variant === 'none' ? kb(f.scriptBytes) : `${kb(f.scriptBytes)} (${signed(f.scriptBytes - baselineScript, kb)})`,
    ].join(' | '),
  );
  return [
    '| variant | added main-thread ms (min … max) | added script ms | main-thread ms (load + workload) | script ms | KB sent (requests) | of which replay KB | JS heap MB after GC (added) | JS transfer KB, gzip (SDK) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** One comparison line: ours against theirs, and the ratio against the target when it can be resolved. */
function targetLine(
  what: string,
  peer: string,
  ours: number,
  theirs: number,
  target: number,
  format: (v: number) => string,
): string {
  const head = `- ${what}: svc ${format(ours)}, ${peer} ${format(theirs)}`;
  // A baseline difference at or below zero means the runs were too noisy to resolve the peer's cost: no ratio.
  if (!(theirs > 0)) return `${head}: not resolved (${peer}'s figure is within the noise; run more repetitions)`;
  const goal = Number.isFinite(target) ? `target ≤ ${target.toFixed(2)}` : 'no target';
  const met = (ratio: number) => (Number.isFinite(target) ? `: **${ratio <= target ? 'met' : 'missed'}**` : '');
  if (ours <= 0) return `${head}: svc's cost is below what the runs resolve (${goal}${met(0)}, see the spread)`;
  const ratio = ours / theirs;
  return `${head}: ratio ${ratio.toFixed(2)} (${goal}${met(ratio)})`;
}

/** svc against each peer on its issue's targets, for each pair of variants that ran. */
export function verdict(figures: readonly VariantFigures[]): string {
  const sections = COMPARISONS.flatMap(({ ours, theirs, peer, issue, targets }) => {
    const svc = figures.find((f) => f.variant === ours);
    const other = figures.find((f) => f.variant === theirs);
    if (!svc || !other) return [];
    return [
      [
        `${ours} against ${theirs} (issue ${issue}'s targets):`,
        targetLine(
          'added main-thread time',
          peer,
          svc.addedTaskMs,
          other.addedTaskMs,
          targets.time,
          (v) => `${ms(v)} ms`,
        ),
        targetLine(
          'added script time',
          peer,
          svc.addedScriptMs,
          other.addedScriptMs,
          targets.time,
          (v) => `${ms(v)} ms`,
        ),
        targetLine('bytes sent', peer, svc.sentBytes, other.sentBytes, targets.bytes, (v) => `${kb(v)} KB`),
        targetLine('added JS heap', peer, svc.addedHeapBytes, other.addedHeapBytes, targets.heap, (v) => `${mb(v)} MB`),
      ].join('\n'),
    ];
  });
  return sections.length > 0 ? sections.join('\n\n') : '(the verdict needs svc and a peer variant of the same kind)';
}

/** Bytes per minute of the recorded sessions: medians per variant. */
export function sessionTable(sessions: readonly SessionResult[]): string {
  const variants = [...new Set(sessions.map((session) => session.variant))];
  const rows = variants.map((variant) => {
    const runs = sessions
      .filter((session) => session.variant === variant)
      .map((session) => ({ session, sent: summarizeTelemetry(session.telemetry) }));
    const perMinute = (bytes: (sent: TelemetrySummary) => number) =>
      median(runs.map((r) => bytes(r.sent) / (r.session.seconds / 60)));
    return [
      variant,
      String(runs.length),
      median(runs.map((r) => r.session.seconds)).toFixed(0),
      `${kb(median(runs.map((r) => r.sent.bytes)))} (${median(runs.map((r) => r.sent.requests))})`,
      kb(perMinute((sent) => sent.bytes)),
      kb(perMinute((sent) => sent.replayBytes)),
      kb(perMinute((sent) => sent.decodedBytes)),
    ].join(' | ');
  });
  return [
    '| variant | sessions | length s | KB sent (requests) | KB sent per minute | of which replay, KB/min | uncompressed KB/min |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

/** Where a variant's bytes go, from its median run: by kind of record and, for OTLP, by attribute. */
export function bytesTable(figures: VariantFigures, topAttributes = 10): string {
  const t = figures.medianTelemetry;
  const share = (bytes: number) => `${((bytes / t.decodedBytes) * 100).toFixed(1)} %`;
  const lines = [
    `${figures.variant}: ${kb(t.bytes)} KB in ${t.requests} requests (encoding: ${t.encodings.join(', ') || 'none'}; ${kb(t.decodedBytes)} KB uncompressed)`,
    '',
    '| what | records | KB | share |',
    '|---|---:|---:|---:|',
    ...t.categories.map((c) => `| ${c.name} | ${c.count || ''} | ${kb(c.bytes)} | ${share(c.bytes)} |`),
  ];
  if (t.attributes.length > 0) {
    lines.push(
      '',
      `Largest attributes (over every record and resource; included in the rows above):`,
      '',
      '| attribute | occurrences | KB | share |',
      '|---|---:|---:|---:|',
      ...t.attributes
        .slice(0, topAttributes)
        .map((c) => `| ${c.name} | ${c.count} | ${kb(c.bytes)} | ${share(c.bytes)} |`),
    );
  }
  return lines.join('\n');
}

/** Where a variant's JavaScript time goes, from a profiled run. */
export function profileTable(variant: Variant, summary: ProfileSummary, top = 15): string {
  const row = (entry: { name: string; ms: number }) =>
    `| ${entry.name} | ${entry.ms.toFixed(1)} | ${((entry.ms / summary.busyMs) * 100).toFixed(1)} % |`;
  return [
    `${variant}: ${summary.busyMs.toFixed(0)} ms busy in the profile (unminified build, sampling every 0.1 ms)`,
    '',
    '| owner | self ms | share |',
    '|---|---:|---:|',
    ...summary.owners.slice(0, top).map(row),
    '',
    '| module | self ms | share |',
    '|---|---:|---:|',
    ...summary.modules.slice(0, top).map(row),
    '',
    '| SDK function (module:~line in it) | self ms | share |',
    '|---|---:|---:|',
    ...summary.sdkFunctions.slice(0, top).map(row),
  ].join('\n');
}
