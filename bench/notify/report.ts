import { DRAIN_FANOUT, type DrainResult, type LatencyResult, type PipelineResult } from './phases';

/** The figures of one database. */
export interface DatabaseFigures {
  database: string;
  latency: LatencyResult;
  pipeline: PipelineResult;
  drain: DrainResult | undefined;
}

/** Targets of issue 5. */
export const TARGETS = { latencyP99Ms: 1000, deliveriesPerMinute: 10_000 } as const;
/** Half the outbox's 1 s poll: an idle server's delivery this slow waited for a poll instead of being woken. */
const SLOW_MS = 500;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : NaN;
};
const max = (values: number[]) => values.reduce((m, v) => Math.max(m, v), -Infinity);

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '–';
const ms = (n: number) => `${fmt(n, n < 100 ? 1 : 0)} ms`;
const spread = (values: number[]) =>
  `p50 ${ms(percentile(values, 0.5))} · p90 ${ms(percentile(values, 0.9))} · p99 ${ms(percentile(values, 0.99))} · max ${ms(max(values))}`;
const verdict = (met: boolean) => (met ? 'met' : '**MISSED**');

/** One table per database: latency at rest, the sustained pipeline, the backlog drain, and the receiver's ceiling. */
export function databaseTable(figures: DatabaseFigures, receiverPerMinute: number, concurrency: number): string {
  const { latency, pipeline, drain } = figures;
  const latencyP99 = percentile(latency.deliveryMs, 0.99);
  const best = Math.max(pipeline.deliveriesPerMinute, drain?.deliveriesPerMinute ?? 0);
  const rows: Array<[string, string, string]> = [
    [
      `incident → first delivery attempt, \`delay_seconds\` 0 (${latency.deliveryMs.length} incidents, one at a time)`,
      spread(latency.deliveryMs),
      `p99 < 1 s: ${verdict(latencyP99 < TARGETS.latencyP99Ms)}`,
    ],
    ['… of which `POST /control-plane/incidents` answered', spread(latency.postMs), ''],
    [
      `… deliveries slower than ${fmt(SLOW_MS)} ms`,
      `${latency.deliveryMs.filter((v) => v > SLOW_MS).length} of ${latency.deliveryMs.length}`,
      '',
    ],
    [
      `sustained: incidents opened by ${concurrency} clients and delivered at the same time (${fmt(pipeline.seconds)} s window)`,
      `**${fmt(pipeline.deliveriesPerMinute)} deliveries/min** (${fmt(pipeline.incidentsPerMinute)} incidents/min opened; ${fmt(pipeline.backlogAtEnd)} undelivered at the end)`,
      `≥ 10,000/min: ${verdict(pipeline.deliveriesPerMinute >= TARGETS.deliveriesPerMinute)}`,
    ],
    ['… incident → webhook under that load', spread(pipeline.deliveryMs), ''],
    ['… server CPU (100 % = one core)', `${fmt(pipeline.serverCpuPercent)} %`, ''],
  ];
  if (drain) {
    rows.push(
      [
        `backlog drain: ${fmt(drain.backlog)} deliveries (${DRAIN_FANOUT} channels per incident) due at once, outbox alone`,
        `**${fmt(drain.deliveriesPerMinute)} deliveries/min** (building the backlog, nothing sent meanwhile: ${fmt(drain.incidentsPerMinute)} incidents/min opened)`,
        `≥ 10,000/min: ${verdict(drain.deliveriesPerMinute >= TARGETS.deliveriesPerMinute)}`,
      ],
      ['… server CPU (100 % = one core)', `${fmt(drain.serverCpuPercent)} %`, ''],
    );
  }
  rows.push(
    [
      'receiver baseline: the same webhook replayed straight from the benchmark',
      `${fmt(receiverPerMinute)} requests/min`,
      '',
    ],
    ["server's share of the receiver's capacity used", `${fmt((best / receiverPerMinute) * 100)} %`, ''],
    ['duplicate `webhook-id`s at the receiver', String(pipeline.duplicates + (drain?.duplicates ?? 0)), '0'],
  );
  return [
    `### ${figures.database}`,
    '',
    '| measure | result | target |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** True when every database met both targets and nothing was sent twice. */
export function allTargetsMet(all: DatabaseFigures[]): boolean {
  return all.every(
    (f) =>
      percentile(f.latency.deliveryMs, 0.99) < TARGETS.latencyP99Ms &&
      f.pipeline.deliveriesPerMinute >= TARGETS.deliveriesPerMinute &&
      f.pipeline.duplicates + (f.drain?.duplicates ?? 0) === 0,
  );
}
