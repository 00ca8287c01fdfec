import { sql, type Kysely, type Migration } from 'kysely';
import type { DialectName } from '../connect';

/**
 * Cost: the provider's name of each charge's kind (`cost_daily.charge_type`, see cost/tables.ts), so reports can show
 * tax, credits, discounts, refunds and fees apart from usage, by type. Rows stored before it read `` and are shown
 * under their charge category until the next sync replaces their period.
 */
export function costChargeTypeMigration(_dialect: DialectName): Migration {
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .alterTable('cost_daily')
        .addColumn('charge_type', 'text', (c) => c.notNull().defaultTo(sql`''`))
        .execute();
    },
  };
}
