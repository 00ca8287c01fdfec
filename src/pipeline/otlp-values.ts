import type { AnyValue, KeyValue, UnixNano } from '../../wire/otlp-json';
import type { AttributeValue, Attributes } from '../core/types';

/**
 * A double as OTLP/JSON spells it: JSON has no NaN or Infinity, so protojson writes them as strings (the reference
 * server reads them back as such).
 */
export function otlpDouble(n: number): number | 'NaN' | 'Infinity' | '-Infinity' {
  if (Number.isFinite(n)) return n;
  if (Number.isNaN(n)) return 'NaN';
  return n > 0 ? 'Infinity' : '-Infinity';
}

/**
 * One attribute value as an OTLP AnyValue. Integral numbers become `intValue` (a decimal string, as int64 is spelled
 * in OTLP/JSON) only while they are exact; larger or fractional numbers stay doubles, so no value changes on the way.
 */
export function toAnyValue(value: AttributeValue): AnyValue {
  switch (typeof value) {
    case 'string':
      return { stringValue: value };
    case 'boolean':
      return { boolValue: value };
    case 'number':
      return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: otlpDouble(value) };
    default:
      return { arrayValue: { values: value.map((v) => toAnyValue(v)) } };
  }
}

/** Attributes as an OTLP KeyValue list, in insertion order. */
export function toKeyValues(attributes: Readonly<Attributes>): KeyValue[] {
  return Object.keys(attributes).map((key) => ({ key, value: toAnyValue(attributes[key]!) }));
}

/**
 * Epoch milliseconds (with a fractional part) as OTLP nanoseconds, to the microsecond. Built from decimal digits
 * because nanosecond epochs exceed 2^53 (`ms * 1e6` as a number would be off by up to a hundred nanoseconds), without
 * BigInt so that older browsers work. Finer digits would be noise: a double holding epoch milliseconds resolves about
 * a quarter of a microsecond, and browsers coarsen `performance.now()` further.
 */
export function unixNano(ms: number): UnixNano {
  if (!Number.isFinite(ms) || ms <= 0) return '0';
  let whole = Math.floor(ms);
  let micros = Math.round((ms - whole) * 1000);
  if (micros === 1000) {
    whole += 1;
    micros = 0;
  }
  return `${whole}${String(micros).padStart(3, '0')}000`;
}
