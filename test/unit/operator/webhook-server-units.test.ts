/**
 * The webhook server's decisions that need no socket (operator/src/admission/server.ts): what a request to the webhook
 * path must be, the answers to the probes, and the body limits. The server itself: test/integration/operator/webhook.
 */
import { describe, expect, it } from 'vitest';
import {
  bodyLimits,
  DEFAULT_DRAIN_BYTES,
  DEFAULT_DRAIN_MS,
  DEFAULT_MAX_BODY_BYTES,
  otherPathAnswer,
  requestProblem,
} from '../../../operator/src/admission/server';

describe('requestProblem', () => {
  it('takes a POST of JSON (any case, with parameters) and names what else is wrong', () => {
    expect(requestProblem('POST', 'application/json')).toBeUndefined();
    expect(requestProblem('POST', 'Application/JSON; charset=utf-8')).toBeUndefined();
    expect(requestProblem('GET', 'application/json')).toBe('method GET is not POST');
    expect(requestProblem(undefined, 'application/json')).toBe('method (none) is not POST');
    expect(requestProblem('POST', 'text/plain')).toBe('content type "text/plain" is not application/json');
    expect(requestProblem('POST', undefined)).toBe('content type "" is not application/json');
  });
});

describe('otherPathAnswer', () => {
  it('answers the liveness probe always, the readiness probe as ready says, anything else 404', () => {
    expect(otherPathAnswer('/healthz', false)).toEqual([200, 'ok\n']);
    expect(otherPathAnswer('/readyz', true)).toEqual([200, 'ok\n']);
    expect(otherPathAnswer('/readyz', false)).toEqual([503, 'not ready\n']);
    expect(otherPathAnswer('/metrics', true)).toEqual([404, 'not found\n']);
  });
});

describe('bodyLimits', () => {
  it('defaults, and never drains less than the limit it reads', () => {
    expect(bodyLimits({})).toEqual({
      maxBytes: DEFAULT_MAX_BODY_BYTES,
      drainBytes: DEFAULT_DRAIN_BYTES,
      drainMs: DEFAULT_DRAIN_MS,
    });
    expect(bodyLimits({ maxBodyBytes: 100, drainBytes: 10, drainMs: 50 })).toEqual({
      maxBytes: 100,
      drainBytes: 100,
      drainMs: 50,
    });
  });
});
