import type { Attributes } from '../core/types';
import { errorMessage, errorText, errorType, isErrorLike } from './error-info';
import { renderValue, truncate } from './render';
import { MAX_ATTRIBUTE_LENGTH } from './attributes';
import { debugIds } from './debug-ids';

/** A thrown value as OpenTelemetry's exception semantic conventions describe it. */
export interface ExceptionInfo {
  /** `exception.type`: the error's name (`TypeError`), or `Error` for a value that is not an error. */
  readonly type: string;
  /** `exception.message`. */
  readonly message: string;
  /** `exception.stacktrace`: head, frames and causes; absent for values that are not errors. */
  readonly stacktrace: string | undefined;
  /** `svc.exception.debug_ids`: `"<debug id> <script URL>"` of the stack's scripts with a known id; absent for none. */
  readonly debugIds?: readonly string[];
}

/**
 * Describes anything that can be thrown or rejected: errors (of any frame) with their name, message and stack;
 * strings as the message of an `Error`; any other value rendered as text (`{"code":42}`, `undefined`) as the message
 * of an `Error`. Never throws.
 */
export function describeException(value: unknown): ExceptionInfo {
  if (isErrorLike(value)) {
    // The whole stack, not the cut attribute: the frames of deep causes name scripts too.
    const stack = errorText(value);
    return {
      type: truncate(errorType(value), MAX_ATTRIBUTE_LENGTH),
      message: truncate(errorMessage(value), MAX_ATTRIBUTE_LENGTH),
      stacktrace: truncate(stack, MAX_ATTRIBUTE_LENGTH),
      debugIds: debugIds(stack),
    };
  }
  return { type: 'Error', message: renderValue(value, MAX_ATTRIBUTE_LENGTH), stacktrace: undefined };
}

/** `exception.type`, `exception.message` and (when known) `exception.stacktrace` and `svc.exception.debug_ids`. */
export function exceptionAttributes(info: ExceptionInfo): Attributes {
  const attributes: Attributes = { 'exception.type': info.type, 'exception.message': info.message };
  if (info.stacktrace !== undefined) attributes['exception.stacktrace'] = info.stacktrace;
  if (info.debugIds) attributes['svc.exception.debug_ids'] = info.debugIds;
  return attributes;
}

/** The log body of an exception: `TypeError: x is undefined`, or just the type when the message is empty. */
export function exceptionBody(info: ExceptionInfo): string {
  return info.message === '' ? info.type : `${info.type}: ${info.message}`;
}
