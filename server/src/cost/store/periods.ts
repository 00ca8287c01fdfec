import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../db/schema';
import { attribute } from '../mapping/attribute';
import type { MappingRule } from '../mapping/rules';
import type { BillingPeriod } from '../model';
import type { PeriodAggregate, ResourceSeen } from '../sync/aggregate';

/**
 * Rows per INSERT: 12 columns × 2,000 stays under SQLite's 32,766 bound parameters (and PostgreSQL's 65,535), and a
 * month of a large account is a few dozen round trips rather than hundreds (PostgreSQL waited on them in bench:cost).
 */
const CHUNK = 2000;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface PeriodWrite {
  projectId: string;
  providerId: string;
  period: BillingPeriod;
  aggregate: PeriodAggregate;
  rules: readonly MappingRule[];
  nowMs: number;
}

/**
 * Replaces what is stored for one connection and billing period with a fresh read, in one transaction: reports see
 * either the old period or the new one, never a mix, and a failed write leaves the old one in place. Re-reading the
 * same data therefore changes nothing (idempotent).
 */
export async function replacePeriod(db: Kysely<Database>, write: PeriodWrite): Promise<void> {
  const { projectId, providerId, period, aggregate } = write;
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('cost_daily')
      .where('provider_id', '=', providerId)
      .where('billing_period', '=', period)
      .execute();
    for (const rows of chunks(aggregate.daily)) {
      await trx
        .insertInto('cost_daily')
        .values(
          rows.map((d) => ({
            provider_id: providerId,
            project_id: projectId,
            billing_period: period,
            day: d.day,
            resource_key: d.resourceKey,
            charge_category: d.chargeCategory,
            charge_type: d.chargeType,
            pricing_category: d.pricingCategory,
            currency: d.currency,
            billed_cost: d.billedCost,
            effective_cost: d.effectiveCost,
            line_items: d.lineItems,
          })),
        )
        .execute();
    }
    await upsertResources(trx, write, [...aggregate.resources.values()]);
  });
}

async function upsertResources(
  trx: Transaction<Database>,
  write: PeriodWrite,
  resources: ResourceSeen[],
): Promise<void> {
  for (const rows of chunks(resources)) {
    await trx
      .insertInto('cost_resources')
      .values(
        rows.map((r) => {
          const { service, env } = attribute({ id: r.resourceId, name: r.resourceName, tags: r.tags }, write.rules);
          return {
            provider_id: write.providerId,
            resource_key: r.key,
            project_id: write.projectId,
            resource_id: r.resourceId,
            resource_name: r.resourceName,
            service_name: r.serviceName,
            service_category: r.serviceCategory,
            region: r.region,
            account_id: r.accountId,
            tags: JSON.stringify(r.tags),
            service,
            env,
            updated_ms: write.nowMs,
          };
        }),
      )
      .onConflict((oc) =>
        oc.columns(['provider_id', 'resource_key']).doUpdateSet((eb) => ({
          resource_name: eb.ref('excluded.resource_name'),
          service_name: eb.ref('excluded.service_name'),
          service_category: eb.ref('excluded.service_category'),
          region: eb.ref('excluded.region'),
          account_id: eb.ref('excluded.account_id'),
          tags: eb.ref('excluded.tags'),
          service: eb.ref('excluded.service'),
          env: eb.ref('excluded.env'),
          updated_ms: eb.ref('excluded.updated_ms'),
        })),
      )
      .execute();
  }
}
