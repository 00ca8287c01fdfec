import { describe, expect, it } from 'vitest';
import { ApiError, refusalOf } from '../../../server/src/http/errors';
import { conflict, DomainError, invalid, notFound } from '../../../server/src/shared/domain-errors';

describe('domain errors become answers in one place', () => {
  it('maps each kind to its status, keeping code, message and details', () => {
    expect(refusalOf(notFound('no issue abc'))).toMatchObject({
      status: 404,
      code: 'not_found',
      message: 'no issue abc',
    });
    expect(refusalOf(invalid('limit: must be at most 200', 'invalid_request', { field: 'limit' }))).toMatchObject({
      status: 400,
      details: { field: 'limit' },
    });
    expect(refusalOf(conflict('name_taken', 'an app named web exists'))).toMatchObject({
      status: 409,
      code: 'name_taken',
    });
    expect(refusalOf(new DomainError('upstream_timeout', 'github_timeout', 'GitHub did not answer'))?.status).toBe(504);
  });

  it('says when to retry a busy answer, in whole seconds', () => {
    const answer = refusalOf(new DomainError('busy', 'rate_limited', 'spans: over 100/s', undefined, 1.2));
    expect(answer).toMatchObject({ status: 429, headers: { 'Retry-After': '2' } });
  });

  it('passes ApiError through and is undefined for anything else', () => {
    const api = new ApiError(401, 'unauthorized', 'no key');
    expect(refusalOf(api)).toBe(api);
    expect(refusalOf(new Error('boom'))).toBeUndefined();
    expect(refusalOf(undefined)).toBeUndefined();
  });
});
