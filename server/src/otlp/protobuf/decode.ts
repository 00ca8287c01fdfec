/**
 * Schema-driven protobuf wire decoder that produces the OTLP/JSON object shape directly.
 *
 * The protobufjs reflection objects (from ./schema.ts) only supply field numbers, types and
 * oneof membership; the wire format is read here so that the decoder can
 *  - reject a known field sent with the wrong wire type (protobufjs would silently skip it),
 *  - see field presence exactly as protojson does (implicit-presence defaults omitted, oneof
 *    members and proto3 `optional` fields kept even when zero, sub-messages kept even if empty),
 *  - emit 64-bit integers as exact decimal strings without `long` objects or precision loss,
 *  - emit trace/span ids as lowercase hex and other bytes as base64 (OTLP/JSON rules),
 *  - bound every read by the enclosing message and the nesting depth, so garbage input fails
 *    fast with a {@link ProtobufDecodeError} instead of hanging, over-allocating or overflowing
 *    the stack. Output size is linear in input size (each value consumes at least one byte).
 *
 * Merge semantics follow the protobuf spec: a repeated field accumulates, a singular scalar is
 * last-one-wins, a singular message appearing twice is merged, and setting a oneof member clears
 * the other members. Unknown fields are skipped (after validating their framing).
 */
import protobuf from 'protobufjs';
import { ProtobufDecodeError, ProtobufStructureLimitError } from './errors.js';

/** Maximum message nesting (protoc's default recursion limit). */
export const MAX_NESTING_DEPTH = 100;

type Kind =
  | 'double'
  | 'float'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'sint32'
  | 'sint64'
  | 'fixed32'
  | 'fixed64'
  | 'sfixed32'
  | 'sfixed64'
  | 'bool'
  | 'string'
  | 'bytes'
  | 'enum'
  | 'message';

const WIRE_VARINT = 0;
const WIRE_I64 = 1;
const WIRE_LEN = 2;
const WIRE_SGROUP = 3;
const WIRE_EGROUP = 4;
const WIRE_I32 = 5;

const WIRE_TYPE_OF: Record<Kind, number> = {
  double: WIRE_I64,
  float: WIRE_I32,
  int32: WIRE_VARINT,
  int64: WIRE_VARINT,
  uint32: WIRE_VARINT,
  uint64: WIRE_VARINT,
  sint32: WIRE_VARINT,
  sint64: WIRE_VARINT,
  fixed32: WIRE_I32,
  fixed64: WIRE_I64,
  sfixed32: WIRE_I32,
  sfixed64: WIRE_I64,
  bool: WIRE_VARINT,
  string: WIRE_LEN,
  bytes: WIRE_LEN,
  enum: WIRE_VARINT,
  message: WIRE_LEN,
};

/** OTLP/JSON: these `bytes` fields are lowercase hex, every other `bytes` field is base64. */
const HEX_BYTES_FIELDS: ReadonlySet<string> = new Set(['trace_id', 'span_id', 'parent_span_id']);

interface FieldPlan {
  readonly number: number;
  readonly protoName: string;
  /** `Message.field`, for error messages. */
  readonly label: string;
  readonly jsonName: string;
  readonly kind: Kind;
  readonly wireType: number;
  readonly repeated: boolean;
  /** Repeated scalar numeric field: accepts packed (LEN) and unpacked encodings. */
  readonly packable: boolean;
  /** Oneof member or proto3 `optional`: emitted whenever present on the wire, even if zero. */
  readonly explicitPresence: boolean;
  /** JSON names of the other members of this field's oneof (cleared when this one is set). */
  readonly oneofSiblings: readonly string[];
  readonly bytesAsHex: boolean;
  /** Resolved after construction (message types can be recursive). */
  message: MessagePlan | undefined;
}

interface MessagePlan {
  readonly name: string;
  readonly fields: ReadonlyMap<number, FieldPlan>;
}

/** protoc's `json_name` derivation: drop each underscore and upper-case the next character. */
export function toJsonName(protoName: string): string {
  let out = '';
  let upperNext = false;
  for (const ch of protoName) {
    if (ch === '_') {
      upperNext = true;
    } else {
      out += upperNext ? ch.toUpperCase() : ch;
      upperNext = false;
    }
  }
  return out;
}

