import { createRoute } from '@hono/zod-openapi';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer } from '../../http/openapi';
import { UNATTRIBUTED } from '../mapping/rules';
import { costRows, round, splitCurrency } from '../queries/costs';
import { connectionSyncs, reportFreshness } from '../queries/syncs';
import { chargeBreakdown, isUsage, sumBy } from '../reports/breakdown';
import { dayOf } from '../reports/days';
import { dataFreshness } from '../reports/freshness';
import type { CostServices } from '../services';
import { periodOf } from '../sync/periods';
import { estimate } from './estimate';
import { ByService, Estimate, EstimateQuery, PeriodQuery, Summary } from './schemas';

const control = { tags: ['cost'], security: CONTROL_SECURITY, method: 'get' as const };
const summaryRoute = createRoute({
  ...control,
  path: '/summary',
  summary: 'Cost summary of a billing period',
  request: { query: PeriodQuery },
  responses: { 200: jsonAnswer('The summary', Summary), ...errors(400, 401, 403) },
});
const byServiceRoute = createRoute({
  ...control,
  path: '/by-service',
  summary: 'Usage cost per service and env, with the Unattributed row, and the non-usage charges by type',
  request: { query: PeriodQuery },
  responses: { 200: jsonAnswer('The breakdown', ByService), ...errors(400, 401, 403) },
});
const estimateRoute = createRoute({
  ...control,
  path: '/estimate',
  summary: 'Projection to the period end, trend, per-service breakdown and anomaly flags',
  request: { query: EstimateQuery },
  responses: { 200: jsonAnswer('The estimate', Estimate), ...errors(400, 401, 403) },
});

const label = (value: string | null) => value ?? UNATTRIBUTED;
const share = (part: number, total: number) => (total === 0 ? 0 : round(part / total));

/** `GET /control-plane/cost/summary`, `/by-service` and `/estimate` (docs/cost.md gives every field). */
export function reportRoutes(services: CostServices) {
  const { db, clock } = services;
  const app = createRouter();

  app.openapi(summaryRoute, async (c) => {
    const now = clock.now();
    const period = c.req.valid('query').period ?? periodOf(now);
    const { projectId } = c.get('caller');
    const split = splitCurrency(await costRows(db, projectId, { billingPeriod: period }));
    const today = dayOf(now);
    const total = split.rows.reduce((s, r) => s + r.effective, 0);
    const usage = split.rows.filter(isUsage);
    const usageTotal = usage.reduce((s, r) => s + r.effective, 0);
    const attributed = usage.filter((r) => r.service !== null).reduce((s, r) => s + r.effective, 0);
    const connections = await connectionSyncs(db, projectId);
    return c.json(
      {
        period,
        currency: split.currency,
        // Everything billed to the period so far, including charges dated after today (monthly fees posted up front).
        period_total: round(total),
        // The cost of the period's days up to today.
        month_to_date: round(split.rows.filter((r) => r.day <= today).reduce((s, r) => s + r.effective, 0)),
        billed_total: round(split.rows.reduce((s, r) => s + r.billed, 0)),
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
        data: dataFreshness(connections, now),
      },
      200,
    );
  });

  app.openapi(byServiceRoute, async (c) => {
    const now = clock.now();
    const period = c.req.valid('query').period ?? periodOf(now);
    const { projectId } = c.get('caller');
    const split = splitCurrency(await costRows(db, projectId, { billingPeriod: period }));
    const usage = split.rows.filter(isUsage);
    const usageTotal = usage.reduce((s, r) => s + r.effective, 0);
    const byService = sumBy(usage, (r) => label(r.service));
    // The Unattributed row is always there: how much usage no rule covers is the first thing to look at.
    if (!byService.has(UNATTRIBUTED)) byService.set(UNATTRIBUTED, { cost: 0, billed: 0 });
    const rows = [...byService].map(([service, sum]) => {
      const envs = sumBy(
        usage.filter((r) => label(r.service) === service),
        (r) => label(r.env),
      );
      return {
        service,
        cost: round(sum.cost),
        billed_cost: round(sum.billed),
        share: share(sum.cost, usageTotal),
        envs: [...envs]
          .map(([env, e]) => ({ env, cost: round(e.cost), billed_cost: round(e.billed) }))
          .sort((a, b) => b.cost - a.cost),
      };
    });
    rows.sort((a, b) => b.cost - a.cost || a.service.localeCompare(b.service));
    return c.json(
      {
        period,
        currency: split.currency,
        total: round(split.rows.reduce((s, r) => s + r.effective, 0)),
        usage_total: round(usageTotal),
        services: rows,
        charges: chargeBreakdown(split.rows),
        other_currencies: split.other_currencies,
        data: await reportFreshness(db, projectId, now),
      },
      200,
    );
  });

  app.openapi(estimateRoute, async (c) => {
    const now = clock.now();
    const { projectId } = c.get('caller');
    return c.json(
      { ...(await estimate(db, projectId, now, c.req.query())), data: await reportFreshness(db, projectId, now) },
      200,
    );
  });

  return app;
}
