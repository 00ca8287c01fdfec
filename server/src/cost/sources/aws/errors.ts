/**
 * A failure to reach the billing data (role, bucket, permissions) whose message already says where and what to fix:
 * callers pass it on unchanged instead of wrapping it again in the name of whatever call needed the access.
 */
export class AwsAccessError extends Error {
  override name = 'AwsAccessError';
}

export function isPassThrough(err: unknown): err is Error {
  return err instanceof AwsAccessError || (err instanceof Error && err.name === 'AbortError');
}
