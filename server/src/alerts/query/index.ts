import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema';
import { crosses, type AlertCondition, type AlertQuery, type RuleQuery, type Signal } from '../rule';
import { signalContext, type SignalContext, type Window } from './context';
import { issuesValue } from './issues';
import { logsValue } from './logs';
import { metricsValue } from './metrics';
import { releasePair } from './releases';
import { sessionsValue } from './sessions';
import { spansValue } from './spans';
import { vitalsValue } from './vitals';

export type { Window } from './context';

/**
 * A rule's value over one window, its baseline for a change condition, and the series the preview draws (docs/alerts.md).
 * Each value is one or two aggregate statements over the window (alerts/query/read.ts); null is "no data", never 0.
 */

const VALUES: Record<Signal, (ctx: SignalContext, query: AlertQuery, w: Window) => Promise<number | null>> = {
  vitals: vitalsValue,
  spans: spansValue,
  logs: logsValue,
  metrics: metricsValue,
  issues: issuesValue,
  sessions: sessionsValue,
};

const DAY_MS = 86_400_000;
const isPreviousRelease = (c: AlertCondition) => c.type === 'change' && c.compare_to === 'previous_release';

/** The query restricted to one release. */
const ofRelease = (query: AlertQuery, release: string): AlertQuery => ({
  ...query,
  filter: { ...query.filter, release: [release] },
});

/**
 * The rule's value over `window` ([fromMs, toMs), by the records' times), evaluated at `nowMs` (what has settled of a
 * long window, alerts/query/slots.ts). A rule comparing with the previous release measures the release it watches (the
 * one its filter names first, else the newest); null while there is none before it.
 */
export async function evaluateRule(
  db: Kysely<Database>,
  rule: RuleQuery,
  window: Window,
  nowMs: number,
): Promise<number | null> {
  const ctx = await signalContext(db, rule.projectId, rule.query.filter, nowMs);
  return valueIn(ctx, rule, window);
}

async function valueIn(ctx: SignalContext, rule: RuleQuery, window: Window): Promise<number | null> {
  if (!isPreviousRelease(rule.condition)) return VALUES[rule.signal](ctx, rule.query, window);
  const pair = await releasePair(ctx, rule.query.filter);
  return pair ? VALUES[rule.signal](ctx, ofRelease(rule.query, pair.current.release), window) : null;
}

/**
 * What a change condition compares with: the same window a day or a week earlier, or the previous release over a
 * window as long ending when the watched release's first session began. Null for a threshold, and when there is no data.
 */
export async function baselineValue(
  db: Kysely<Database>,
  rule: RuleQuery,
  window: Window,
  nowMs: number,
): Promise<number | null> {
  const ctx = await signalContext(db, rule.projectId, rule.query.filter, nowMs);
  return baselineIn(ctx, rule, window);
}

async function baselineIn(ctx: SignalContext, rule: RuleQuery, w: Window): Promise<number | null> {
  const { condition } = rule;
  if (condition.type !== 'change') return null;
  if (condition.compare_to !== 'previous_release') {
    const shift = condition.compare_to === 'day' ? DAY_MS : 7 * DAY_MS;
    return VALUES[rule.signal](ctx, rule.query, { fromMs: w.fromMs - shift, toMs: w.toMs - shift });
  }
  const pair = await releasePair(ctx, rule.query.filter);
  if (!pair) return null;
  const end = pair.current.firstSeenMs;
  const window = { fromMs: end - (w.toMs - w.fromMs), toMs: end };
  return VALUES[rule.signal](ctx, ofRelease(rule.query, pair.previous.release), window);
}

/** The value the condition compares with: the threshold, or the baseline moved by the change's percentage. */
export function conditionBound(condition: AlertCondition, baseline: number | null): number | null {
  if (condition.type === 'threshold') return condition.value;
  if (baseline === null) return null;
  const factor = condition.op === 'above' ? 1 + condition.percent / 100 : 1 - condition.percent / 100;
  return baseline * factor;
}

/** Whether the condition holds for `value`; null when there is no data (or no baseline to compare with). */
export function conditionHolds(rule: RuleQuery, value: number | null, baseline: number | null): boolean | null {
  const bound = conditionBound(rule.condition, baseline);
  return value === null || bound === null ? null : crosses(rule.condition.op, value, bound);
}

/** Whether a firing rule has recovered: back across its recovery value, else the condition no longer holds. */
export function isRecovered(rule: RuleQuery, value: number | null, baseline: number | null): boolean {
  if (value === null) return false;
  if (rule.recovery !== null) return !crosses(rule.condition.op, value, rule.recovery.value);
  return conditionHolds(rule, value, baseline) === false;
}

/** Most points a preview draws. */
export const MAX_POINTS = 500;

/** The preview's step: the rule's window, or longer so that the range has at most {@link MAX_POINTS} points. */
export const previewStepMs = (windowSeconds: number, fromMs: number, toMs: number) =>
  Math.max(windowSeconds * 1000, Math.ceil((toMs - fromMs) / MAX_POINTS / 1000) * 1000);

export interface SeriesPoint {
  /** The end of the window the value is of. */
  tMs: number;
  value: number | null;
  baseline?: number | null;
}

export interface Firing {
  startMs: number;
  /** Null while still firing at the end of the range. */
  endMs: number | null;
}

/**
 * The rule's value at every step of [fromMs, toMs) (each over the rule's window ending there, read at `nowMs`) and
 * where it would have fired: a point where the condition holds counts as holding since the previous point, it fires
 * once it has held for `for_seconds`, and resolves at the first point it has recovered. A point without data neither
 * fires nor resolves.
 */
export async function ruleSeries(
  db: Kysely<Database>,
  rule: RuleQuery,
  range: Window & { stepMs: number },
  nowMs: number,
): Promise<{ points: SeriesPoint[]; firings: Firing[] }> {
  const ctx = await signalContext(db, rule.projectId, rule.query.filter, nowMs);
  const points: SeriesPoint[] = [];
  for (let t = range.fromMs + range.stepMs; t <= range.toMs; t += range.stepMs) {
    const window = { fromMs: t - rule.windowSeconds * 1000, toMs: t };
    const value = await valueIn(ctx, rule, window);
    if (rule.condition.type === 'threshold') points.push({ tMs: t, value });
    else points.push({ tMs: t, value, baseline: await baselineIn(ctx, rule, window) });
  }
  return { points, firings: firingsOf(rule, points, range.stepMs) };
}

/** Where a rule evaluated at `points` would have fired (see {@link ruleSeries}). */
export function firingsOf(rule: RuleQuery, points: readonly SeriesPoint[], stepMs: number): Firing[] {
  const firings: Firing[] = [];
  let pendingSince: number | null = null;
  let open: Firing | null = null;
  for (const p of points) {
    const baseline = p.baseline ?? null;
    if (open) {
      if (isRecovered(rule, p.value, baseline)) {
        open.endMs = p.tMs;
        open = null;
      }
      continue;
    }
    if (conditionHolds(rule, p.value, baseline) !== true) {
      pendingSince = null;
      continue;
    }
    pendingSince ??= p.tMs - stepMs;
    if (p.tMs - pendingSince >= rule.forSeconds * 1000) {
      open = { startMs: p.tMs, endMs: null };
      firings.push(open);
      pendingSince = null;
    }
  }
  return firings;
}
