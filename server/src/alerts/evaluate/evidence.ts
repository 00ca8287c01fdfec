import type { RuleEvidence } from '../../incidents/types';
import type { AlertRule } from '../rule';
import type { IncidentCause, Reading } from './decide';
import { consoleLinks } from './links';

/** The open key of a rule's incidents: one open incident per rule (incidents/rows.ts `openKey`). */
export const ruleFingerprint = (ruleId: string) => `alert_rule:${ruleId}`;

type Described = Pick<AlertRule, 'name' | 'signal' | 'query' | 'windowSeconds' | 'condition' | 'forSeconds'>;

const SPAN_AGGREGATES: Record<string, string> = { count: 'span count', error_rate: 'span error rate' };
const METRIC_AGGREGATES: Record<string, string> = { sum: 'sum of', rate: 'rate of', avg: 'average' };
const SESSION_AGGREGATES: Record<string, string> = {
  count: 'session count',
  error_free_share: 'error-free session share',
};

/** What the rule measures, as a person says it: `p75 LCP`, `span error rate`, `sum of cart.checkout`. */
export function measureOf(rule: Pick<AlertRule, 'signal' | 'query'>): string {
  const { aggregate, metric = '', filter } = rule.query;
  switch (rule.signal) {
    case 'vitals':
      return `${aggregate} ${metric}`;
    case 'spans':
      return SPAN_AGGREGATES[aggregate] ?? `${aggregate} span duration`;
    case 'logs':
      return 'log count';
    case 'metrics':
      return `${METRIC_AGGREGATES[aggregate] ?? aggregate} ${metric}`;
    case 'issues':
      if (aggregate === 'new_issues') return 'new issues';
      return filter?.issue_id ? `events of issue ${filter.issue_id}` : 'issue events';
    case 'sessions':
      return SESSION_AGGREGATES[aggregate] ?? aggregate;
  }
}

/** How a value of the rule reads: durations in ms, shares in per cent, anything else as a number. */
export function formatValue(rule: Pick<AlertRule, 'signal' | 'query'>, value: number): string {
  const { aggregate, metric } = rule.query;
  if (aggregate === 'error_rate' || aggregate === 'error_free_share') return `${Number((value * 100).toPrecision(3))}%`;
  const duration =
    (rule.signal === 'vitals' && metric !== 'CLS') || (rule.signal === 'spans' && aggregate.startsWith('p'));
  if (duration) return `${Math.round(value)} ms`;
  return String(Number(value.toPrecision(4)));
}

/** `5 minutes`, `1 hour`, `90 seconds`. */
export function durationText(seconds: number): string {
  const [unit, size] = seconds % 3600 === 0 ? ['hour', 3600] : seconds % 60 === 0 ? ['minute', 60] : ['second', 1];
  const n = seconds / size;
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** Where the rule looks: `app web-app, env production, route /checkout*`; empty for the whole project. */
function scopeOf(rule: Pick<AlertRule, 'query'>): string {
  const f = rule.query.filter ?? {};
  const parts: Array<[string, string | undefined]> = [
    ['app', f.app?.join(' or ')],
    ['env', f.env?.join(' or ')],
    ['release', f.release?.join(' or ')],
    ['route', f.route],
    ['service', f.service],
    ['name', f.name],
  ];
  return parts
    .filter(([, v]) => v)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

const BASELINES = {
  day: 'the same window a day before',
  week: 'the same window a week before',
  previous_release: 'the previous release',
};

/** The incident's title, fixed when it opens: `Checkout LCP: p75 LCP 3420 ms above 2500 ms`. */
export function ruleTitle(rule: Described, reading: Reading, cause: IncidentCause): string {
  if (cause === 'no_data' || reading.value === null)
    return `${rule.name}: no data for ${durationText(rule.windowSeconds)}`;
  const bound = reading.bound === null ? '' : ` ${rule.condition.op} ${formatValue(rule, reading.bound)}`;
  return `${rule.name}: ${measureOf(rule)} ${formatValue(rule, reading.value)}${bound}`;
}

/** Two or three sentences from the reading, for the incident and its notifications. */
export function ruleSummary(rule: Described, reading: Reading, cause: IncidentCause): string {
  const scope = scopeOf(rule);
  const where = scope ? ` (${scope})` : '';
  const window = durationText(rule.windowSeconds);
  if (cause === 'no_data' || reading.value === null)
    return `Alert rule "${rule.name}": no ${rule.signal} matching its query${where} arrived in the last ${window}: the signal stopped arriving.`;
  const measured = `Alert rule "${rule.name}": the ${measureOf(rule)}${where} was ${formatValue(rule, reading.value)} over the last ${window}`;
  const c = rule.condition;
  const bound = reading.bound === null ? '' : formatValue(rule, reading.bound);
  const compared =
    c.type === 'threshold'
      ? `${measured}, ${c.op} the threshold of ${bound}.`
      : `${measured}, ${c.op} ${bound}: ${c.percent}% ${c.op === 'above' ? 'over' : 'under'} ${BASELINES[c.compare_to]} (${reading.baseline === null ? 'no data' : formatValue(rule, reading.baseline)}).`;
  return rule.forSeconds > 0 ? `${compared} It held for ${durationText(rule.forSeconds)} before firing.` : compared;
}

/** The evidence of the rule's incident after an evaluation; `detected` is the reading the incident opened with. */
export function ruleEvidence(
  rule: Described & Pick<AlertRule, 'id'>,
  reading: Reading,
  context: { cause: IncidentCause; detected: Pick<Reading, 'value' | 'bound'>; atMs: number; publicUrl: string },
): RuleEvidence {
  const text = (value: number | null) => (value === null ? null : formatValue(rule, value));
  return {
    kind: 'alert_rule',
    rule_id: rule.id,
    rule_name: rule.name,
    cause: context.cause,
    signal: rule.signal,
    query: rule.query,
    window_seconds: rule.windowSeconds,
    condition: rule.condition,
    measure: measureOf(rule),
    value: reading.value,
    value_text: text(reading.value) ?? 'no data',
    threshold: reading.bound,
    threshold_text: text(reading.bound),
    baseline: reading.baseline,
    baseline_text: text(reading.baseline),
    value_at_detection: context.detected.value,
    threshold_at_detection: context.detected.bound,
    evaluated_at: new Date(context.atMs).toISOString(),
    links: consoleLinks(rule, context.publicUrl),
  };
}
