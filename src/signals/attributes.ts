import type { AttributeValue, Attributes } from '../core/types';
import { renderValue, truncate } from './render';

/** Longest string attribute value (and stack trace); longer text is cut and ends with `…`. */
export const MAX_ATTRIBUTE_LENGTH = 8192;
/** Attributes taken from one `attrs` map; the rest are dropped (with a debug warning). */
export const MAX_ATTRIBUTES = 128;
/** Longest attribute name; longer names are cut. */
const MAX_KEY_LENGTH = 256;
/** Longest array kept as an array; longer arrays are rendered as text. */
const MAX_ARRAY_LENGTH = 128;

type Primitive = string | number | boolean;

const isPrimitive = (value: unknown): value is Primitive =>
  typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

/**
 * Converts one free-form value to what OTLP attributes can carry: strings (cut to {@link MAX_ATTRIBUTE_LENGTH}),
 * finite numbers, booleans, and short arrays of those are kept; `NaN`/`Infinity` and bigints become strings; anything
 * else (objects, errors, dates, mixed arrays) is rendered as text by {@link renderValue}. `null` and `undefined` give
 * `undefined`: the attribute is left out.
 */
export function toAttributeValue(value: unknown): AttributeValue | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return truncate(value, MAX_ATTRIBUTE_LENGTH);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.length <= MAX_ARRAY_LENGTH && value.every(isPrimitive)) {
    return value.map((item: Primitive) => (typeof item === 'string' ? truncate(item, MAX_ATTRIBUTE_LENGTH) : item));
  }
  return renderValue(value, MAX_ATTRIBUTE_LENGTH);
}

/** Attributes converted from a free-form map, and how many entries did not fit. */
export interface ConvertedAttributes {
  readonly attributes: Attributes;
  readonly dropped: number;
}

/**
 * Converts the own enumerable entries of `map` with {@link toAttributeValue}: at most {@link MAX_ATTRIBUTES},
 * empty names skipped, names cut to 256 characters, entries whose getter throws rendered as `[unreadable]`.
 */
export function toAttributes(map: object): ConvertedAttributes {
  const attributes: Attributes = {};
  let kept = 0;
  let dropped = 0;
  for (const key of Object.keys(map)) {
    if (key === '' || kept >= MAX_ATTRIBUTES) {
      dropped++;
      continue;
    }
    let raw: unknown;
    try {
      raw = (map as Record<string, unknown>)[key];
    } catch {
      raw = '[unreadable]';
    }
    const value = toAttributeValue(raw);
    if (value === undefined) continue;
    // defineProperty, not assignment: a key named `__proto__` stays an attribute instead of replacing the prototype.
    Object.defineProperty(attributes, truncate(key, MAX_KEY_LENGTH), {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
    kept++;
  }
  return { attributes, dropped };
}
