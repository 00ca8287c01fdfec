import type { BodyCapture, XhrResponse } from './body-read';
import type { BodyModule } from './load-bodies';
import { SHARED_HELPERS } from './shared-helpers';

/**
 * A body as a fetch or XHR hook hands it over, read once the body module is loaded. Whatever must be taken at the call
 * is taken when the source is made (a clone of a fetch message, the finished XHR's response); the app's own request
 * and response are never delayed or altered.
 */
export type BodySource = (bodies: BodyModule) => BodyCapture;

/** A body held in memory: what the app passed to `fetch` or `XMLHttpRequest.send`. */
export const valueBody =
  (body: unknown): BodySource =>
  (bodies) =>
    bodies.recordBodyValue(body, SHARED_HELPERS);

/** The body of a fetch `Request` or `Response`, cloned now, before the app or fetch consumes the original. */
export function streamBody(message: Request | Response): BodySource {
  const copy = message.clone();
  return (bodies) => bodies.recordStreamBody(copy, SHARED_HELPERS);
}

/** The response of a finished XMLHttpRequest, read off it at `loadend` (before the app can reuse it). */
export const xhrResponseBody =
  (response: XhrResponse): BodySource =>
  (bodies) =>
    bodies.recordXhrResponse(response, SHARED_HELPERS);
