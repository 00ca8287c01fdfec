/**
 * The naming rules `validateSemanticMetrics` checks (documented in docs/sdk-signals.md). They follow OpenTelemetry's
 * instrument-name and UCUM unit conventions, plus one rule for names that carry their unit as a suffix, as the Web
 * Vitals names of SPEC 2.9 do (`web_vital_lcp_ms`).
 */

/** OpenTelemetry's limit on instrument names. */
const MAX_METRIC_NAME_LENGTH = 255;

/** Lower-case words of letters and digits, starting with a letter, joined by single `.` or `_`. */
const NAME_PATTERN = /^[a-z][a-z0-9]*(?:[._][a-z0-9]+)*$/;

/** UCUM units in common use in OpenTelemetry semantic conventions. */
const KNOWN_UNITS: ReadonlySet<string> = new Set([
  '1',
  '%',
  'ns',
  'us',
  'ms',
  's',
  'min',
  'h',
  'd',
  'bit',
  'By',
  'kBy',
  'MBy',
  'GBy',
  'KiBy',
  'MiBy',
  'GiBy',
  'Hz',
  'Cel',
  'm',
  'W',
  'J',
]);

/** UCUM annotations count things: `{request}`, `{error}`, `{dom_node}`. */
const ANNOTATION = /^\{[\w.-]+\}$/;

/** Name suffixes that state a unit, and the unit they require. */
const UNIT_SUFFIXES: ReadonlyArray<readonly [suffix: string, unit: string]> = [
  ['ms', 'ms'],
  ['us', 'us'],
  ['ns', 'ns'],
  ['seconds', 's'],
  ['bytes', 'By'],
  ['percent', '%'],
  ['ratio', '1'],
];

const isUnitTerm = (term: string): boolean => KNOWN_UNITS.has(term) || ANNOTATION.test(term);

/** True for `''` (no unit), a known unit or annotation, or a rate of two of them (`By/s`, `{request}/s`). */
export function isKnownUnit(unit: string): boolean {
  if (unit === '') return true;
  const terms = unit.split('/');
  return terms.length <= 2 && terms.every(isUnitTerm);
}

/**
 * What is not canonical about a metric name and unit, one sentence per problem; empty when both follow the rules:
 * - the name is at most 255 characters of lower-case letters, digits, `.` and `_`, starts with a letter, and has no
 *   empty word (`a..b`, `a_`);
 * - the unit is empty, a known UCUM unit, a `{annotation}`, or a rate of two of those;
 * - a name ending in a unit word (`_ms`, `_us`, `_ns`, `_seconds`, `_bytes`, `_percent`, `_ratio`, after `_` or `.`)
 *   is recorded with that unit (`ms`, `us`, `ns`, `s`, `By`, `%`, `1`).
 */
export function metricNameProblems(name: string, unit: string): string[] {
  const problems: string[] = [];
  if (name.length > MAX_METRIC_NAME_LENGTH) problems.push(`is longer than ${MAX_METRIC_NAME_LENGTH} characters`);
  if (!NAME_PATTERN.test(name)) {
    problems.push('should be lower-case words of letters and digits joined by "." or "_", starting with a letter');
  }
  if (!isKnownUnit(unit))
    problems.push(`has unit "${unit}", which is not a known UCUM unit (ms, s, By, 1, %, {count}…)`);
  const words = name.split(/[._]/);
  const last = words.length > 1 ? words[words.length - 1] : undefined;
  const suffix = UNIT_SUFFIXES.find(([word]) => word === last);
  if (suffix !== undefined && suffix[1] !== unit) {
    problems.push(
      `ends in "${suffix[0]}" but its unit is ${unit === '' ? 'missing' : `"${unit}"`}; use "${suffix[1]}"`,
    );
  }
  return problems;
}
