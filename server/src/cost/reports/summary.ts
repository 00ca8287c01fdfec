import { UNATTRIBUTED } from '../mapping/rules';
import { round, type CostRow, type CurrencySplit } from '../store/costs';
import { chargeBreakdown, isUsage, sumBy } from './breakdown';
import { dayOf } from './days';
import { dataFreshness, type ConnectionSync } from './freshness';

const label = (value: string | null) => value ?? UNATTRIBUTED;
const share = (part: number, total: number) => (total === 0 ? 0 : round(part / total));
const sum = (rows: readonly CostRow[], value: (row: CostRow) => number) => rows.reduce((s, r) => s + value(r), 0);

/** `GET /control-plane/cost/summary`: a period's totals, how much of its usage the rules attribute, its connections. */
export function periodSummary(
  period: string,
  split: CurrencySplit<CostRow>,
  connections: readonly ConnectionSync[],
  nowMs: number,
) {
  const today = dayOf(nowMs);
  const usage = split.rows.filter(isUsage);
  const usageTotal = sum(usage, (r) => r.effective);
  const attributed = sum(
    usage.filter((r) => r.service !== null),
    (r) => r.effective,
  );
  return {
    period,
    currency: split.currency,
    // Everything billed to the period so far, including charges dated after today (monthly fees posted up front).
    period_total: round(sum(split.rows, (r) => r.effective)),
    // The cost of the period's days up to today.
    month_to_date: round(
      sum(
        split.rows.filter((r) => r.day <= today),
        (r) => r.effective,
      ),
    ),
    billed_total: round(sum(split.rows, (r) => r.billed)),
    usage_total: round(usageTotal),
    // Shares of usage: how much of what resources cost the rules attribute. Charges are no resource's.
    attributed: { cost: round(attributed), share: share(attributed, usageTotal) },
    unattributed: { cost: round(usageTotal - attributed), share: share(usageTotal - attributed, usageTotal) },
    charges: chargeBreakdown(split.rows),
    other_currencies: split.other_currencies,
    providers: connections.map((p) => ({
      id: p.id,
      provider: p.provider,
      name: p.name,
      last_successful_sync_at: p.last_success_ms === null ? null : new Date(p.last_success_ms).toISOString(),
      last_sync_status: p.last_status,
      last_sync_error: p.last_error,
    })),
    data: dataFreshness(connections, nowMs),
  };
}

/**
 * `GET /control-plane/cost/by-service` without its `data`: usage cost per service and env, largest first, with the
 * Unattributed row always there (how much usage no rule covers is the first thing to look at), and the charges.
 */
export function costByService(period: string, split: CurrencySplit<CostRow>) {
  const usage = split.rows.filter(isUsage);
  const usageTotal = sum(usage, (r) => r.effective);
  const byService = sumBy(usage, (r) => label(r.service));
  if (!byService.has(UNATTRIBUTED)) byService.set(UNATTRIBUTED, { cost: 0, billed: 0 });
  const services = [...byService].map(([service, total]) => {
    const envs = sumBy(
      usage.filter((r) => label(r.service) === service),
      (r) => label(r.env),
    );
    return {
      service,
      cost: round(total.cost),
      billed_cost: round(total.billed),
      share: share(total.cost, usageTotal),
      envs: [...envs]
        .map(([env, e]) => ({ env, cost: round(e.cost), billed_cost: round(e.billed) }))
        .sort((a, b) => b.cost - a.cost),
    };
  });
  services.sort((a, b) => b.cost - a.cost || a.service.localeCompare(b.service));
  return {
    period,
    currency: split.currency,
    total: round(sum(split.rows, (r) => r.effective)),
    usage_total: round(usageTotal),
    services,
    charges: chargeBreakdown(split.rows),
    other_currencies: split.other_currencies,
  };
}