const planCache = new Map<protobuf.Type, MessagePlan>();

function planFor(type: protobuf.Type): MessagePlan {
  const cached = planCache.get(type);
  if (cached !== undefined) return cached;
  const fields = new Map<number, FieldPlan>();
  const plan: MessagePlan = { name: type.name, fields };
  planCache.set(type, plan); // before recursing: message types may refer to themselves
  const pending: Array<[FieldPlan, protobuf.Type]> = [];
  for (const field of type.fieldsArray) {
    field.resolve();
    if (field.map) throw new Error(`OTLP schema: map fields are not supported (${type.name}.${field.name})`);
    const resolved = field.resolvedType;
    let kind: Kind;
    if (resolved instanceof protobuf.Type) kind = 'message';
    else if (resolved instanceof protobuf.Enum) kind = 'enum';
    else if (field.type in WIRE_TYPE_OF && field.type !== 'message' && field.type !== 'enum') kind = field.type as Kind;
    else throw new Error(`OTLP schema: unsupported field type ${field.type} (${type.name}.${field.name})`);
    const oneof = field.partOf;
    const fp: FieldPlan = {
      number: field.id,
      protoName: field.name,
      label: `${type.name}.${field.name}`,
      jsonName: toJsonName(field.name),
      kind,
      wireType: WIRE_TYPE_OF[kind],
      repeated: field.repeated,
      packable: field.repeated && kind !== 'message' && kind !== 'string' && kind !== 'bytes',
      explicitPresence: oneof !== null && oneof !== undefined,
      oneofSiblings: oneof ? oneof.fieldsArray.filter((f) => f !== field).map((f) => toJsonName(f.name)) : [],
      bytesAsHex: kind === 'bytes' && HEX_BYTES_FIELDS.has(field.name),
      message: undefined,
    };
    fields.set(field.id, fp);
    if (resolved instanceof protobuf.Type) pending.push([fp, resolved]);
  }
  for (const [fp, sub] of pending) fp.message = planFor(sub);
  return plan;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Strings up to this many bytes are tried as ASCII first (keys, names: cheaper than TextDecoder). */
const SHORT_STRING = 48;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

const TWO_32 = 4294967296;

function pad7(n: number): string {
  const digits = String(n);
  return digits.length >= 7 ? digits : '0000000'.slice(digits.length) + digits;
}

/**
 * Unsigned 64-bit integer from two uint32 halves, as an exact decimal string. Below 2^53 a double
 * is exact; above (e.g. every nanosecond timestamp) the value is split into 24/24/16-bit limbs
 * and recombined in base 10^7 with plain doubles, which stays far below 2^53 and avoids BigInt:
 *   2^24 = 1·10^7 + 6777216,   2^48 = 2·10^14 + 8147497·10^7 + 6710656.
 */
function u64String(lo: number, hi: number): string {
  if (hi <= 0x1fffff) return String(hi * TWO_32 + lo);
  const low = lo & 0xffffff;
  const mid = ((lo >>> 24) | (hi << 8)) & 0xffffff;
  const high = hi >>> 16;
  let digitA = low + mid * 6777216 + high * 6710656;
  let digitB = mid + high * 8147497;
  let digitC = high * 2;
  const base = 10000000;
  if (digitA >= base) {
    digitB += Math.floor(digitA / base);
    digitA %= base;
  }
  if (digitB >= base) {
    digitC += Math.floor(digitB / base);
    digitB %= base;
  }
  // hi > 0x1fffff means the value is >= 2^53 > 10^15, so digitC is never 0 here.
  return String(digitC) + pad7(digitB) + pad7(digitA);
}

/** Signed (two's complement) 64-bit integer from two uint32 halves, as an exact decimal string. */
function i64String(lo: number, hi: number): string {
  if (hi < 0x80000000) return u64String(lo, hi);
  // Negate: two's complement of (hi, lo); -2^63 maps to 2^63, which is still right as unsigned.
  const nlo = (~lo + 1) >>> 0;
  const nhi = (~hi + (nlo === 0 ? 1 : 0)) >>> 0;
  return '-' + u64String(nlo, nhi);
}

/** Doubles in OTLP/JSON (protojson): numbers, or the strings "NaN", "Infinity", "-Infinity". */
function jsonDouble(v: number): number | string {
  if (Number.isFinite(v)) return v;
  return Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity';
}

function isDefault(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case 'string':
    case 'bytes':
      return v === '';
    case 'bool':
      return v === false;
    case 'int64':
    case 'uint64':
    case 'sint64':
    case 'fixed64':
    case 'sfixed64':
      return v === '0';
    case 'message':
      return false;
    default:
      return v === 0 && !Object.is(v, -0);
  }
}

