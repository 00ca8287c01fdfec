import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { AwsAccessError } from './errors';

/** Temporary credentials as the AWS SDK's clients take them (structurally `AwsCredentialIdentity`). */
export interface RoleCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

export interface AssumeRoleOptions {
  roleArn: string;
  externalId?: string;
  /** Region of the STS endpoint (the bucket's region: a regional STS endpoint, as AWS recommends). */
  region: string;
  /** STS endpoint override (`env.endpoints.sts`). */
  endpoint?: string;
}

/** The session name CloudTrail shows for every S3 read this server makes (`assumed-role/<role>/svc-cost-sync`). */
export const ROLE_SESSION_NAME = 'svc-cost-sync';
const SESSION_SECONDS = 3600;
/** Refresh this long before expiry, so no S3 request signed near the end of a session fails mid-read. */
const REFRESH_MARGIN_MS = 5 * 60_000;

/**
 * A credential provider for the S3 client: assumes the connection's role with STS (base credentials from the SDK's
 * default chain: environment, shared config, container or instance role) and reuses the session until it is about to
 * expire. Concurrent callers share one in-flight AssumeRole.
 */
export function assumeRoleCredentials(options: AssumeRoleOptions): () => Promise<RoleCredentials> {
  const sts = new STSClient({ region: options.region, ...(options.endpoint ? { endpoint: options.endpoint } : {}) });
  let current: RoleCredentials | undefined;
  let pending: Promise<RoleCredentials> | undefined;

  const assume = async (): Promise<RoleCredentials> => {
    try {
      const out = await sts.send(
        new AssumeRoleCommand({
          RoleArn: options.roleArn,
          RoleSessionName: ROLE_SESSION_NAME,
          DurationSeconds: SESSION_SECONDS,
          ...(options.externalId ? { ExternalId: options.externalId } : {}),
        }),
      );
      const c = out.Credentials;
      if (!c?.AccessKeyId || !c.SecretAccessKey) throw new Error('STS AssumeRole answered without credentials');
      return {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        sessionToken: c.SessionToken,
        expiration: c.Expiration,
      };
    } catch (err) {
      throw assumeRoleError(err, options.roleArn);
    }
  };

  return async () => {
    if (current && !expiresSoon(current)) return current;
    pending ??= assume().then(
      (creds) => {
        current = creds;
        pending = undefined;
        return creds;
      },
      (err: unknown) => {
        pending = undefined;
        throw err;
      },
    );
    return pending;
  };
}

function expiresSoon(creds: RoleCredentials): boolean {
  return creds.expiration !== undefined && creds.expiration.getTime() - Date.now() < REFRESH_MARGIN_MS;
}

/**
 * What a sync status can show when the role cannot be assumed. STS's message names the role; it is replaced by
 * `config.role_arn` because role details are never echoed back (the connection's owner knows which role they set).
 */
function assumeRoleError(err: unknown, roleArn: string): AwsAccessError {
  const name = err instanceof Error ? err.name : 'Error';
  const message = (err instanceof Error ? err.message : String(err)).split(roleArn).join('config.role_arn');
  const hint =
    name === 'AccessDenied'
      ? ": the role's trust policy must allow this server's AWS principal to call sts:AssumeRole (with the external id, when set)"
      : '';
  return new AwsAccessError(`could not assume config.role_arn with STS (${name}: ${message})${hint}`, { cause: err });
}
