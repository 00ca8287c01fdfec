import { DETECTION_INTERVAL_MS } from '../../incidents/detect/schedule';
import { positiveOptions } from '../../shared/tuning';

/** How the evaluator works through the rules (docs/alerts.md, "Evaluation"). Durations in milliseconds. */
export interface EvaluationOptions {
  /** Rules one process evaluates per tick at most; the rest stay due for the next tick (of this or another process). */
  rulesPerTick: number;
  /** How long a claimed rule is this process's: one that crashed mid-evaluation is taken over after this. */
  leaseMs: number;
  /** Escalate once the value is this many times as far past the threshold as when the incident opened. */
  growthFactor: number;
  /** Escalate when the rule still fires this long after its incident opened. */
  persistMs: number;
  /** The detection schedule's interval the evaluator runs on (`--detection-interval-ms`): no rule is due more often. */
  tickMs: number;
}

const MINUTE = 60_000;

export const EVALUATION_DEFAULTS: EvaluationOptions = {
  rulesPerTick: 100,
  leaseMs: MINUTE,
  // As the error detector escalates (incidents/detect/thresholds.ts): twice the size, or half an hour on.
  growthFactor: 2,
  persistMs: 30 * MINUTE,
  tickMs: DETECTION_INTERVAL_MS,
};

/** Defaults with the given options on top; refuses settings under which evaluation could not work. */
export const evaluationOptions = (options: Partial<EvaluationOptions> = {}): EvaluationOptions =>
  positiveOptions('alert evaluation', EVALUATION_DEFAULTS, options);

/**
 * How often a rule is evaluated: a tenth of its window, between one detection tick (`tickMs`, 10 s by default) and a
 * minute. A short window moves fast and is looked at often; past ten minutes a minute is as often as the value can
 * change by much, and it is what Datadog and Grafana evaluate at.
 */
export const evaluationIntervalMs = (windowSeconds: number, tickMs = DETECTION_INTERVAL_MS): number =>
  Math.min(MINUTE, Math.max(tickMs, windowSeconds * 100));

/**
 * When a rule evaluated at `nowMs` is due again: after its interval, less half a tick. Ticks are `tickMs` apart from
 * when the schedule started, and each evaluation happens some way into its tick; without the slack an interval of one
 * tick could end just after the next tick looked, and the rule would wait a tick more.
 */
export const nextDueMs = (windowSeconds: number, nowMs: number, tickMs = DETECTION_INTERVAL_MS): number =>
  nowMs + evaluationIntervalMs(windowSeconds, tickMs) - tickMs / 2;
