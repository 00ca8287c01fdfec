import {
  AGGREGATES,
  COMPARE_TO,
  FILTER_SIGNALS,
  LOG_SEVERITIES,
  NO_DATA,
  RULE_SEVERITIES,
  WINDOW_SECONDS,
  type Signal,
} from '../../../../src/api-types';
import type { PreviewRule, Rule, RuleBody } from './types';

/**
 * The rule being edited, as the form holds it (numbers and lists as typed), and the API body made of it. The server
 * checks the body and names the field it refuses; the form shows that message next to the field.
 */

/** The filters typed as text: lists are comma-separated. */
export const TEXT_FILTERS = ['app', 'env', 'release', 'route', 'name', 'service', 'text', 'issue_id'] as const;
export type TextFilter = (typeof TEXT_FILTERS)[number];
const LIST_FILTERS: ReadonlySet<TextFilter> = new Set(['app', 'env', 'release']);

type Op = 'above' | 'below';
export interface Draft {
  name: string;
  signal: Signal;
  aggregate: string;
  metric: string;
  filter: Record<TextFilter, string>;
  severities: ReadonlyArray<(typeof LOG_SEVERITIES)[number]>;
  /** `key=value`, one a line. */
  attributes: string;
  window_seconds: string;
  for_seconds: string;
  condition: {
    type: 'threshold' | 'change';
    op: Op;
    value: string;
    percent: string;
    compare_to: (typeof COMPARE_TO)[number];
  };
  recovery: string;
  severity: (typeof RULE_SEVERITIES)[number];
  no_data: (typeof NO_DATA)[number];
  enabled: boolean;
}

/** Whether the signal's rules take the filter. */
export const filters = (signal: Signal, key: keyof typeof FILTER_SIGNALS) =>
  (FILTER_SIGNALS[key] as readonly Signal[]).includes(signal);
/** Whether the signal's rules name a metric: the vital, or the app metric. */
export const hasMetric = (signal: Signal) => signal === 'vitals' || signal === 'metrics';

const EMPTY_FILTER = Object.fromEntries(TEXT_FILTERS.map((k) => [k, ''])) as Record<TextFilter, string>;

export const NEW_DRAFT: Draft = {
  name: '',
  signal: 'vitals',
  aggregate: 'p75',
  metric: 'LCP',
  filter: EMPTY_FILTER,
  severities: [],
  attributes: '',
  window_seconds: String(WINDOW_SECONDS.fallback),
  for_seconds: '0',
  condition: { type: 'threshold', op: 'above', value: '', percent: '', compare_to: 'day' },
  recovery: '',
  severity: 'high',
  no_data: 'quiet',
  enabled: true,
};

/**
 * A new rule watching a release comparison (the Releases page links here with `?app=`): the app's p75 LCP, 20 % above
 * the previous release's.
 */
export function releaseWatchDraft(app: string): Draft {
  return {
    ...NEW_DRAFT,
    name: `${app}: LCP against the previous release`,
    filter: { ...EMPTY_FILTER, app },
    condition: { ...NEW_DRAFT.condition, type: 'change', percent: '20', compare_to: 'previous_release' },
  };
}

/** A signal chosen: its first aggregate, and a metric only where it takes one (LCP for vitals). */
export function withSignal(draft: Draft, signal: Signal): Draft {
  const aggregate = AGGREGATES[signal][0];
  const metric = signal === 'vitals' ? 'LCP' : '';
  return { ...draft, signal, aggregate, metric };
}

/** The form's view of a stored rule. */
export function draftOf(rule: Rule): Draft {
  const f = rule.query.filter ?? {};
  const text = (key: TextFilter) => {
    const value = f[key];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  const c = rule.condition;
  return {
    name: rule.name,
    signal: rule.signal,
    aggregate: rule.query.aggregate,
    metric: rule.query.metric ?? '',
    filter: Object.fromEntries(TEXT_FILTERS.map((k) => [k, text(k)])) as Record<TextFilter, string>,
    severities: f.severity ?? [],
    attributes: Object.entries(f.attributes ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join('\n'),
    window_seconds: String(rule.window_seconds),
    for_seconds: String(rule.for_seconds),
    condition: {
      type: c.type,
      op: c.op,
      value: c.type === 'threshold' ? String(c.value) : '',
      percent: c.type === 'change' ? String(c.percent) : '',
      compare_to: c.type === 'change' ? c.compare_to : 'day',
    },
    recovery: rule.recovery ? String(rule.recovery.value) : '',
    severity: rule.severity,
    no_data: rule.no_data,
    enabled: rule.enabled,
  };
}

/** A number as typed; empty text is sent as null, which the server refuses naming the field. */
const num = (text: string): number => (text.trim() === '' ? NaN : Number(text));
const list = (text: string) =>
  text
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean);

/** `key=value` lines as an object; a line without `=` is a key with an empty value, which the server refuses. */
function attributesOf(text: string): Record<string, string> {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  return Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf('=');
      return at < 0 ? [line.trim(), ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
    }),
  );
}

/** The query's filters the signal takes, each given one. */
function filterOf(draft: Draft) {
  const filter: Record<string, unknown> = {};
  for (const key of TEXT_FILTERS) {
    const value = draft.filter[key].trim();
    if (value === '' || !filters(draft.signal, key)) continue;
    filter[key] = LIST_FILTERS.has(key) ? list(value) : value;
  }
  if (draft.severities.length > 0 && filters(draft.signal, 'severity')) filter.severity = draft.severities;
  if (draft.attributes.trim() !== '' && filters(draft.signal, 'attributes'))
    filter.attributes = attributesOf(draft.attributes);
  return Object.keys(filter).length > 0 ? (filter as NonNullable<RuleBody['query']['filter']>) : undefined;
}

/** What the preview draws of the draft (its name and state aside). */
export function previewRuleOf(draft: Draft): PreviewRule {
  const c = draft.condition;
  const threshold = c.type === 'threshold';
  const filter = filterOf(draft);
  return {
    signal: draft.signal,
    query: {
      aggregate: draft.aggregate,
      ...(hasMetric(draft.signal) && { metric: draft.metric.trim() }),
      ...(filter && { filter }),
    },
    window_seconds: num(draft.window_seconds),
    for_seconds: num(draft.for_seconds),
    condition: threshold
      ? { type: 'threshold', op: c.op, value: num(c.value) }
      : { type: 'change', op: c.op, percent: num(c.percent), compare_to: c.compare_to },
    recovery: threshold && draft.recovery.trim() !== '' ? { value: num(draft.recovery) } : null,
  };
}

/** The body that creates the rule, or replaces every field of it. */
export const bodyOf = (draft: Draft): RuleBody => ({
  ...previewRuleOf(draft),
  name: draft.name.trim(),
  severity: draft.severity,
  no_data: draft.no_data,
  enabled: draft.enabled,
});
