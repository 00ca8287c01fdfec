import type { Kysely } from 'kysely';
import type { z } from '@hono/zod-openapi';
import type { Database } from '../db/schema';
import { invalid } from '../shared/domain-errors';
import { iso } from '../shared/time';
import { previewStepMs, ruleSeries } from './query/index';
import type { RuleQuery } from './rule';
import type { RuleBodies } from './schemas';

const DAY_MS = 86_400_000;
/** The longest range a preview draws. */
export const MAX_PREVIEW_DAYS = 90;

/**
 * `POST /control-plane/alert-rules/preview`'s answer: the rule's value at each step of the range (by default the 7
 * days before `nowMs`), its threshold and where it would have fired. Reads only.
 */
export async function preview(
  db: Kysely<Database>,
  projectId: string,
  body: z.infer<RuleBodies['PreviewBody']>,
  nowMs: number,
) {
  const toMs = body.to ?? nowMs;
  const fromMs = body.from ?? toMs - 7 * DAY_MS;
  if (fromMs >= toMs) throw invalid('from must be before to', 'invalid_request', { field: 'from' });
  if (toMs - fromMs > MAX_PREVIEW_DAYS * DAY_MS)
    throw invalid(`from must be at most ${MAX_PREVIEW_DAYS} days before to`, 'invalid_request', { field: 'from' });
  const stepMs = previewStepMs(body.window_seconds, fromMs, toMs);
  const rule: RuleQuery = {
    projectId,
    signal: body.signal,
    query: body.query as RuleQuery['query'],
    windowSeconds: body.window_seconds,
    condition: body.condition,
    recovery: body.recovery,
    forSeconds: body.for_seconds,
  };
  const series = await ruleSeries(db, rule, { fromMs, toMs, stepMs }, nowMs);
  return {
    step_seconds: stepMs / 1000,
    points: series.points.map((p) => ({
      t: iso(p.tMs),
      value: p.value,
      ...(p.baseline !== undefined && { baseline: p.baseline }),
    })),
    threshold: body.condition.type === 'threshold' ? body.condition.value : null,
    firings: series.firings.map((f) => ({ start: iso(f.startMs), end: f.endMs === null ? null : iso(f.endMs) })),
  };
}
