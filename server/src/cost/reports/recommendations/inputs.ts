import type { DailyCost, Day } from '../days';
import type { ResourceComputeCost } from './idle';
import type { ServiceUtilization, UtilizationSeries } from './overprovisioned';
import type { OnDemandCompute } from './reserved';

/** A resource's `Compute` usage or credits of one day, kind of charge and currency, as the cost store sums them. */
export interface ComputeCostRow {
  resource_key: string;
  resource_id: string | null;
  resource_name: string | null;
  service: string | null;
  day: Day;
  charge_category: string;
  pricing_category: string;
  currency: string;
  effective: number;
}

export interface ComputeCosts {
  /** Per resource (its id, or its key when it has none): usage net of the credits billed on it. */
  resources: ResourceComputeCost[];
  /** Per resource: its on-demand (`Standard`) usage per day. */
  onDemand: OnDemandCompute[];
  /** Net `Compute` cost per attributed service. */
  byService: Map<string, number>;
}

/** Sums the rows (of one currency) per resource and per service, and keeps each resource's on-demand days. */
export function groupComputeCost(rows: readonly ComputeCostRow[]): ComputeCosts {
  const resources = new Map<string, ResourceComputeCost>();
  const onDemand = new Map<string, OnDemandCompute & { daily: DailyCost[] }>();
  const byService = new Map<string, number>();
  for (const row of rows) {
    const id = row.resource_id ?? row.resource_key;
    const base = { resource_id: id, resource_name: row.resource_name, service: row.service, currency: row.currency };
    const resource = resources.get(id) ?? { ...base, compute_cost: 0 };
    resource.compute_cost += row.effective;
    resources.set(id, resource);
    if (row.service !== null) byService.set(row.service, (byService.get(row.service) ?? 0) + row.effective);
    if (row.charge_category === 'Usage' && row.pricing_category === 'Standard') {
      const series = onDemand.get(id) ?? { ...base, daily: [] };
      series.daily.push({ day: row.day, cost: row.effective });
      onDemand.set(id, series);
    }
  }
  return { resources: [...resources.values()], onDemand: [...onDemand.values()], byService };
}

/** App ids by lower-cased name and alias: attributed service names meet apps case-insensitively. */
export function appIdsByName(apps: readonly { id: string; name: string; aliases: readonly string[] }[]) {
  const appOf = new Map<string, string>();
  for (const app of apps) for (const name of [app.name, ...app.aliases]) appOf.set(name.toLowerCase(), app.id);
  return appOf;
}

/** Span counts of the services whose app is monitored (ever sent a span), 0 for one silent in the window. */
export function monitoredServiceSpans(
  services: Iterable<string>,
  appOf: ReadonlyMap<string, string>,
  monitored: ReadonlySet<string>,
  spansByApp: ReadonlyMap<string, number>,
): Map<string, number> {
  const spans = new Map<string, number>();
  for (const name of services) {
    const appId = appOf.get(name.toLowerCase());
    if (appId !== undefined && monitored.has(appId)) spans.set(name, spansByApp.get(appId) ?? 0);
  }
  return spans;
}

/** Each service's compute cost beside its app's utilization, for the services whose app reported any. */
export function serviceUtilization(
  byService: ReadonlyMap<string, number>,
  appOf: ReadonlyMap<string, string>,
  gauges: ReadonlyMap<string, { cpu?: UtilizationSeries; memory?: UtilizationSeries }>,
  currency: string,
): ServiceUtilization[] {
  const utilization: ServiceUtilization[] = [];
  for (const [service, computeCost] of byService) {
    const appId = appOf.get(service.toLowerCase());
    const own = appId === undefined ? undefined : gauges.get(appId);
    if (!own) continue;
    utilization.push({ service, compute_cost: computeCost, currency, cpu: own.cpu, memory: own.memory });
  }
  return utilization;
}
