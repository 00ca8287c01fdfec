import { describe, expect, it } from 'vitest';
import { refusalOf } from '../../server/src/http/errors';
import { DomainError } from '../../server/src/shared/domain-errors';
import { attribute, type AttributableResource } from '../../server/src/cost/mapping/attribute';
import { compilePattern } from '../../server/src/cost/mapping/pattern';
import { MAX_RULES, parseMappingRules, type MappingRule } from '../../server/src/cost/mapping/rules';

/** The 400 a body gets: message and the field it names. */
function rejection(body: unknown): { message: string; field: unknown } {
  try {
    parseMappingRules(body);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    const e = refusalOf(err)!;
    expect([e.status, e.code]).toEqual([400, 'invalid_request']);
    return { message: e.message, field: (e.details as { field?: unknown } | undefined)?.field };
  }
  throw new Error('expected the body to be rejected');
}

const ok = { match: { tag: 'team', pattern: '*' }, attribute_to: 'service' };
/** A body whose rule at index 3 is `rule`, after three valid ones: errors must name the index. */
const at3 = (rule: unknown) => ({ rules: [ok, ok, ok, rule] });

describe('mapping rules: validation (SPEC 2.2)', () => {
  it('accepts both match shapes and both targets, and returns them as sent', () => {
    const rules = [
      { match: { tag: 'app', pattern: 'checkout-*' }, attribute_to: 'service' },
      { match: { tag: 'env', pattern: '*' }, attribute_to: 'env' },
      { match: { tag: 'team', pattern: 'data' }, attribute_to_service: 'warehouse' },
      { match: { resource_name_prefix: 'shared-lb-' }, attribute_to_service: 'edge' },
    ];
    expect(parseMappingRules({ rules })).toEqual(rules);
    expect(parseMappingRules({ rules: [] })).toEqual([]);
  });

  it('trims a fixed service name', () => {
    expect(
      parseMappingRules({ rules: [{ match: { resource_name_prefix: 'db-' }, attribute_to_service: '  billing  ' }] }),
    ).toEqual([{ match: { resource_name_prefix: 'db-' }, attribute_to_service: 'billing' }]);
  });

  it('names the match of the rule when the match has neither or both shapes', () => {
    const expected = {
      message: 'rules[3].match must have either tag and pattern, or resource_name_prefix',
      field: 'rules[3].match',
    };
    expect(rejection(at3({ match: { tag: 'team' }, attribute_to: 'service' }))).toEqual(expected);
    expect(rejection(at3({ match: { pattern: '*' }, attribute_to: 'service' }))).toEqual(expected);
    expect(rejection(at3({ match: {}, attribute_to: 'service' }))).toEqual(expected);
    expect(rejection(at3({ match: 'team', attribute_to: 'service' }))).toEqual(expected);
    expect(rejection(at3({ attribute_to: 'service' }))).toEqual(expected);
    expect(
      rejection(at3({ match: { tag: 'a', pattern: 'b', resource_name_prefix: 'c' }, attribute_to_service: 'x' })),
    ).toEqual(expected);
  });

  it('names unknown keys in a match, a rule and the body', () => {
    expect(rejection(at3({ match: { tag: 'a', pattern: 'b', regex: 'x' }, attribute_to: 'env' }))).toMatchObject({
      field: 'rules[3].match.regex',
    });
    expect(rejection(at3({ match: { tag: 'a', pattern: 'b' }, attribute_to: 'env', priority: 1 }))).toMatchObject({
      field: 'rules[3].priority',
    });
    expect(rejection({ rules: [], mode: 'replace' })).toMatchObject({ field: 'mode' });
  });

  it('requires non-empty match strings', () => {
    expect(rejection(at3({ match: { tag: '', pattern: '*' }, attribute_to: 'env' }))).toEqual({
      message: 'rules[3].match.tag must be a non-empty string',
      field: 'rules[3].match.tag',
    });
    expect(rejection(at3({ match: { tag: 'env', pattern: 7 }, attribute_to: 'env' }))).toMatchObject({
      field: 'rules[3].match.pattern',
    });
    expect(rejection(at3({ match: { resource_name_prefix: '' }, attribute_to_service: 'x' }))).toMatchObject({
      field: 'rules[3].match.resource_name_prefix',
    });
    expect(rejection(at3({ match: { tag: 'env', pattern: 'x'.repeat(2049) }, attribute_to: 'env' }))).toMatchObject({
      field: 'rules[3].match.pattern',
    });
  });

  it('requires exactly one of attribute_to and attribute_to_service', () => {
    expect(
      rejection(at3({ match: { tag: 'a', pattern: '*' }, attribute_to: 'service', attribute_to_service: 'x' })),
    ).toEqual({
      message: 'rules[3] must have either attribute_to or attribute_to_service, not both',
      field: 'rules[3]',
    });
    expect(rejection(at3({ match: { tag: 'a', pattern: '*' } }))).toEqual({
      message: 'rules[3] must have either attribute_to or attribute_to_service, not neither',
      field: 'rules[3]',
    });
  });

  it('allows attribute_to only as service or env, and only with a tag match', () => {
    expect(rejection(at3({ match: { tag: 'a', pattern: '*' }, attribute_to: 'team' }))).toEqual({
      message: 'rules[3].attribute_to must be one of service, env',
      field: 'rules[3].attribute_to',
    });
    expect(rejection(at3({ match: { resource_name_prefix: 'db-' }, attribute_to: 'service' }))).toMatchObject({
      field: 'rules[3].attribute_to',
      message: expect.stringContaining('resource_name_prefix has no value to assign'),
    });
  });

  it('bounds attribute_to_service and keeps "Unattributed" for unmatched cost', () => {
    const service = (name: unknown) => at3({ match: { resource_name_prefix: 'db-' }, attribute_to_service: name });
    for (const bad of ['', '   ', 'x'.repeat(201), 42]) {
      expect(rejection(service(bad))).toEqual({
        message: 'rules[3].attribute_to_service must be a non-empty string of at most 200 characters',
        field: 'rules[3].attribute_to_service',
      });
    }
    expect(parseMappingRules(service('x'.repeat(200)))[3]).toEqual({
      match: { resource_name_prefix: 'db-' },
      attribute_to_service: 'x'.repeat(200),
    });
    expect(rejection(service('Unattributed'))).toMatchObject({ field: 'rules[3].attribute_to_service' });
  });

  it('requires a body object with a rules array of at most 500 objects', () => {
    expect(rejection([ok]).message).toBe('body must be a JSON object with a rules array');
    expect(rejection({})).toEqual({ message: 'rules is required: an array of mapping rules', field: 'rules' });
    expect(rejection({ rules: ok })).toMatchObject({ field: 'rules' });
    expect(parseMappingRules({ rules: Array(MAX_RULES).fill(ok) })).toHaveLength(500);
    expect(rejection({ rules: Array(501).fill(ok) })).toEqual({
      message: 'rules must hold at most 500 rules',
      field: 'rules',
    });
    expect(rejection(at3(null))).toMatchObject({ field: 'rules[3]' });
  });
});

