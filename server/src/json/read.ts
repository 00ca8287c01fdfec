import { invalid } from '../shared/domain-errors';

/**
 * Path-aware readers for untrusted JSON. Each names the offending field in its error (for example
 * `resourceSpans[0].scopeSpans[1].spans[3].traceId`), so a client can fix its payload. `null` counts as absent, as
 * OTLP/JSON producers emit both.
 */
export type JsonObject = Record<string, unknown>;

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function readObject(v: unknown, path: string): JsonObject {
  if (!isObject(v)) throw invalid(`${path} must be an object`, 'invalid_request', { field: path });
  return v;
}

/** An optional array: absent means empty, as in protobuf. */
export function readArray(v: unknown, path: string): unknown[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid(`${path} must be an array`, 'invalid_request', { field: path });
  return v;
}

export function readString(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalid(`${path} must be a string`, 'invalid_request', { field: path });
  return v;
}

export function readInteger(v: unknown, path: string, min: number, max: number): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'string' && /^-?\d{1,16}$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw invalid(`${path} must be an integer from ${min} to ${max}`, 'invalid_request', { field: path });
  }
  return n;
}

const UINT64_MAX = 18446744073709551615n;

/** A fixed64/uint64 as a canonical decimal string (OTLP/JSON sends them as strings or numbers). Absent is "0". */
export function readUint64(v: unknown, path: string): string {
  if (v === undefined || v === null) return '0';
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return String(v);
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) {
    const canonical = v.replace(/^0+(?=\d)/, '');
    if (canonical.length < 20 || BigInt(canonical) <= UINT64_MAX) return canonical;
  }
  throw invalid(`${path} must be an unsigned 64-bit integer (a decimal string or number)`, 'invalid_request', {
    field: path,
  });
}

const INT64_MIN = -9223372036854775808n;
const INT64_MAX = 9223372036854775807n;

/** An int64 as a number when it is exactly representable, else as its decimal string. */
export function readInt64(v: unknown, path: string): number | string {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,19}$/.test(v)) {
    const big = BigInt(v);
    if (big >= INT64_MIN && big <= INT64_MAX) {
      const n = Number(big);
      return Number.isSafeInteger(n) ? n : big.toString();
    }
  }
  throw invalid(`${path} must be a 64-bit integer (a decimal string or number)`, 'invalid_request', { field: path });
}

/** A double; protojson spells the non-finite ones as strings, kept as such because JSON cannot hold them. */
export function readDouble(v: unknown, path: string): number | string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number') return v;
  if (v === 'NaN' || v === 'Infinity' || v === '-Infinity') return v;
  if (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))) return Number(v);
  throw invalid(`${path} must be a number`, 'invalid_request', { field: path });
}

/** Milliseconds from a canonical nanosecond decimal string, without BigInt on the hot path. */
export function nanosToMillis(ns: string): number {
  return ns.length <= 6 ? 0 : Number(ns.slice(0, -6));
}

const HEX = /^[0-9a-f]*$/;

/**
 * A trace or span id: lowercase or uppercase hex of `bytes` bytes, not all zeros (invalid per W3C trace context).
 * Returns lowercase hex, or undefined when absent or empty and `optional`.
 */
export function readId(v: unknown, path: string, bytes: 8 | 16, optional: boolean): string | undefined {
  const s = readString(v, path);
  if (s === undefined || s === '') {
    if (optional) return undefined;
    throw invalid(`${path} is required`, 'invalid_request', { field: path });
  }
  const lower = s.toLowerCase();
  if (lower.length !== bytes * 2 || !HEX.test(lower) || /^0+$/.test(lower)) {
    throw invalid(`${path} must be ${bytes * 2} hex characters, not all zero`, 'invalid_request', { field: path });
  }
  return lower;
}
