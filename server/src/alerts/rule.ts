import { VITAL_NAMES, type VitalName } from '../vitals/summary';
import type { LogSeverity } from './query/log-severity';

/** What an alert rule is (docs/alerts.md): a query over one signal, a window, a condition and what to do on it. */

export const SIGNALS = ['vitals', 'spans', 'logs', 'metrics', 'issues', 'sessions'] as const;
export type Signal = (typeof SIGNALS)[number];

/** The aggregates each signal computes; `p*` are percentiles by nearest rank, as the Web Vitals page computes them. */
export const AGGREGATES = {
  vitals: ['p75', 'p90'],
  spans: ['count', 'error_rate', 'p50', 'p95', 'p99'],
  logs: ['count'],
  metrics: ['sum', 'rate', 'avg', 'p50', 'p75', 'p90', 'p95', 'p99'],
  issues: ['new_issues', 'events'],
  sessions: ['count', 'error_free_share'],
} as const satisfies Record<Signal, readonly string[]>;
export type Aggregate = (typeof AGGREGATES)[Signal][number];

/** Aggregates that count: zero is a value for them while the signal sends anything at all (docs/alerts.md, "No data"). */
export const COUNTS: ReadonlySet<Aggregate> = new Set(['count', 'new_issues', 'events']);

/** The percentile a `pNN` aggregate names (an integer percentage); undefined for the others. */
export const percentileOf = (aggregate: Aggregate): number | undefined => {
  const match = /^p(\d\d)$/.exec(aggregate);
  return match ? Number(match[1]) : undefined;
};

/** The filters a field of `filter` applies to; every other signal refuses it. */
export const FILTER_SIGNALS = {
  app: SIGNALS,
  env: SIGNALS,
  release: SIGNALS,
  route: ['vitals', 'spans', 'logs', 'metrics', 'sessions'],
  name: ['spans', 'logs'],
  service: ['spans', 'logs', 'metrics'],
  severity: ['logs'],
  text: ['logs'],
  issue_id: ['issues'],
  attributes: ['vitals', 'spans', 'logs', 'metrics', 'sessions'],
} as const satisfies Record<string, readonly Signal[]>;

export interface AlertFilter {
  app?: string[];
  env?: string[];
  release?: string[];
  /** A path pattern: `*` matches any run of characters. */
  route?: string;
  name?: string;
  service?: string;
  severity?: LogSeverity[];
  text?: string;
  issue_id?: string;
  attributes?: Record<string, string>;
}

export interface AlertQuery {
  aggregate: Aggregate;
  /** The vital (`LCP`, …) of a vitals rule, the metric's name of a metrics rule. */
  metric?: string;
  filter?: AlertFilter;
}

export const CONDITION_OPS = ['above', 'below'] as const;
export const COMPARE_TO = ['day', 'week', 'previous_release'] as const;
export type CompareTo = (typeof COMPARE_TO)[number];

export type AlertCondition =
  | { type: 'threshold'; op: 'above' | 'below'; value: number }
  | { type: 'change'; op: 'above' | 'below'; percent: number; compare_to: CompareTo };

/** The incident severities a rule opens its incidents with (incidents/types.ts, without the issue events' `warning`, `info`). */
export const RULE_SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export const NO_DATA = ['alert', 'quiet'] as const;
export const RULE_STATES = ['ok', 'pending', 'firing', 'no_data'] as const;
export type RuleState = (typeof RULE_STATES)[number];

export const WINDOW_SECONDS = { min: 60, max: 86_400, fallback: 300 };
export const FOR_SECONDS_MAX = 86_400;

/** What the query layer needs of a rule: which project, what to compute, over how long, against what. */
export interface RuleQuery {
  projectId: string;
  signal: Signal;
  query: AlertQuery;
  windowSeconds: number;
  condition: AlertCondition;
  recovery: { value: number } | null;
  forSeconds: number;
}

/** A stored rule as the server uses it: its definition and the evaluator's state. */
export interface AlertRule extends RuleQuery {
  id: string;
  name: string;
  severity: (typeof RULE_SEVERITIES)[number];
  noData: (typeof NO_DATA)[number];
  enabled: boolean;
  createdMs: number;
  updatedMs: number;
  state: RuleState;
  stateSinceMs: number;
  pendingSinceMs: number | null;
  lastValue: number | null;
  lastEvaluatedMs: number | null;
  incidentId: string | null;
  nextEvalMs: number;
}

export const isVital = (metric: string | undefined): metric is VitalName =>
  (VITAL_NAMES as readonly string[]).includes(metric ?? '');

/**
 * Whether `value` meets the condition's side of `bound`: `above` strictly above, `below` strictly below. A change
 * condition's bound is the baseline moved by its percentage (alerts/query/index.ts `conditionBound`).
 */
export const crosses = (op: 'above' | 'below', value: number, bound: number) =>
  op === 'above' ? value > bound : value < bound;
