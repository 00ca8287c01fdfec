import { z } from '@hono/zod-openapi';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { LIMIT_SIGNALS, UNIT_TEXT, type LimitDefaults, type LimitSignal } from './signals';
import { limitsDb } from './tables';
import { DAY_MS } from './usage';

const Counts = { accepted: z.number(), throttled: z.number(), refused: z.number() };

export const UsageSchema = z
  .object({
    project_id: z.string(),
    /** The UTC day it is, YYYY-MM-DD. */
    today: z.string(),
    signals: z.array(
      z.object({
        signal: z.enum(LIMIT_SIGNALS),
        unit: z.string(),
        today: z.object(Counts),
        daily_quota: z.number().openapi({ description: 'Units per UTC day; 0: no quota' }),
        month_accepted: z.number(),
        month_projected: z.number().openapi({ description: "Accepted by the month's end at this month's pace so far" }),
        spike: z
          .object({
            started_at: z.string(),
            until: z.string(),
            baseline_per_minute: z.number(),
            observed_per_minute: z.number(),
          })
          .nullable()
          .openapi({ description: 'A spike being throttled, if any' }),
      }),
    ),
    days: z
      .array(z.object({ day: z.string(), signal: z.enum(LIMIT_SIGNALS), ...Counts }))
      .openapi({ description: 'Per UTC day and signal, newest first; days with nothing are left out' }),
  })
  .openapi('Usage', {
    description:
      'accepted and throttled count units (spans, bytes…); refused counts requests refused for anything but a limit',
  });
export type Usage = z.infer<typeof UsageSchema>;

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** The usage page's numbers for a project at `nowMs`, over the last `days` UTC days and the month so far. */
export async function readUsage(
  db: Kysely<Database>,
  projectId: string,
  limits: LimitDefaults,
  nowMs: number,
  days: number,
): Promise<Usage> {
  const ldb = limitsDb(db);
  const today = nowMs - (nowMs % DAY_MS);
  const now = new Date(nowMs);
  const monthStart = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const monthEnd = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  const from = Math.min(today - (days - 1) * DAY_MS, monthStart);
  const rows = await ldb
    .selectFrom('ingest_usage')
    .select(['signal', sql<number>`bucket_ms - bucket_ms % ${sql.lit(DAY_MS)}`.as('day_ms')])
    .select((eb) => [
      eb.fn.sum<number>('accepted').as('accepted'),
      eb.fn.sum<number>('throttled').as('throttled'),
      eb.fn.sum<number>('refused').as('refused'),
    ])
    .where('project_id', '=', projectId)
    .where('bucket_ms', '>=', from)
    .groupBy(['signal', sql`bucket_ms - bucket_ms % ${sql.lit(DAY_MS)}`])
    .execute();
  const spikes = await ldb
    .selectFrom('ingest_spikes')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('until_ms', '>', nowMs)
    .execute();
  const counts = rows.map((r) => ({
    signal: r.signal as LimitSignal,
    dayMs: Number(r.day_ms),
    accepted: Number(r.accepted),
    throttled: Number(r.throttled),
    refused: Number(r.refused),
  }));
  const signals = LIMIT_SIGNALS.map((signal) => {
    const mine = counts.filter((c) => c.signal === signal);
    const day = mine.find((c) => c.dayMs === today);
    const monthAccepted = mine.filter((c) => c.dayMs >= monthStart).reduce((sum, c) => sum + c.accepted, 0);
    const spike = spikes.find((s) => s.signal === signal);
    return {
      signal,
      unit: UNIT_TEXT[signal],
      today: { accepted: day?.accepted ?? 0, throttled: day?.throttled ?? 0, refused: day?.refused ?? 0 },
      daily_quota: limits[signal].daily,
      month_accepted: monthAccepted,
      month_projected: Math.round((monthAccepted * (monthEnd - monthStart)) / Math.max(nowMs - monthStart, 60_000)),
      spike: spike
        ? {
            started_at: new Date(Number(spike.started_ms)).toISOString(),
            until: new Date(Number(spike.until_ms)).toISOString(),
            baseline_per_minute: Number(spike.baseline_per_minute),
            observed_per_minute: Number(spike.observed_per_minute),
          }
        : null,
    };
  });
  const shown = counts
    .filter((c) => c.dayMs > today - days * DAY_MS)
    .sort((a, b) => b.dayMs - a.dayMs || LIMIT_SIGNALS.indexOf(a.signal) - LIMIT_SIGNALS.indexOf(b.signal))
    .map(({ dayMs, ...c }) => ({ day: isoDay(dayMs), ...c }));
  return { project_id: projectId, today: isoDay(today), signals, days: shown };
}