/** Bounds-checked cursor over the input; `limit` is the end of the innermost open message. */
class WireReader {
  pos = 0;
  limit: number;
  /** Halves of the last varint / fixed64 read. */
  lo = 0;
  hi = 0;
  /** What is being decoded, for error messages. */
  where = '';
  /** Messages and packed values decoded so far, against `maxStructures`. */
  private structures = 0;
  private readonly view: DataView;

  constructor(
    readonly buf: Uint8Array,
    private readonly rootName: string,
    private readonly maxStructures: number,
  ) {
    this.limit = buf.length;
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  /** Counts one more decoded message or packed value; output size is bounded by this, not only by the input's. */
  countStructure(): void {
    if (++this.structures > this.maxStructures) throw new ProtobufStructureLimitError(this.maxStructures);
  }

  fail(message: string, at: number = this.pos): never {
    const where = this.where ? `, in ${this.where}` : '';
    throw new ProtobufDecodeError(`invalid ${this.rootName}: ${message} (at byte ${at}${where})`, { offset: at });
  }

  need(n: number): void {
    if (n > this.limit - this.pos) {
      this.fail(
        this.limit === this.buf.length
          ? `truncated input: ${n} byte(s) needed, ${this.limit - this.pos} left`
          : `field overruns its enclosing message: ${n} byte(s) needed, ${this.limit - this.pos} left in it`,
      );
    }
  }

  private byte(): number {
    if (this.pos >= this.limit) this.need(1);
    return this.buf[this.pos++] as number;
  }

  /** Reads a varint of up to 10 bytes into `lo`/`hi`. */
  varint(): void {
    const start = this.pos;
    let lo = 0;
    let b: number;
    for (let shift = 0; shift < 28; shift += 7) {
      b = this.byte();
      lo |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.lo = lo >>> 0;
        this.hi = 0;
        return;
      }
    }
    b = this.byte();
    lo |= (b & 0x0f) << 28;
    let hi = (b & 0x7f) >>> 4;
    if (b < 0x80) {
      this.lo = lo >>> 0;
      this.hi = hi;
      return;
    }
    for (let shift = 3; shift <= 31; shift += 7) {
      b = this.byte();
      if (shift === 31 && b > 1) this.fail('varint overflows 64 bits', start);
      hi |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.lo = lo >>> 0;
        this.hi = hi >>> 0;
        return;
      }
    }
    this.fail('varint longer than 10 bytes', start);
  }

  /** A length prefix; checks that the announced bytes are actually there. */
  length(): number {
    const start = this.pos;
    this.varint();
    if (this.hi !== 0 || this.lo > 0x7fffffff) this.fail('invalid length prefix', start);
    this.need(this.lo);
    return this.lo;
  }

  fixed32(): number {
    this.need(4);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }

  /** Reads 8 little-endian bytes into `lo`/`hi`. */
  fixed64(): void {
    this.need(8);
    this.lo = this.view.getUint32(this.pos, true);
    this.hi = this.view.getUint32(this.pos + 4, true);
    this.pos += 8;
  }

  float(): number {
    this.need(4);
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  double(): number {
    this.need(8);
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  string(): string {
    const len = this.length();
    const start = this.pos;
    this.pos += len;
    if (len === 0) return '';
    if (len <= SHORT_STRING) {
      let ascii = '';
      let i = start;
      const end = start + len;
      for (; i < end; i++) {
        const b = this.buf[i] as number;
        if (b >= 0x80) break;
        ascii += String.fromCharCode(b);
      }
      if (i === end) return ascii;
    }
    try {
      return utf8.decode(this.buf.subarray(start, start + len));
    } catch {
      return this.fail('invalid UTF-8 in string field', start);
    }
  }

  bytes(hex: boolean): string {
    const len = this.length();
    const start = this.pos;
    this.pos += len;
    if (len === 0) return '';
    if (hex && len <= 32) {
      let out = '';
      for (let i = start; i < start + len; i++) out += HEX[this.buf[i] as number];
      return out;
    }
    return Buffer.from(this.buf.buffer, this.buf.byteOffset + start, len).toString(hex ? 'hex' : 'base64');
  }
}

function readScalar(r: WireReader, kind: Kind, hex: boolean): unknown {
  switch (kind) {
    case 'string':
      return r.string();
    case 'bytes':
      return r.bytes(hex);
    case 'bool':
      r.varint();
      return (r.lo | r.hi) !== 0;
    case 'int32':
    case 'enum':
      r.varint();
      return r.lo | 0;
    case 'uint32':
      r.varint();
      return r.lo;
    case 'sint32':
      r.varint();
      return (r.lo >>> 1) ^ -(r.lo & 1);
    case 'int64':
      r.varint();
      return i64String(r.lo, r.hi);
    case 'uint64':
      r.varint();
      return u64String(r.lo, r.hi);
    case 'sint64': {
      r.varint();
      // zigzag: (n >>> 1) ^ -(n & 1) on 64 bits
      const neg = r.lo & 1;
      let lo = ((r.lo >>> 1) | (r.hi << 31)) >>> 0;
      let hi = r.hi >>> 1;
      if (neg) {
        lo = ~lo >>> 0;
        hi = ~hi >>> 0;
      }
      return i64String(lo, hi);
    }
    case 'fixed32':
      return r.fixed32();
    case 'sfixed32':
      return r.fixed32() | 0;
    case 'fixed64':
      r.fixed64();
      return u64String(r.lo, r.hi);
    case 'sfixed64':
      r.fixed64();
      return i64String(r.lo, r.hi);
    case 'float':
      return jsonDouble(r.float());
    case 'double':
      return jsonDouble(r.double());
    case 'message':
      throw new Error('unreachable: message is not a scalar');
  }
}

type JsonObject = Record<string, unknown>;

function clearSiblings(target: JsonObject, field: FieldPlan): void {
  for (const sibling of field.oneofSiblings) {
    if (target[sibling] !== undefined) delete target[sibling];
  }
}

function setScalar(target: JsonObject, field: FieldPlan, value: unknown): void {
  if (field.repeated) {
    const list = target[field.jsonName];
    if (Array.isArray(list)) list.push(value);
    else target[field.jsonName] = [value];
  } else if (field.explicitPresence) {
    clearSiblings(target, field);
    target[field.jsonName] = value;
  } else if (isDefault(field.kind, value)) {
    if (target[field.jsonName] !== undefined) delete target[field.jsonName];
  } else {
    target[field.jsonName] = value;
  }
}

/** Decodes a length-delimited sub-message into `target` (merging into what is there). */
function decodeSubMessage(r: WireReader, plan: MessagePlan, target: JsonObject, depth: number): void {
  const len = r.length();
  r.countStructure();
  const outerLimit = r.limit;
  r.limit = r.pos + len;
  decodeFields(r, plan, target, depth + 1);
  r.limit = outerLimit;
}

function decodeField(r: WireReader, field: FieldPlan, wireType: number, target: JsonObject, depth: number): void {
  if (field.kind === 'message') {
    if (wireType !== WIRE_LEN) wrongWireType(r, field, wireType);
    const plan = field.message as MessagePlan;
    if (field.repeated) {
      const obj: JsonObject = {};
      decodeSubMessage(r, plan, obj, depth);
      const list = target[field.jsonName];
      if (Array.isArray(list)) list.push(obj);
      else target[field.jsonName] = [obj];
    } else {
      if (field.explicitPresence) clearSiblings(target, field);
      let obj = target[field.jsonName] as JsonObject | undefined;
      if (obj === undefined) {
        obj = {};
        target[field.jsonName] = obj;
      }
      decodeSubMessage(r, plan, obj, depth);
    }
    return;
  }
  if (wireType === field.wireType) {
    setScalar(target, field, readScalar(r, field.kind, field.bytesAsHex));
    return;
  }
  if (wireType === WIRE_LEN && field.packable) {
    const len = r.length();
    const outerLimit = r.limit;
    r.limit = r.pos + len;
    let list = target[field.jsonName];
    if (!Array.isArray(list)) {
      list = [];
      target[field.jsonName] = list;
    }
    while (r.pos < r.limit) {
      r.countStructure();
      (list as unknown[]).push(readScalar(r, field.kind, false));
    }
    r.limit = outerLimit;
    return;
  }
  wrongWireType(r, field, wireType);
}

function wrongWireType(r: WireReader, field: FieldPlan, wireType: number): never {
  const expected = field.packable ? `${field.wireType} or 2 (packed)` : String(field.wireType);
  return r.fail(`wrong wire type ${wireType} for field ${field.number} (expected ${expected})`);
}

/** Skips an unknown field, validating its framing (groups are matched and depth-limited). */
function skipField(r: WireReader, fieldNumber: number, wireType: number, depth: number): void {
  switch (wireType) {
    case WIRE_VARINT:
      r.varint();
      return;
    case WIRE_I64:
      r.skip(8);
      return;
    case WIRE_LEN:
      r.skip(r.length());
      return;
    case WIRE_I32:
      r.skip(4);
      return;
    case WIRE_SGROUP: {
      if (depth + 1 > MAX_NESTING_DEPTH) r.fail(`nesting deeper than ${MAX_NESTING_DEPTH} levels`);
      for (;;) {
        const tagAt = r.pos;
        const tag = readTag(r);
        const num = tag >>> 3;
        const wt = tag & 7;
        if (wt === WIRE_EGROUP) {
          if (num !== fieldNumber) r.fail(`end-group tag for field ${num} does not match group ${fieldNumber}`, tagAt);
          return;
        }
        skipField(r, num, wt, depth + 1);
      }
    }
    case WIRE_EGROUP:
      return r.fail(`unexpected end-group tag for field ${fieldNumber}`);
    default:
      return r.fail(`invalid wire type ${wireType} for field ${fieldNumber}`);
  }
}

/** Reads a field tag (field number << 3 | wire type), rejecting field number 0 and > 2^29-1. */
function readTag(r: WireReader): number {
  const at = r.pos;
  r.varint();
  if (r.hi !== 0) r.fail('invalid field tag (more than 32 bits)', at);
  if (r.lo >>> 3 === 0) r.fail('invalid field number 0', at);
  return r.lo;
}

function decodeFields(r: WireReader, plan: MessagePlan, target: JsonObject, depth: number): void {
  if (depth > MAX_NESTING_DEPTH) r.fail(`nesting deeper than ${MAX_NESTING_DEPTH} levels`);
  while (r.pos < r.limit) {
    r.where = plan.name;
    const tag = readTag(r);
    const fieldNumber = tag >>> 3;
    const wireType = tag & 7;
    const field = plan.fields.get(fieldNumber);
    if (field === undefined) {
      skipField(r, fieldNumber, wireType, depth);
    } else {
      r.where = field.label;
      decodeField(r, field, wireType, target, depth);
    }
  }
}

/**
 * Decodes `bytes` as message `type` into its OTLP/JSON object. Throws {@link ProtobufDecodeError}
 * for malformed input; any other exception from the decoding itself is wrapped into one.
 */
export function decodeMessageToJson(
  type: protobuf.Type,
  bytes: Uint8Array,
  maxStructures = Infinity,
): Record<string, unknown> {
  const plan = planFor(type); // schema problems are bugs, not bad input: not wrapped
  const r = new WireReader(bytes, type.name, maxStructures);
  const out: JsonObject = {};
  try {
    decodeFields(r, plan, out, 0);
  } catch (err) {
    if (err instanceof ProtobufDecodeError || err instanceof ProtobufStructureLimitError) throw err;
    const detail = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    throw new ProtobufDecodeError(`invalid ${type.name}: ${detail} (at byte ${r.pos})`, {
      offset: r.pos,
      cause: err,
    });
  }
  return out;
}
