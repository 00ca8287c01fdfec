import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { listApps } from '../../projects/apps-store';
import { dayOf, type DayRange } from '../reports/days';
import type { ResourceComputeCost } from '../reports/recommendations/idle';
import {
  appIdsByName,
  groupComputeCost,
  monitoredServiceSpans,
  serviceUtilization,
  type ComputeCostRow,
} from '../reports/recommendations/inputs';
import type { ServiceUtilization, UtilizationSeries } from '../reports/recommendations/overprovisioned';
import type { OnDemandCompute } from '../reports/recommendations/reserved';
import { splitCurrency } from './costs';

const DAY_MS = 86_400_000;
const SPAN_KIND_SERVER = 2;
const SPAN_KIND_CLIENT = 3;

/** Utilization gauges (0–1) the overprovisioning check reads, most specific first (OpenTelemetry semantic conventions). */
export const CPU_METRICS = [
  'container.cpu.utilization',
  'k8s.pod.cpu.utilization',
  'process.cpu.utilization',
  'system.cpu.utilization',
];
export const MEMORY_METRICS = [
  'container.memory.utilization',
  'k8s.pod.memory.utilization',
  'process.memory.utilization',
  'system.memory.utilization',
];

export interface RecommendationInputs {
  currency: string | null;
  resources: ResourceComputeCost[];
  onDemand: OnDemandCompute[];
  /** Monitored services (apps that ever sent spans) by attributed name → server and client spans in the window. */
  spans: Map<string, number>;
  utilization: ServiceUtilization[];
}

/**
 * Everything the three recommendation kinds judge, over the window's complete days: `Compute` cost per resource —
 * its usage net of the credits and discounts billed on it (an AWS EDP discount, a GCP sustained-use credit), what
 * stopping or resizing it would really save — and its on-demand usage per day, span counts of the monitored services,
 * and daily p95 utilization. Attributed service names meet app names and aliases case-insensitively, as incident
 * services do (cost/impact.ts).
 */
export async function recommendationInputs(
  db: Kysely<Database>,
  projectId: string,
  window: DayRange,
): Promise<RecommendationInputs> {
  const split = splitCurrency(await computeCostRows(db, projectId, window));
  const compute = groupComputeCost(split.rows);
  const apps = await listApps(db, projectId);
  const appOf = appIdsByName(apps);
  const fromMs = Date.parse(`${window.start}T00:00:00Z`);
  const toMs = Date.parse(`${window.end}T00:00:00Z`) + DAY_MS;
  const spanCounts = await spansByApp(db, projectId, fromMs, toMs);
  const monitored = await monitoredApps(
    db,
    projectId,
    apps.map((a) => a.id),
  );
  const services = new Set(split.rows.map((r) => r.service).filter((s): s is string => s !== null));
  const gauges = await utilizationByApp(db, projectId, fromMs, toMs);
  return {
    currency: split.currency,
    resources: compute.resources,
    onDemand: compute.onDemand,
    spans: monitoredServiceSpans(services, appOf, monitored, spanCounts),
    utilization: serviceUtilization(compute.byService, appOf, gauges, split.currency ?? ''),
  };
}

/** What a compute cost row is per: the columns it selects and groups by. */
const COMPUTE_KEYS = [
  'd.resource_key',
  'r.resource_id',
  'r.resource_name',
  'r.service',
  'd.day',
  'd.charge_category',
  'd.pricing_category',
  'd.currency',
] as const;

/** The window's `Compute` usage and credits per resource, day, kind of charge and currency. */
async function computeCostRows(db: Kysely<Database>, projectId: string, window: DayRange): Promise<ComputeCostRow[]> {
  const rows = await db
    .selectFrom('cost_daily as d')
    .innerJoin('cost_resources as r', (join) =>
      join.onRef('r.provider_id', '=', 'd.provider_id').onRef('r.resource_key', '=', 'd.resource_key'),
    )
    .select(COMPUTE_KEYS)
    .select((eb) => eb.fn.sum<number>('d.effective_cost').as('effective'))
    .where('d.project_id', '=', projectId)
    .where('r.service_category', '=', 'Compute')
    .where('d.charge_category', 'in', ['Usage', 'Credit'])
    .where('d.day', '>=', window.start)
    .where('d.day', '<=', window.end)
    .groupBy(COMPUTE_KEYS)
    .execute();
  return rows.map((r) => ({ ...r, effective: Number(r.effective) }));
}

