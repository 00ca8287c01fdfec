import { compilePattern } from './pattern';
import type { Dimension, MappingRule, RuleMatch } from './rules';

/** What attribution looks at: a line item's resource. */
export interface AttributableResource {
  name: string | null;
  id: string | null;
  tags: Readonly<Record<string, string>>;
}

/** Service and env of a resource (null: no rule matched; reports show `Unattributed`), and which rule set each. */
export interface Attribution {
  service: string | null;
  env: string | null;
  /** Index in the rule list of the rule that set each dimension. */
  ruleIndex: { service?: number; env?: number };
}

interface CompiledRule {
  index: number;
  dimension: Dimension;
  /** The value this rule assigns to the resource, or null when it does not match. */
  valueFor(resource: AttributableResource): string | null;
}

/**
 * Attributes a resource by the rules, in order, first match wins PER DIMENSION (the Vantage virtual-tag convention):
 * once a rule has set the service, later service rules are skipped, but later `attribute_to: env` rules still apply,
 * and the other way round. So put specific rules (one shared database) before broad ones (`team: *`).
 *
 * - A tag rule needs the tag key (user tags without the provider prefix, so AWS's `user:team` is `team`; exact, else
 *   as AWS normalizes keys in Parquet and CUR 2.0 exports, see tagValue) and its whole value to match the pattern
 *   (mapping/pattern.ts). A resource without the tag never matches, not even `*`. With `attribute_to`, a tag whose value is empty assigns nothing, so the rule does not
 *   match it and later rules get their turn.
 * - `resource_name_prefix` is compared with the resource name, or with the resource id when the export has no name
 *   (e.g. CUR rows of untagged resources), case-sensitive.
 */
export function attribute(resource: AttributableResource, rules: readonly MappingRule[]): Attribution {
  const result: Attribution = { service: null, env: null, ruleIndex: {} };
  for (const rule of compiled(rules)) {
    if (result[rule.dimension] !== null) continue;
    const value = rule.valueFor(resource);
    if (value === null) continue;
    result[rule.dimension] = value;
    result.ruleIndex[rule.dimension] = rule.index;
    if (result.service !== null && result.env !== null) break;
  }
  return result;
}

// A rule list is attributed to every resource of a sync: patterns are compiled once per list, not once per resource.
const cache = new WeakMap<readonly MappingRule[], CompiledRule[]>();

function compiled(rules: readonly MappingRule[]): CompiledRule[] {
  let list = cache.get(rules);
  if (!list) {
    list = rules.map(compileRule);
    cache.set(rules, list);
  }
  return list;
}

function compileRule(rule: MappingRule, index: number): CompiledRule {
  if ('attribute_to' in rule) {
    const { tag } = rule.match;
    const pattern = compilePattern(rule.match.pattern);
    return {
      index,
      dimension: rule.attribute_to,
      valueFor: (resource) => {
        const value = tagValue(resource, tag);
        return value !== undefined && value !== '' && pattern(value) ? value : null;
      },
    };
  }
  const matches = matcher(rule.match);
  const service = rule.attribute_to_service;
  return { index, dimension: 'service', valueFor: (resource) => (matches(resource) ? service : null) };
}

function matcher(match: RuleMatch): (resource: AttributableResource) => boolean {
  if ('tag' in match) {
    const { tag } = match;
    const pattern = compilePattern(match.pattern);
    return (resource) => {
      const value = tagValue(resource, tag);
      return value !== undefined && pattern(value);
    };
  }
  const prefix = match.resource_name_prefix;
  return (resource) => (resource.name ?? resource.id)?.startsWith(prefix) ?? false;
}

/**
 * The resource's value of tag `tag`: the exact key, else a key equal to it once both are lowercased with every other
 * character than a letter or digit made `_`. AWS writes tag keys that way in Parquet CURs and in CUR 2.0
 * (`Cost Center` becomes `cost_center`) but keeps them as set in CSV CURs and FOCUS, so one rule serves every export.
 * Own keys only: a tag named `constructor` must not find Object.prototype's.
 */
function tagValue(resource: AttributableResource, tag: string): string | undefined {
  if (Object.hasOwn(resource.tags, tag)) return resource.tags[tag];
  const wanted = normalizeTagKey(tag);
  for (const key of Object.keys(resource.tags)) if (normalizeTagKey(key) === wanted) return resource.tags[key];
  return undefined;
}

const normalizeTagKey = (key: string): string => key.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '_');
