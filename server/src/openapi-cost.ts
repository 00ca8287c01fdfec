import { ESTIMATE_PERIODS } from './cost/routes/estimate';
import { PROVIDERS } from './cost/sources/types';
import { body, control, created, errorRefs, idParam, noContent, num, obj, ok, param, str, strOrNull, time, timeOrNull, type Schema } from './openapi-parts';

/** OpenAPI paths of cost tracking (docs/cost.md gives every field and method). */
const money: Schema = { type: 'number' };
const period = param('period', 'query', 'Billing period `YYYY-MM` (default: the current month)', { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$' });
const list = (items: Schema): Schema => ({ type: 'array', items });

const Sync = obj({
  state: { type: 'string', enum: ['running', 'due', 'scheduled', 'retrying'] },
  next_run_at: time,
  last_success_at: timeOrNull,
  consecutive_failures: { type: 'integer' },
  last_run: {
    type: ['object', 'null'],
    properties: { started_at: time, finished_at: timeOrNull, status: { type: 'string', enum: ['succeeded', 'failed'] }, line_items: { type: ['integer', 'null'] }, periods: { type: ['array', 'null'], items: str }, error: strOrNull },
  },
});
const Provider = obj({
  id: str,
  provider: { type: 'string', enum: [...PROVIDERS] },
  name: strOrNull,
  config: { type: 'object', description: 'Only what is safe to show: never a credential, role ARN or external id' },
  created_at: time,
  sync: Sync,
});
const Rule = obj({
  match: { oneOf: [obj({ tag: str, pattern: str }, ['tag', 'pattern']), obj({ resource_name_prefix: str }, ['resource_name_prefix'])] },
  attribute_to: { type: 'string', enum: ['service', 'env'] },
  attribute_to_service: str,
});
const Mapping = obj({ rules: list(Rule), updated_at: timeOrNull });
const Share = obj({ cost: money, share: num });
const OtherCurrencies = list(obj({ currency: str, cost: money }));
const Trend = obj({ days: { type: 'integer' }, current: money, previous: money, change: money, change_pct: { type: ['number', 'null'] } });
const Charges = {
  ...obj({
    cost: money,
    billed_cost: money,
    by_type: list(obj({
      charge_type: { type: 'string', description: "The provider's name: `Tax`, `Credit`, `Refund`, `EdpDiscount`, `RIFee`, `Support`, `SUSTAINED_USAGE_DISCOUNT`, `UnusedReservation`, ..." },
      charge_category: { type: 'string', enum: ['Purchase', 'Tax', 'Credit', 'Adjustment'] },
      cost: money,
      billed_cost: money,
    })),
  }),
  description: 'Charges that are not usage of a resource (tax, credits, discounts, refunds, fees, support), by charge type; never part of a service or of Unattributed',
};
const freshnessStatus: Schema = { type: 'string', enum: ['no_data', 'fresh', 'stale'] };
const Data = {
  ...obj({
    status: { ...freshnessStatus, description: '`no_data`: no connection has synced successfully (or none exists); `stale`: some connection\'s data is older than `stale_after_hours` or missing; `fresh` otherwise' },
    message: str,
    stale_after_hours: num,
    providers: list(obj({
      id: str,
      provider: str,
      name: strOrNull,
      status: freshnessStatus,
      last_success_at: timeOrNull,
      last_error: { type: ['object', 'null'], properties: { message: str, at: timeOrNull }, description: 'The last run\'s error when it failed' },
      consecutive_failures: { type: 'integer' },
      next_sync_at: time,
    })),
  }, ['status', 'message', 'stale_after_hours', 'providers']),
  description: 'Freshness of the data the report is computed from, per connection',
};
const Flag = obj({ day: str, cost: money, baseline: money, excess: money, excess_pct: { type: ['number', 'null'] } });

export const COST_PATHS = {
  '/control-plane/cost/providers': {
    get: control('Cost connections', ok('Connections', obj({ data: list(Provider) }))),
    post: control('Connect a cloud billing source (read-only); its first sync is due at once', created(Provider), {
      ...body(obj({ provider: { type: 'string', enum: [...PROVIDERS] }, name: str, config: { type: 'object', description: 'docs/cost.md per provider' } }, ['provider', 'config'])),
    }),
  },
  '/control-plane/cost/providers/{id}': {
    get: control('One connection', { ...ok('The connection', Provider), ...errorRefs(404) }, idParam('Connection id')),
    delete: control('Delete a connection and the cost data read through it', noContent, idParam('Connection id')),
  },
  '/control-plane/cost/providers/{id}/sync': {
    get: control('Sync status', { ...ok('The status', Sync), ...errorRefs(404) }, idParam('Connection id')),
    post: control('Run the sync now', { '202': { description: 'Due now' }, ...errorRefs(404, 409) }, idParam('Connection id')),
  },
  '/control-plane/cost/mappings': {
    get: control('Attribution rules in force', ok('The rules', Mapping)),
    post: control('Replace the rules (evaluated in order, first match wins per dimension) and re-attribute stored cost', ok('The rules', Mapping), {
      ...body(obj({ rules: list(Rule) }, ['rules'])),
    }),
  },
  '/control-plane/cost/summary': {
    get: control('Cost summary of a billing period', ok('The summary', obj({
      period: str,
      currency: strOrNull,
      period_total: money,
      month_to_date: money,
      billed_total: money,
      usage_total: money,
      attributed: { ...Share, description: 'Usage a rule attributes to a service; share of usage_total' },
      unattributed: { ...Share, description: 'Usage of untagged resources no rule attributes; share of usage_total' },
      charges: Charges,
      other_currencies: OtherCurrencies,
      providers: list(obj({ id: str, provider: str, name: strOrNull, last_successful_sync_at: timeOrNull, last_sync_status: strOrNull, last_sync_error: strOrNull })),
      data: Data,
    })), { parameters: [period] }),
  },
  '/control-plane/cost/by-service': {
    get: control('Usage cost per service and env, with the Unattributed row, and the non-usage charges by type', ok('The breakdown', obj({
      period: str,
      currency: strOrNull,
      total: money,
      usage_total: money,
      services: list(obj({ service: str, cost: money, billed_cost: money, share: num, envs: list(obj({ env: str, cost: money, billed_cost: money })) })),
      charges: Charges,
      other_currencies: OtherCurrencies,
      data: Data,
    })), { parameters: [period] }),
  },
  '/control-plane/cost/estimate': {
    get: control('Projection to the period end, trend, per-service breakdown and anomaly flags', ok('The estimate', obj({
      period: str,
      range: obj({ start: str, end: str }),
      currency: strOrNull,
      to_date: money,
      projected: money,
      basis: { type: 'object' },
      trend: Trend,
      services: list(obj({ service: str, to_date: money, projected: money, daily_rate: money, trend: Trend })),
      charges: Charges,
      anomalies: obj({ criteria: { type: 'object' }, total: list(Flag), by_service: list({ allOf: [Flag, obj({ service: str })] }) }),
      other_currencies: OtherCurrencies,
      data: Data,
    })), {
      parameters: [
        param('period', 'query', 'Period to project', { type: 'string', enum: [...ESTIMATE_PERIODS], default: 'monthly' }),
        param('trailing_days', 'query', 'Anomaly baseline days', { type: 'integer', minimum: 7, maximum: 90, default: 14 }),
        param('threshold_pct', 'query', 'Anomaly: percent above the baseline', { type: 'number', minimum: 0, default: 50 }),
        param('min_amount', 'query', 'Anomaly: least excess in currency units', { type: 'number', minimum: 0, default: 10 }),
      ],
    }),
  },
  '/control-plane/cost/recommendations': {
    get: control('Savings recommendations (heuristic, advisory; one per resource)', ok('The recommendations', obj({
      window: obj({ start: str, end: str }),
      currency: strOrNull,
      note: str,
      recommendations: list(obj({
        kind: { type: 'string', enum: ['idle_resource', 'overprovisioned_service', 'reserved_instance'] },
        target: { type: 'object' },
        evidence: { type: 'object' },
        estimated_monthly_saving: money,
        currency: str,
      })),
      total_estimated_monthly_saving: { ...money, description: 'Sum of the savings: at most one recommendation counts each resource' },
      data: Data,
    })), { parameters: [param('lookback_days', 'query', 'Complete days looked at', { type: 'integer', minimum: 7, maximum: 90, default: 30 })] }),
  },
};