async function spansByApp(
  db: Kysely<Database>,
  projectId: string,
  fromMs: number,
  toMs: number,
): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('spans')
    .select(['app_id'])
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .where('project_id', '=', projectId)
    .where('time_ms', '>=', fromMs)
    .where('time_ms', '<', toMs)
    .where('kind', 'in', [SPAN_KIND_SERVER, SPAN_KIND_CLIENT])
    .groupBy('app_id')
    .execute();
  return new Map(rows.map((r) => [r.app_id, Number(r.count)]));
}

/** Apps that ever sent a span: silence from a service that never sent telemetry says nothing about its traffic. */
async function monitoredApps(db: Kysely<Database>, projectId: string, appIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const appId of appIds) {
    const any = await db
      .selectFrom('spans')
      .select('id')
      .where('project_id', '=', projectId)
      .where('app_id', '=', appId)
      .limit(1)
      .executeTakeFirst();
    if (any) found.add(appId);
  }
  return found;
}

/**
 * Daily p95 of each app's CPU and memory utilization. A gauge reported per state (`system.cpu.utilization` with
 * `state`/`system.cpu.state` = idle, user, ...) counts as 1 − idle for CPU and as the `used` state for memory; other
 * states are skipped. Of several metrics of one kind, the one with the most samples is used.
 */
async function utilizationByApp(db: Kysely<Database>, projectId: string, fromMs: number, toMs: number) {
  const points = await db
    .selectFrom('metric_points')
    .select(['app_id', 'name', 'time_ms', 'value', 'attributes'])
    .where('project_id', '=', projectId)
    .where('name', 'in', [...CPU_METRICS, ...MEMORY_METRICS])
    .where('time_ms', '>=', fromMs)
    .where('time_ms', '<', toMs)
    .where('value', 'is not', null)
    .execute();
  // app → metric → day → values
  const samples = new Map<string, Map<string, Map<string, number[]>>>();
  for (const p of points) {
    const value = utilizationValue(p.name, p.value!, p.attributes);
    if (value === undefined) continue;
    const byMetric = samples.get(p.app_id) ?? new Map<string, Map<string, number[]>>();
    samples.set(p.app_id, byMetric);
    const byDay = byMetric.get(p.name) ?? new Map<string, number[]>();
    byMetric.set(p.name, byDay);
    const day = dayOf(p.time_ms);
    const values = byDay.get(day) ?? [];
    values.push(value);
    byDay.set(day, values);
  }
  const result = new Map<string, { cpu?: UtilizationSeries; memory?: UtilizationSeries }>();
  for (const [appId, byMetric] of samples) {
    const pick = (names: readonly string[]): UtilizationSeries | undefined => {
      const candidates = names.filter((n) => byMetric.has(n));
      const size = (n: string) => [...byMetric.get(n)!.values()].reduce((s, v) => s + v.length, 0);
      const best = candidates.sort((a, b) => size(b) - size(a))[0];
      if (best === undefined) return undefined;
      const days = [...byMetric.get(best)!]
        .map(([day, values]) => ({ day, p95: percentile95(values) }))
        .sort((a, b) => a.day.localeCompare(b.day));
      return { metric: best, days };
    };
    result.set(appId, { cpu: pick(CPU_METRICS), memory: pick(MEMORY_METRICS) });
  }
  return result;
}

const STATE_KEYS = ['state', 'system.cpu.state', 'cpu.mode', 'system.memory.state'];

function utilizationValue(metric: string, value: number, attributes: string): number | undefined {
  const parsed = JSON.parse(attributes) as Record<string, unknown>;
  const state = STATE_KEYS.map((k) => parsed[k]).find((v) => typeof v === 'string');
  if (state === undefined) return value;
  if (CPU_METRICS.includes(metric)) return state === 'idle' ? 1 - value : undefined;
  return state === 'used' ? value : undefined;
}

/** Nearest-rank 95th percentile. */
export function percentile95(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(0.95 * sorted.length) - 1)]!;
}
