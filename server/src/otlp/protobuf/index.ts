/**
 * OTLP/HTTP protobuf support: decode `application/x-protobuf` export requests into the OTLP/JSON
 * object shape (so the JSON validation/normalisation path can handle both encodings), and encode
 * `Export*ServiceResponse` bodies.
 *
 * Output shape of {@link decodeOtlpProtobuf} (the OTLP/JSON mapping, as protojson would print it):
 * - lowerCamelCase field names;
 * - `traceId` / `spanId` / `parentSpanId` as lowercase hex; other `bytes` (e.g. `bytesValue`) base64;
 * - 64-bit integers (`*TimeUnixNano`, `intValue`, `asInt`, `count`, `bucketCounts`, ...) as decimal
 *   strings; 32-bit integers and enums as JSON numbers; doubles as numbers, or "NaN" / "Infinity" /
 *   "-Infinity";
 * - proto3 default values (0, "", false, empty bytes, empty repeated fields) omitted, except for
 *   oneof members (AnyValue, NumberDataPoint/Exemplar value, Metric data) and proto3 `optional`
 *   fields (histogram `sum`/`min`/`max`), which are present exactly when they were on the wire;
 *   sub-messages present on the wire are emitted even when empty (e.g. `"status": {}`);
 * - unknown fields are dropped.
 */
import { decodeMessageToJson } from './decode.js';
import { OTLP_MESSAGES, getOtlpType, type OtlpSignal } from './schema.js';

export { ProtobufDecodeError, ProtobufStructureLimitError } from './errors.js';
export { OTLP_PROTO_VERSION, type OtlpSignal } from './schema.js';

function isSignal(value: unknown): value is OtlpSignal {
  return value === 'traces' || value === 'logs' || value === 'metrics';
}

/**
 * Decodes an OTLP/HTTP protobuf request body (`Export{Trace,Logs,Metrics}ServiceRequest`) into
 * the object its OTLP/JSON encoding would parse to. An empty body decodes to `{}`.
 *
 * @throws {ProtobufDecodeError} for malformed input (the only exception thrown for bad bytes).
 * @throws {ProtobufStructureLimitError} when it decodes to more than `maxStructures` messages and packed values.
 * @throws {TypeError} if called with an unknown signal or a non-binary body (a caller bug).
 */
export function decodeOtlpProtobuf(
  signal: OtlpSignal,
  bytes: Uint8Array | ArrayBuffer,
  maxStructures = Infinity,
): unknown {
  if (!isSignal(signal)) throw new TypeError(`unknown OTLP signal: ${String(signal)}`);
  return decodeMessageToJson(getOtlpType(OTLP_MESSAGES[signal].request), asBytes(bytes), maxStructures);
}

function asBytes(body: Uint8Array | ArrayBuffer): Uint8Array {
  if (body instanceof Uint8Array) return body;
  // ArrayBuffer from this or another realm (`instanceof` fails across realms).
  if (Object.prototype.toString.call(body) === '[object ArrayBuffer]') return new Uint8Array(body);
  throw new TypeError('OTLP protobuf body must be a Uint8Array or an ArrayBuffer');
}

/** Partial success of an export (OTLP `Export*PartialSuccess`). */
export interface OtlpPartialSuccess {
  /** Number of spans / log records / data points rejected (non-negative integer). */
  rejected: number;
  /** Human-readable explanation; may be empty. */
  errorMessage: string;
}

/**
 * Encodes the protobuf `Export{Trace,Logs,Metrics}ServiceResponse` for `signal`. Without
 * `partialSuccess` (full success) the message is empty, i.e. a zero-length body. The counter
 * goes to `rejected_spans`, `rejected_log_records` or `rejected_data_points` by signal.
 */
export function encodeOtlpProtobufResponse(
  signal: OtlpSignal,
  partialSuccess?: OtlpPartialSuccess,
): Uint8Array<ArrayBuffer> {
  if (!isSignal(signal)) throw new TypeError(`unknown OTLP signal: ${String(signal)}`);
  const { response, rejectedField } = OTLP_MESSAGES[signal];
  const type = getOtlpType(response);
  const message: Record<string, unknown> = {};
  if (partialSuccess !== undefined) {
    const { rejected, errorMessage } = partialSuccess;
    if (!Number.isSafeInteger(rejected) || rejected < 0) {
      throw new RangeError(`partialSuccess.rejected must be a non-negative integer, got ${String(rejected)}`);
    }
    if (typeof errorMessage !== 'string') throw new TypeError('partialSuccess.errorMessage must be a string');
    // proto3 canonical form: default values are not written.
    const partial: Record<string, unknown> = {};
    if (rejected !== 0) partial[rejectedField] = rejected;
    if (errorMessage !== '') partial['error_message'] = errorMessage;
    message['partial_success'] = partial;
  }
  // Copy into a fresh, exactly-sized ArrayBuffer (protobufjs may hand out a view of a shared pool).
  return new Uint8Array(type.encode(type.fromObject(message)).finish());
}

/** Exposed for tests and tooling: decode any schema message (e.g. a response) to OTLP/JSON. */
export function decodeOtlpMessage(fullName: string, bytes: Uint8Array): unknown {
  return decodeMessageToJson(getOtlpType(fullName), bytes);
}
