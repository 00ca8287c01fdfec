import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { TEST_ENV } from '../otlp/environment';
import type { IncidentView } from '../incidents/types';
import { costRows, splitCurrency } from './store/costs';
import { isUsage } from './reports/breakdown';
import { dayOf } from './reports/days';

/** The cost an incident puts at stake: what its services cost per hour, over how long it has lasted. */
export interface CostImpact {
  currency: string;
  /** What the affected services cost per hour (sum over `services`). */
  hourly_cost: number;
  /** Detection to resolution, or to now while the incident is open. */
  duration_hours: number;
  /** `hourly_cost × duration_hours`: the spend of the affected services during the incident. */
  estimated_cost: number;
  /** True while the incident is open: the estimate grows. */
  ongoing: boolean;
  services: { service: string; hourly_cost: number; env_specific: boolean }[];
  basis: { method: 'trailing_daily_average'; days: number; from: string; to: string; description: string };
}

/** Days of cost before the incident that set its hourly rate: a week smooths weekday and weekend use. */
export const IMPACT_WINDOW_DAYS = 7;
const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

const round = (value: number, digits = 4) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * Cost impact of an incident (SPEC 1: "when the affected service has cost data"). The hourly cost of each affected
 * service is its effective usage cost over the {@link IMPACT_WINDOW_DAYS} complete UTC days before detection, divided by the
 * hours of the days that had cost data; where the mapping assigns an env, only the incident's env counts, otherwise
 * the service's cost in every env but `test` (the infrastructure of test runs). Service names compare
 * case-insensitively with the attributed `service` of mapping rules. Null when no affected service has cost in the window.
 */
export function costImpactOf(db: Kysely<Database>, clock: Clock) {
  return async (projectId: string, incident: IncidentView): Promise<CostImpact | null> => {
    if (incident.services.length === 0) return null;
    const detectedMs = Date.parse(incident.detected_at);
    const endMs = incident.resolved_at === null ? clock.now() : Date.parse(incident.resolved_at);
    const to = dayOf(detectedMs - DAY_MS);
    const from = dayOf(detectedMs - IMPACT_WINDOW_DAYS * DAY_MS);
    const names = new Set(incident.services.map((s) => s.toLowerCase()));
    // Usage only: a service's cost is what its resources use (reports/breakdown.ts); tax or a credit is nobody's rate.
    const rows = (await costRows(db, projectId, { from, to })).filter(
      (r) => isUsage(r) && r.service !== null && names.has(r.service.toLowerCase()),
    );
    const split = splitCurrency(rows);
    if (split.currency === null) return null;
    const services = incident.services.flatMap((name) => {
      // Test infrastructure (env `test`) is not what an incident puts at stake, unless the incident is itself in it.
      const own = split.rows.filter(
        (r) => r.service!.toLowerCase() === name.toLowerCase() && (r.env !== TEST_ENV || incident.env === TEST_ENV),
      );
      const inEnv = own.filter((r) => r.env === incident.env);
      const chosen = inEnv.length > 0 ? inEnv : own;
      if (chosen.length === 0) return [];
      const cost = chosen.reduce((sum, r) => sum + r.effective, 0);
      const days = new Set(chosen.map((r) => r.day)).size;
      return [{ service: name, hourly_cost: round(cost / (days * 24)), env_specific: inEnv.length > 0 }];
    });
    const hourly = services.reduce((sum, s) => sum + s.hourly_cost, 0);
    const hours = Math.max(0, endMs - detectedMs) / HOUR_MS;
    return {
      currency: split.currency,
      hourly_cost: round(hourly),
      duration_hours: round(hours, 2),
      estimated_cost: round(hourly * hours, 2),
      ongoing: incident.resolved_at === null,
      services,
      basis: {
        method: 'trailing_daily_average',
        days: IMPACT_WINDOW_DAYS,
        from,
        to,
        description: `effective cost of the affected services over the ${IMPACT_WINDOW_DAYS} UTC days before detection, per hour, times the incident's duration`,
      },
    };
  };
}
