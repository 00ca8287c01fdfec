import type { SdkCore } from '../core/core';
import type { Attributes } from '../core/types';
import { MAX_ATTRIBUTES, toAttributes } from './attributes';

/** What a record takes from the optional context of a manual call. */
export interface RecordContext {
  /** `context.sessionId` when given, else the SDK's current session. */
  readonly sessionId: string;
  /** `context.attrs` converted to attributes. */
  readonly attributes: Attributes;
}

/**
 * Reads the optional `{ sessionId, attrs }` context of a manual call. Plain JavaScript callers can pass anything, so
 * nothing is trusted: a context that is not an object, a `sessionId` that is not a non-empty string, or `attrs` that
 * is not an object is ignored with a debug warning naming `method`, and the record is still made.
 */
export function readCallContext(core: SdkCore, context: unknown, method: string): RecordContext {
  let sessionId: string | undefined;
  let attributes: Attributes = {};
  if (typeof context === 'object' && context !== null) {
    const { sessionId: givenSession, attrs } = context as { sessionId?: unknown; attrs?: unknown };
    if (typeof givenSession === 'string' && givenSession !== '') sessionId = givenSession;
    else if (givenSession !== undefined)
      core.debug.warn(`${method}: context.sessionId must be a non-empty string; using the current session.`);
    if (typeof attrs === 'object' && attrs !== null && !Array.isArray(attrs)) {
      const converted = toAttributes(attrs);
      attributes = converted.attributes;
      if (converted.dropped > 0) {
        core.debug.warn(
          `${method}: ${converted.dropped} attribute(s) of context.attrs dropped (empty names, or more than ${MAX_ATTRIBUTES}).`,
        );
      }
    } else if (attrs !== undefined && attrs !== null) {
      core.debug.warn(`${method}: context.attrs must be an object of key-value pairs; ignored.`);
    }
  } else if (context !== undefined && context !== null) {
    core.debug.warn(`${method}: the context must be { sessionId, attrs }; ignored.`);
  }
  return { sessionId: sessionId ?? core.session.id(), attributes };
}
