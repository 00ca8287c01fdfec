import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';

/** Effective and billed cost summed by UTC day, attributed service and env, kind of charge and currency. */
export interface CostRow {
  day: string;
  billing_period: string;
  service: string | null;
  env: string | null;
  charge_category: string;
  /** The provider's name of the kind of charge; `` in rows stored before it was kept (migration 0010). */
  charge_type: string;
  currency: string;
  effective: number;
  billed: number;
}

export interface CostFilter {
  /** First and last UTC day, both included. */
  from?: string;
  to?: string;
  billingPeriod?: string;
}

/** The project's cost rows: every report is computed from these (the attribution is joined from cost_resources). */
export async function costRows(db: Kysely<Database>, projectId: string, filter: CostFilter): Promise<CostRow[]> {
  let query = db
    .selectFrom('cost_daily as d')
    .innerJoin('cost_resources as r', (join) =>
      join.onRef('r.provider_id', '=', 'd.provider_id').onRef('r.resource_key', '=', 'd.resource_key'),
    )
    .select(['d.day', 'd.billing_period', 'r.service', 'r.env', 'd.charge_category', 'd.charge_type', 'd.currency'])
    .select((eb) => [
      eb.fn.sum<number>('d.effective_cost').as('effective'),
      eb.fn.sum<number>('d.billed_cost').as('billed'),
    ])
    .where('d.project_id', '=', projectId)
    .groupBy(['d.day', 'd.billing_period', 'r.service', 'r.env', 'd.charge_category', 'd.charge_type', 'd.currency']);
  if (filter.from !== undefined) query = query.where('d.day', '>=', filter.from);
  if (filter.to !== undefined) query = query.where('d.day', '<=', filter.to);
  if (filter.billingPeriod !== undefined) query = query.where('d.billing_period', '=', filter.billingPeriod);
  const rows = await query.execute();
  return rows.map((r) => ({ ...r, effective: Number(r.effective), billed: Number(r.billed) }));
}

/** The first day the project has cost data for: days before it are unknown, not free (projection, anomalies). */
export async function firstCostDay(db: Kysely<Database>, projectId: string): Promise<string | null> {
  const row = await db
    .selectFrom('cost_daily')
    .select((eb) => eb.fn.min('day').as('first'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return (row?.first as string | null | undefined) ?? null;
}

export interface CurrencySplit<T> {
  currency: string | null;
  rows: T[];
  /** Cost in other currencies, left out of the report's sums (amounts in different currencies are never added). */
  other_currencies: { currency: string; cost: number }[];
}

/** Keeps the rows of the currency most of the cost is in; the rest are reported by currency beside it. */
export function splitCurrency<T extends { currency: string; effective: number }>(rows: readonly T[]): CurrencySplit<T> {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(r.currency, (totals.get(r.currency) ?? 0) + Math.abs(r.effective));
  const ranked = [...totals.keys()].sort((a, b) => totals.get(b)! - totals.get(a)!);
  const currency = ranked[0] ?? null;
  const other = ranked.slice(1).map((c) => ({
    currency: c,
    cost: round(rows.filter((r) => r.currency === c).reduce((s, r) => s + r.effective, 0)),
  }));
  return { currency, rows: rows.filter((r) => r.currency === currency), other_currencies: other };
}

/** Money in reports: cents are what people read, but sub-cent line items add up, so keep 6 decimals. */
export const round = (value: number): number => Math.round(value * 1e6) / 1e6;
