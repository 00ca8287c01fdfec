import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack refuses to let a signed request be replayed later than this; neither do we. */
export const MAX_REQUEST_AGE_MS = 5 * 60 * 1000;

export interface SignedRequest {
  /** `X-Slack-Request-Timestamp`: Unix seconds. */
  timestamp: string | undefined;
  /** `X-Slack-Signature`: `v0=` and the hex HMAC. */
  signature: string | undefined;
  /** The body exactly as received: the signature covers its bytes, not a re-encoding of the parsed form. */
  rawBody: string;
}

/** The `v0` signature of a request body: `v0=` + hex(HMAC-SHA256(secret, `v0:<timestamp>:<body>`)). */
export function chatSignature(signingSecret: string, timestamp: string, rawBody: string): string {
  return `v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:${rawBody}`).digest('hex')}`;
}

/**
 * Checks that a request comes from the chat app (signed with its signing secret) and is recent. Returns why not, or
 * undefined when it does. The comparison takes the same time whichever byte differs.
 */
export function signatureProblem(request: SignedRequest, signingSecret: string, now: number): string | undefined {
  const { timestamp, signature } = request;
  if (!timestamp || !signature) return 'X-Slack-Request-Timestamp and X-Slack-Signature are required';
  if (!/^\d+$/.test(timestamp) || Math.abs(now - Number(timestamp) * 1000) > MAX_REQUEST_AGE_MS) {
    return 'X-Slack-Request-Timestamp is more than 5 minutes away from the server clock';
  }
  const expected = Buffer.from(chatSignature(signingSecret, timestamp, request.rawBody));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected)
    ? undefined
    : 'X-Slack-Signature does not match the request';
}
