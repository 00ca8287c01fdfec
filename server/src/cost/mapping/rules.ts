import { invalid } from '../../shared/domain-errors';
import { isObject } from '../../json/read';

/**
 * Cost mapping rules (SPEC 2.2) as `POST /control-plane/cost/mappings` sends them and `GET` returns them: the stored
 * form is the request form, so what a user wrote is what they read back.
 *
 * Each rule has one match and one target:
 * - `{tag, pattern}`: the resource carries tag `tag` (attribute.ts tagValue: exact, or as AWS normalizes keys) whose whole value matches `pattern`
 *   (`*` matches any run of characters, everything else literally, case-sensitive).
 * - `{resource_name_prefix}`: the resource name starts with the prefix (the resource id when the export has no name).
 * - `attribute_to: 'service' | 'env'` assigns the matched tag's value to that dimension (tag matches only: a name
 *   prefix has no value to assign); `attribute_to_service` assigns a fixed service name.
 * How rules are evaluated: mapping/attribute.ts.
 */
export interface TagMatch {
  tag: string;
  pattern: string;
}

export interface NamePrefixMatch {
  resource_name_prefix: string;
}

export type RuleMatch = TagMatch | NamePrefixMatch;
export type Dimension = 'service' | 'env';

export type MappingRule =
  | { match: TagMatch; attribute_to: Dimension }
  | { match: RuleMatch; attribute_to_service: string };

/** The label reports give cost that no rule attributes; a rule may not assign it, or it would hide unmatched cost. */
export const UNATTRIBUTED = 'Unattributed';

/** Rules are evaluated per resource on every sync and re-attribution: a bound keeps that linear cost small. */
export const MAX_RULES = 500;
/** Tag keys are at most 512 characters (Azure), values 256; resource ids (ARNs) up to 2048. */
const MAX_MATCH_LENGTH = 2048;
const MAX_SERVICE_LENGTH = 200;
const DIMENSIONS: readonly Dimension[] = ['service', 'env'];
const RULE_KEYS = ['match', 'attribute_to', 'attribute_to_service'];
const MATCH_KEYS = ['tag', 'pattern', 'resource_name_prefix'];

/** Validates a mapping request body `{rules: [...]}`; every error names the rule index and field. */
export function parseMappingRules(raw: unknown): MappingRule[] {
  if (!isObject(raw)) throw invalid('body must be a JSON object with a rules array');
  rejectUnknown(raw, ['rules'], '', 'the body holds only rules');
  const rules = raw.rules;
  if (!Array.isArray(rules))
    throw invalid('rules is required: an array of mapping rules', 'invalid_request', { field: 'rules' });
  if (rules.length > MAX_RULES)
    throw invalid(`rules must hold at most ${MAX_RULES} rules`, 'invalid_request', { field: 'rules' });
  return rules.map((rule, i) => parseRule(rule, `rules[${i}]`));
}

function parseRule(raw: unknown, path: string): MappingRule {
  if (!isObject(raw))
    throw invalid(`${path} must be an object with match and attribute_to or attribute_to_service`, 'invalid_request', {
      field: path,
    });
  rejectUnknown(raw, RULE_KEYS, `${path}.`, `a rule has ${RULE_KEYS.join(', ')}`);
  const match = parseMatch(raw.match, `${path}.match`);
  const hasDimension = raw.attribute_to !== undefined;
  const hasService = raw.attribute_to_service !== undefined;
  if (hasDimension === hasService) {
    throw invalid(
      `${path} must have either attribute_to or attribute_to_service, not ${hasDimension ? 'both' : 'neither'}`,
      'invalid_request',
      { field: path },
    );
  }
  if (hasService)
    return { match, attribute_to_service: parseService(raw.attribute_to_service, `${path}.attribute_to_service`) };
  const dimension = raw.attribute_to;
  if (typeof dimension !== 'string' || !DIMENSIONS.includes(dimension as Dimension)) {
    throw invalid(`${path}.attribute_to must be one of ${DIMENSIONS.join(', ')}`, 'invalid_request', {
      field: `${path}.attribute_to`,
    });
  }
  if (!('tag' in match)) {
    throw invalid(
      `${path}.attribute_to needs a tag match: a resource_name_prefix has no value to assign; use attribute_to_service`,
      'invalid_request',
      {
        field: `${path}.attribute_to`,
      },
    );
  }
  return { match, attribute_to: dimension as Dimension };
}

function parseMatch(raw: unknown, path: string): RuleMatch {
  const shapes = 'must have either tag and pattern, or resource_name_prefix';
  if (!isObject(raw)) throw invalid(`${path} ${shapes}`, 'invalid_request', { field: path });
  rejectUnknown(raw, MATCH_KEYS, `${path}.`, `a match ${shapes}`);
  const keys = Object.keys(raw).sort().join(',');
  if (keys === 'pattern,tag')
    return { tag: matchString(raw.tag, `${path}.tag`), pattern: matchString(raw.pattern, `${path}.pattern`) };
  if (keys === 'resource_name_prefix')
    return { resource_name_prefix: matchString(raw.resource_name_prefix, `${path}.resource_name_prefix`) };
  throw invalid(`${path} ${shapes}`, 'invalid_request', { field: path });
}

function matchString(v: unknown, path: string): string {
  if (typeof v !== 'string' || v === '')
    throw invalid(`${path} must be a non-empty string`, 'invalid_request', { field: path });
  if (v.length > MAX_MATCH_LENGTH)
    throw invalid(`${path} must be at most ${MAX_MATCH_LENGTH} characters`, 'invalid_request', { field: path });
  return v;
}

function parseService(v: unknown, path: string): string {
  if (typeof v !== 'string' || v.trim() === '' || v.length > MAX_SERVICE_LENGTH) {
    throw invalid(`${path} must be a non-empty string of at most ${MAX_SERVICE_LENGTH} characters`, 'invalid_request', {
      field: path,
    });
  }
  if (v.trim() === UNATTRIBUTED)
    throw invalid(`${path} must not be "${UNATTRIBUTED}": reports use it for cost no rule matches`, 'invalid_request', {
      field: path,
    });
  return v.trim();
}

function rejectUnknown(obj: Record<string, unknown>, allowed: readonly string[], prefix: string, hint: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key))
      throw invalid(`${prefix}${key} is not a known field: ${hint}`, 'invalid_request', { field: `${prefix}${key}` });
  }
}
