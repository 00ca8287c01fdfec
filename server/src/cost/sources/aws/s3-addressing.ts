import type { CostEndpoints } from '../types';

type Environment = Readonly<Record<string, string | undefined>>;

/**
 * The S3 endpoint the AWS SDK takes from the environment (AWS's service-specific endpoint variables), unless
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` tells it not to.
 */
function environmentS3Endpoint(env: Environment): string | undefined {
  if (env.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS?.trim().toLowerCase() === 'true') return undefined;
  return env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL || undefined;
}

/**
 * Whether S3 is addressed path-style (`http://host:9000/bucket/key`) rather than virtual-hosted (`bucket.host`). The SDK
 * puts the bucket in the host name by default, which only AWS's own endpoints resolve: S3-compatible stores (MinIO,
 * Ceph, LocalStack) on `localhost:9000` or `minio:9000` fail on DNS (`acme-billing.localhost`). So any custom endpoint —
 * `startServer`'s `cost.endpoints.s3`, or `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL` — means path-style, and
 * `AWS_S3_FORCE_PATH_STYLE` (`true`/`false`) decides when set: for an endpoint the SDK reads from a shared config file,
 * or a custom endpoint that does serve virtual-hosted buckets. Throws on another value, so a typo stops the server at
 * start rather than every sync later.
 */
export function s3PathStyle(endpoints: CostEndpoints, env: Environment): boolean {
  const setting = env.AWS_S3_FORCE_PATH_STYLE?.trim().toLowerCase();
  if (setting === 'true' || setting === '1') return true;
  if (setting === 'false' || setting === '0') return false;
  if (setting !== undefined && setting !== '') {
    throw new Error(`AWS_S3_FORCE_PATH_STYLE must be true or false, not "${env.AWS_S3_FORCE_PATH_STYLE}"`);
  }
  return endpoints.s3 !== undefined || environmentS3Endpoint(env) !== undefined;
}
