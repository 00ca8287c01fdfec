import { formatValue, measureOf } from '../../../../src/api-types';
import { Badge } from '../../ui/status';
import type { PreviewRule, Rule } from './types';

/** A rule as its incidents describe it: what it measures, its values in their units, its state. */

type Described = Parameters<typeof measureOf>[0];
/** The server checked the aggregate against the signal; the answer's schema types it as any text. */
const described = (rule: Pick<PreviewRule, 'signal' | 'query'>) => rule as Described;

/** `p75 LCP`, `span error rate`, `sum of cart.checkout`. */
export const measureText = (rule: Pick<PreviewRule, 'signal' | 'query'>) => measureOf(described(rule));

/** A value in the rule's unit (`2400 ms`, `3.1%`); a dash for no data. */
export const valueText = (rule: Pick<PreviewRule, 'signal' | 'query'>, value: number | null | undefined) =>
  value === null || value === undefined || !Number.isFinite(value) ? '—' : formatValue(described(rule), value);

/** `above 4000 ms`, `20 % above the day before`. */
export function conditionText(rule: Pick<PreviewRule, 'signal' | 'query' | 'condition'>): string {
  const c = rule.condition;
  if (c.type === 'threshold') return `${c.op} ${valueText(rule, c.value)}`;
  const against = { day: 'the day before', week: 'the week before', previous_release: 'the previous release' };
  return `${c.percent} % ${c.op} ${against[c.compare_to]}`;
}

const STATE_TONES = { ok: 'good', pending: 'warn', firing: 'bad', no_data: 'neutral' } as const;
const STATE_LABELS = { ok: 'OK', pending: 'Pending', firing: 'Firing', no_data: 'No data' } as const;

/** The rule's evaluation state as a badge whose word says it. */
export const RuleStateBadge = ({ state }: { state: Rule['state'] }) => (
  <Badge tone={STATE_TONES[state]}>{STATE_LABELS[state]}</Badge>
);
