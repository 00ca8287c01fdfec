import { z } from '@hono/zod-openapi';
import { AnyObject, intParam, Time, TimeOrNull } from '../../http/schemas';
import { MAX_RULES } from '../mapping/rules';
import { PROVIDERS } from '../sources/types';
import { ESTIMATE_PERIODS } from '../reports/estimate';

/** Requests and answers of `/control-plane/cost/...` (docs/cost.md gives every field and method). */

const money = z.number();
/** Text the server writes from a fixed set; the enum documents the set. */
const oneOf = (values: readonly string[]) => z.string().openapi({ enum: [...values] });
const list = <T extends z.ZodType>(item: T) => z.array(item);

export const Sync = z
  .object({
    state: oneOf(['running', 'due', 'scheduled', 'retrying']),
    next_run_at: TimeOrNull,
    last_success_at: TimeOrNull,
    consecutive_failures: z.number().int(),
    last_run: z
      .object({
        started_at: TimeOrNull,
        finished_at: TimeOrNull,
        status: oneOf(['succeeded', 'failed']),
        line_items: z.number().int().nullable(),
        periods: z.array(z.string()).nullable(),
        error: z.string().nullable(),
      })
      .nullable(),
  })
  .openapi('CostSync');

export const Provider = z
  .object({
    id: z.string(),
    provider: oneOf(PROVIDERS),
    name: z.string().nullable(),
    config: AnyObject.openapi({
      description: 'Only what is safe to show: never a credential, role ARN or external id',
    }),
    created_at: Time,
    sync: Sync,
  })
  .openapi('CostProvider');

export const NewProvider = z.strictObject({
  provider: z.enum(PROVIDERS),
  name: z.string().trim().min(1).max(200).optional(),
  config: AnyObject.openapi({
    description: 'docs/cost.md per provider',
    example: { bucket: 'billing-exports', prefix: 'cur/', role_arn: 'arn:aws:iam::123456789012:role/svc-cost' },
  }),
});

const matchText = z.string().min(1).max(2048);
/** The shape of a rule; parseMappingRules (cost/mapping/rules.ts) adds what a shape cannot say (one target, tag-only dimensions). */
const MappingRule = z
  .strictObject({
    match: z.union(
      [z.strictObject({ tag: matchText, pattern: matchText }), z.strictObject({ resource_name_prefix: matchText })],
      {
        error: 'must have either tag and pattern, or resource_name_prefix',
      },
    ),
    attribute_to: z.enum(['service', 'env']).optional(),
    attribute_to_service: z.string().max(200).optional(),
  })
  .openapi('CostMappingRule', { example: { match: { tag: 'app', pattern: 'checkout-*' }, attribute_to: 'service' } });

export const MappingBody = z.strictObject({ rules: z.array(MappingRule).max(MAX_RULES) });
export const Mapping = z.object({ rules: z.array(MappingRule), updated_at: TimeOrNull });

const Share = z.object({ cost: money, share: z.number() });
const OtherCurrencies = list(z.object({ currency: z.string(), cost: money }));
const Trend = z.object({
  days: z.number().int(),
  current: money,
  previous: money,
  change: money,
  change_pct: z.number().nullable(),
});
const Charges = z
  .object({
    cost: money,
    billed_cost: money,
    by_type: list(
      z.object({
        charge_type: z.string().openapi({
          description: "The provider's name: `Tax`, `Credit`, `Refund`, `EdpDiscount`, `RIFee`, `Support`, ...",
        }),
        charge_category: oneOf(['Purchase', 'Tax', 'Credit', 'Adjustment']),
        cost: money,
        billed_cost: money,
      }),
    ),
  })
  .openapi({
    description:
      'Charges that are not usage of a resource (tax, credits, discounts, refunds, fees, support), by charge type',
  });
const freshness = oneOf(['no_data', 'fresh', 'stale']);
const Data = z
  .object({
    status: freshness,
    message: z.string(),
    stale_after_hours: z.number(),
    providers: list(
      z.object({
        id: z.string(),
        provider: z.string(),
        name: z.string().nullable(),
        status: freshness,
        last_success_at: TimeOrNull,
        last_error: z.object({ message: z.string(), at: TimeOrNull }).nullable(),
        consecutive_failures: z.number().int(),
        next_sync_at: TimeOrNull,
      }),
    ),
  })
  .openapi('CostDataFreshness', { description: 'Freshness of the data the report is computed from, per connection' });
