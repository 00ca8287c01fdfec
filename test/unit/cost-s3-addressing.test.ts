import { describe, expect, it } from 'vitest';
import { s3PathStyle } from '../../server/src/cost/sources/aws/s3-addressing';

describe('S3 addressing', () => {
  it('is virtual-hosted for AWS itself, path-style for any custom endpoint', () => {
    expect(s3PathStyle({}, {})).toBe(false);
    expect(s3PathStyle({ s3: 'http://127.0.0.1:9000' }, {})).toBe(true);
    expect(s3PathStyle({}, { AWS_ENDPOINT_URL_S3: 'http://minio:9000' })).toBe(true);
    expect(s3PathStyle({}, { AWS_ENDPOINT_URL: 'http://localhost:4566' })).toBe(true);
    // The SDK ignores the endpoint variables when told to; so does the addressing.
    expect(
      s3PathStyle({}, { AWS_ENDPOINT_URL_S3: 'http://minio:9000', AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: 'true' }),
    ).toBe(false);
  });

  it('does as AWS_S3_FORCE_PATH_STYLE says when set, and refuses another value', () => {
    expect(s3PathStyle({}, { AWS_S3_FORCE_PATH_STYLE: 'true' })).toBe(true);
    expect(s3PathStyle({}, { AWS_S3_FORCE_PATH_STYLE: '1' })).toBe(true);
    expect(s3PathStyle({ s3: 'http://127.0.0.1:9000' }, { AWS_S3_FORCE_PATH_STYLE: 'FALSE' })).toBe(false);
    expect(s3PathStyle({}, { AWS_S3_FORCE_PATH_STYLE: '' })).toBe(false);
    expect(() => s3PathStyle({}, { AWS_S3_FORCE_PATH_STYLE: 'yes' })).toThrow(
      'AWS_S3_FORCE_PATH_STYLE must be true or false, not "yes"',
    );
  });
});