describe('tag value patterns', () => {
  const matches = (pattern: string, value: string) => compilePattern(pattern)(value);

  it('without * matches the whole value exactly, case-sensitive', () => {
    expect(matches('prod', 'prod')).toBe(true);
    expect(matches('prod', 'Prod')).toBe(false);
    expect(matches('prod', 'production')).toBe(false);
    expect(matches('prod', 'preprod')).toBe(false);
  });

  it('* matches any run of characters, none included, anywhere in the pattern', () => {
    expect(matches('*', '')).toBe(true);
    expect(matches('*', 'anything at all')).toBe(true);
    expect(matches('prod*', 'prod')).toBe(true);
    expect(matches('prod*', 'production')).toBe(true);
    expect(matches('prod*', 'preprod')).toBe(false);
    expect(matches('*-prod', 'eu-prod')).toBe(true);
    expect(matches('*-prod', 'eu-prod-2')).toBe(false);
    expect(matches('checkout-*-v*', 'checkout-api-v2')).toBe(true);
    expect(matches('checkout-*-v*', 'checkout-v2')).toBe(false);
    expect(matches('**', 'x')).toBe(true);
  });

  it('keeps the pieces in order and never lets them overlap', () => {
    expect(matches('a*b*c', 'abc')).toBe(true);
    expect(matches('a*b*c', 'a-b-b-c')).toBe(true);
    expect(matches('a*b*c', 'acb')).toBe(false);
    expect(matches('a*a', 'a')).toBe(false);
    expect(matches('a*a', 'aa')).toBe(true);
    expect(matches('*ab*ab*', 'xabx')).toBe(false);
    expect(matches('*ab*ab*', 'abab')).toBe(true);
  });

  it('takes every other character literally', () => {
    expect(matches('v1.2', 'v1x2')).toBe(false);
    expect(matches('v1.2', 'v1.2')).toBe(true);
    expect(matches('(a|b)+', '(a|b)+')).toBe(true);
    expect(matches('(a|b)+', 'ab')).toBe(false);
  });

  it('answers a many-star pattern against a long value without backtracking', () => {
    expect(matches('*a*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(10_000))).toBe(false);
  });
});

describe('attribution: rules in order, first match wins per dimension', () => {
  const resource = (
    tags: Record<string, string>,
    name: string | null = null,
    id: string | null = null,
  ): AttributableResource => ({ name, id, tags });
  const rules = parseMappingRules({
    rules: [
      { match: { resource_name_prefix: 'shared-db' }, attribute_to_service: 'platform' },
      { match: { tag: 'app', pattern: 'checkout-*' }, attribute_to_service: 'checkout' },
      { match: { tag: 'service', pattern: '*' }, attribute_to: 'service' },
      { match: { tag: 'env', pattern: 'prod*' }, attribute_to: 'env' },
      { match: { tag: 'stage', pattern: '*' }, attribute_to: 'env' },
    ],
  });

  it('sets each dimension from the first rule that matches it, and keeps applying rules of the other', () => {
    // Rules 1 and 2 both match the service: rule 1 wins; rule 3 still sets env.
    expect(attribute(resource({ app: 'checkout-api', service: 'cart', env: 'production' }), rules)).toEqual({
      service: 'checkout',
      env: 'production',
      ruleIndex: { service: 1, env: 3 },
    });
    // Rule 3 does not match env "staging"; rule 4 sets it from another tag.
    expect(attribute(resource({ service: 'cart', env: 'staging', stage: 'qa' }), rules)).toEqual({
      service: 'cart',
      env: 'qa',
      ruleIndex: { service: 2, env: 4 },
    });
  });

  it('leaves a dimension null when no rule matches it (reports: Unattributed)', () => {
    expect(attribute(resource({ team: 'data' }, 'etl-box'), rules)).toEqual({
      service: null,
      env: null,
      ruleIndex: {},
    });
    expect(attribute(resource({ env: 'prod-eu' }), rules)).toEqual({
      service: null,
      env: 'prod-eu',
      ruleIndex: { env: 3 },
    });
  });

  it('matches a name prefix against the name, or the id when there is no name', () => {
    expect(attribute(resource({}, 'shared-db-1'), rules).service).toBe('platform');
    expect(attribute(resource({}, null, 'shared-db-2'), rules).service).toBe('platform');
    expect(attribute(resource({}, 'orders-db', 'shared-db-3'), rules).service).toBeNull();
    expect(attribute(resource({}, null, null), rules).service).toBeNull();
    expect(attribute(resource({}, 'Shared-db-1'), rules).service).toBeNull();
  });

  it('needs the tag key present: a missing tag does not match *', () => {
    expect(attribute(resource({ servicename: 'cart' }), rules).service).toBeNull();
    expect(attribute(resource({ 'user:service': 'cart' }), rules).service).toBeNull();
    const constructorRule = parseMappingRules({
      rules: [{ match: { tag: 'constructor', pattern: '*' }, attribute_to_service: 'x' }],
    });
    expect(attribute(resource({}), constructorRule).service).toBeNull();
  });

  it('finds a tag key as AWS spells it in Parquet CURs and CUR 2.0: lowercased, other characters as _', () => {
    const costCenter = parseMappingRules({
      rules: [{ match: { tag: 'Cost Center', pattern: '*' }, attribute_to: 'service' }],
    });
    expect(attribute(resource({ 'Cost Center': 'billing' }), costCenter).service).toBe('billing');
    expect(attribute(resource({ cost_center: 'billing' }), costCenter).service).toBe('billing');
    expect(attribute(resource({ Service: 'cart' }), rules).service).toBe('cart');
    // The exact key wins over a normalized one.
    expect(attribute(resource({ service: 'exact', Service: 'other' }), rules).service).toBe('exact');
  });

  it('assigns nothing from an empty tag value, so later rules get their turn', () => {
    expect(attribute(resource({ service: '', stage: '' }), rules)).toEqual({ service: null, env: null, ruleIndex: {} });
    const fallback = parseMappingRules({
      rules: [
        { match: { tag: 'service', pattern: '*' }, attribute_to: 'service' },
        { match: { tag: 'service', pattern: '*' }, attribute_to_service: 'tagged-without-value' },
      ],
    });
    expect(attribute(resource({ service: '' }), fallback)).toEqual({
      service: 'tagged-without-value',
      env: null,
      ruleIndex: { service: 1 },
    });
  });

  it('gives the same answer each time a rule list is reused', () => {
    const list: MappingRule[] = [{ match: { tag: 'team', pattern: 'pay*' }, attribute_to: 'service' }];
    for (let i = 0; i < 3; i++) expect(attribute(resource({ team: 'payments' }), list).service).toBe('payments');
    expect(attribute(resource({ team: 'search' }), list).service).toBeNull();
  });
});