const Flag = z.object({
  day: z.string(),
  cost: money,
  baseline: money,
  excess: money,
  excess_pct: z.number().nullable(),
});

export const Summary = z.object({
  period: z.string(),
  currency: z.string().nullable(),
  period_total: money,
  month_to_date: money,
  billed_total: money,
  usage_total: money,
  attributed: Share.openapi({ description: 'Usage a rule attributes to a service; share of usage_total' }),
  unattributed: Share.openapi({ description: 'Usage of untagged resources no rule attributes; share of usage_total' }),
  charges: Charges,
  other_currencies: OtherCurrencies,
  providers: list(
    z.object({
      id: z.string(),
      provider: z.string(),
      name: z.string().nullable(),
      last_successful_sync_at: TimeOrNull,
      last_sync_status: z.string().nullable(),
      last_sync_error: z.string().nullable(),
    }),
  ),
  data: Data,
});

export const ByService = z.object({
  period: z.string(),
  currency: z.string().nullable(),
  total: money,
  usage_total: money,
  services: list(
    z.object({
      service: z.string(),
      cost: money,
      billed_cost: money,
      share: z.number(),
      envs: list(z.object({ env: z.string(), cost: money, billed_cost: money })),
    }),
  ),
  charges: Charges,
  other_currencies: OtherCurrencies,
  data: Data,
});

export const Estimate = z.object({
  period: z.string(),
  range: z.object({ start: z.string(), end: z.string() }),
  currency: z.string().nullable(),
  to_date: money,
  projected: money,
  basis: AnyObject,
  trend: Trend,
  services: list(z.object({ service: z.string(), to_date: money, projected: money, daily_rate: money, trend: Trend })),
  daily: list(z.object({ day: z.string(), cost: money })).openapi({
    description:
      'Usage cost of each day of the period up to today (0 for a day without any), as the anomaly flags judge it',
  }),
  charges: Charges,
  anomalies: z.object({
    criteria: AnyObject,
    total: list(Flag),
    by_service: list(Flag.extend({ service: z.string() })),
  }),
  other_currencies: OtherCurrencies,
  data: Data,
});

export const Recommendations = z.object({
  window: z.object({ start: z.string(), end: z.string() }),
  currency: z.string().nullable(),
  note: z.string(),
  recommendations: list(
    z.object({
      kind: oneOf(['idle_resource', 'overprovisioned_service', 'reserved_instance']),
      target: AnyObject,
      evidence: AnyObject,
      estimated_monthly_saving: money,
      currency: z.string(),
    }),
  ),
  total_estimated_monthly_saving: money.openapi({
    description: 'Sum of the savings: at most one recommendation counts each resource',
  }),
  data: Data,
});

/** `period=YYYY-MM`: a billing period, default the current month. */
export const PeriodQuery = z.strictObject({
  period: z
    .string()
    .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { message: 'must be a billing period as YYYY-MM, e.g. 2024-09' })
    .optional()
    .openapi({ description: 'Billing period `YYYY-MM` (default: the current month)', example: '2026-01' }),
});

export const EstimateQuery = z.strictObject({
  period: z.enum(ESTIMATE_PERIODS).default('monthly').openapi({ description: 'Period to project' }),
  trailing_days: intParam(7, 90).optional().openapi({ description: 'Anomaly baseline days (default 14)' }),
  threshold_pct: z.coerce
    .number()
    .min(0)
    .optional()
    .openapi({ type: 'number', description: 'Anomaly: percent above the baseline (default 50)' }),
  min_amount: z.coerce
    .number()
    .min(0)
    .optional()
    .openapi({ type: 'number', description: 'Anomaly: least excess in currency units (default 10)' }),
});

export const LookbackQuery = z.strictObject({
  lookback_days: intParam(7, 90).optional().openapi({ description: 'Complete days looked at (default 30)' }),
});
