/**
 * Thrown by {@link decodeOtlpProtobuf} for any body it cannot decode: truncated or garbage bytes,
 * wrong wire types, invalid UTF-8 in a string field, nesting deeper than the limit. Callers map it
 * to HTTP 400. No other exception type escapes the decoder.
 */
export class ProtobufDecodeError extends Error {
  override readonly name = 'ProtobufDecodeError';
  /** Byte offset in the request body at which decoding failed, when known. */
  readonly offset: number | undefined;

  constructor(message: string, options?: { offset?: number; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.offset = options?.offset;
  }
}

/** Thrown by {@link decodeOtlpProtobuf} when a body decodes to more messages and packed values than allowed. */
export class ProtobufStructureLimitError extends Error {
  override readonly name = 'ProtobufStructureLimitError';

  constructor(readonly max: number) {
    super(`the body holds more than ${max} protobuf messages and packed values`);
  }
}
