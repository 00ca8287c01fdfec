import type { Kysely } from 'kysely';
import { DROPPED_ITEMS_METRIC } from '../../../wire/self-telemetry';
import type { Database } from '../db/schema';

export interface SdkDrops {
  app: string;
  reason: string;
  /** Records the SDK lost for this reason, summed over the pages that reported it. */
  count: number;
  /** Sessions that reported drops of this reason. */
  sessions: number;
}

/**
 * What the browser SDK reported it dropped in [fromMs, toMs) (its `svc.sdk.dropped_items` counter, docs/sdk-pipeline.md):
 * each page sends a cumulative count per reason since it started, repeated until the server has it, so a page's
 * series (session, app, start time, reason) counts by its largest value, and the series are then summed per app and reason.
 */
export async function sdkDrops(
  db: Kysely<Database>,
  projectId: string,
  fromMs: number,
  toMs: number,
): Promise<SdkDrops[]> {
  const rows = await db
    .selectFrom('metric_points as m')
    .innerJoin('apps as a', 'a.id', 'm.app_id')
    .select(['a.name as app', 'm.attributes', 'm.session_id'])
    .select((eb) => eb.fn.max('m.value').as('value'))
    .where('m.project_id', '=', projectId)
    .where('m.name', '=', DROPPED_ITEMS_METRIC)
    .where('m.time_ms', '>=', fromMs)
    .where('m.time_ms', '<', toMs)
    .groupBy(['a.name', 'm.attributes', 'm.session_id', 'm.start_ns'])
    .execute();
  const totals = new Map<string, SdkDrops & { sessionIds: Set<string> }>();
  for (const row of rows) {
    const reason = String((JSON.parse(row.attributes) as { reason?: unknown }).reason ?? 'unknown');
    const key = `${row.app}\u0000${reason}`;
    const total =
      totals.get(key) ??
      totals.set(key, { app: row.app, reason, count: 0, sessions: 0, sessionIds: new Set() }).get(key)!;
    total.count += Number(row.value ?? 0);
    total.sessionIds.add(row.session_id ?? '');
  }
  return [...totals.values()]
    .map(({ sessionIds, ...total }) => ({ ...total, sessions: sessionIds.size }))
    .sort((a, b) => b.count - a.count || a.app.localeCompare(b.app) || a.reason.localeCompare(b.reason));
}
