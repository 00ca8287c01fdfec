import { invalid } from '../../../shared/domain-errors';
import { isObject } from '../../../json/read';

/**
 * An AWS cost connection: the bucket and prefix AWS delivers Cost and Usage Reports or Data Exports to, and the
 * read-only role the server assumes to read them. The role ARN and external id are secrets: they are sealed at rest and
 * never shown (the issue: role details are never echoed back); bucket, prefix and region are shown.
 */
export interface AwsConfig {
  cur_bucket: string;
  /** `''` or a prefix ending in `/` (AWS's report or export prefix; see layout.ts for what lies under it). */
  cur_prefix: string;
  /** The bucket's region; requests follow S3's redirect when it is wrong. */
  region: string;
}

export interface AwsSecrets {
  role_arn: string;
  external_id?: string;
}

const FIELDS = new Set(['role_arn', 'cur_bucket', 'cur_prefix', 'external_id', 'region']);

/**
 * IAM role ARN in any partition (`aws`, `aws-cn`, `aws-us-gov`, the ISO ones): a 12-digit account, an optional path
 * (`/a/b/`, printable ASCII) and a role name of up to 64 characters from IAM's name alphabet.
 */
const ROLE_ARN = /^arn:aws(?:-[a-z]+){0,2}:iam::\d{12}:role\/(?:[\x21-\x7e]{1,510}\/)?[\w+=,.@-]{1,64}$/;

/** STS AssumeRole's ExternalId constraint. */
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;

const REGION = /^[a-z]{2}(?:-[a-z]+)+-\d{1,2}$/;

export const DEFAULT_REGION = 'us-east-1';

/** Parses a connection's `config`, naming the offending field as `config.<field>` in every error. */
export function parseAwsConfig(raw: unknown): { config: AwsConfig; secrets: AwsSecrets } {
  if (!isObject(raw)) throw invalid('config must be an object', 'invalid_request', { field: 'config' });
  const unknown = Object.keys(raw).filter((k) => !FIELDS.has(k));
  if (unknown.length > 0) {
    const names = unknown.map((k) => `config.${k}`);
    throw invalid(
      `${names.join(', ')} ${unknown.length === 1 ? 'is not a' : 'are not'} known AWS field${unknown.length === 1 ? '' : 's'} (known: ${[...FIELDS].join(', ')})`,
      'invalid_request',
      {
        field: names[0],
      },
    );
  }

  const roleArn = requiredString(raw.role_arn, 'role_arn');
  if (!ROLE_ARN.test(roleArn) || roleArn.length > 2048) {
    throw fieldError('role_arn', 'must be an IAM role ARN such as arn:aws:iam::123456789012:role/svc-cost-read');
  }
  const bucket = requiredString(raw.cur_bucket, 'cur_bucket');
  const bucketProblem = s3BucketNameProblem(bucket);
  if (bucketProblem) throw fieldError('cur_bucket', `must be an S3 bucket name: ${bucketProblem}`);
  const prefix = normalizePrefix(raw.cur_prefix);

  const secrets: AwsSecrets = { role_arn: roleArn };
  if (raw.external_id !== undefined && raw.external_id !== null) {
    if (typeof raw.external_id !== 'string' || !EXTERNAL_ID.test(raw.external_id)) {
      throw fieldError('external_id', 'must be 2 to 1224 characters of letters, digits and +=,.@:/-_');
    }
    secrets.external_id = raw.external_id;
  }

  let region = DEFAULT_REGION;
  if (raw.region !== undefined && raw.region !== null) {
    if (typeof raw.region !== 'string' || !REGION.test(raw.region)) {
      throw fieldError('region', 'must be an AWS region code such as us-east-1');
    }
    region = raw.region;
  }
  return { config: { cur_bucket: bucket, cur_prefix: prefix, region }, secrets };
}

/** What the API shows of a connection: where the reports are, never who reads them. */
export function publicAwsConfig(config: AwsConfig): Record<string, unknown> {
  return { cur_bucket: config.cur_bucket, cur_prefix: config.cur_prefix, region: config.region };
}

function fieldError(field: string, rule: string) {
  return invalid(`config.${field} ${rule}`, 'invalid_request', { field: `config.${field}` });
}

function requiredString(v: unknown, field: string): string {
  if (v === undefined || v === null || v === '') throw fieldError(field, 'is required');
  if (typeof v !== 'string') throw fieldError(field, 'must be a string');
  return v;
}

/**
 * `cur_prefix` as S3 keys use it: no leading slash (keys have none; consoles often show one), a trailing slash when
 * non-empty (the shape SPEC 2.1 uses, so `cur` and `cur/` name the same folder). Required like the other AWS fields
 * (SPEC 2.1), but may be empty: reports directly at the bucket root.
 */
function normalizePrefix(v: unknown): string {
  if (v === undefined || v === null) throw fieldError('cur_prefix', 'is required ("" for reports at the bucket root)');
  if (typeof v !== 'string') throw fieldError('cur_prefix', 'must be a string');
  // Control characters cannot be typed into AWS's prefix field and would only hide a copy-paste accident.
  if (/[\x00-\x1f\x7f]/.test(v)) throw fieldError('cur_prefix', 'must not contain control characters');
  const trimmed = v.replace(/^\/+/, '');
  if (trimmed === '') return '';
  const prefix = trimmed.endsWith('/') ? trimmed : `${trimmed}/`;
  if (Buffer.byteLength(prefix) > 1024) throw fieldError('cur_prefix', 'must be at most 1024 bytes (the S3 key limit)');
  return prefix;
}

/** The general-purpose bucket naming rules (docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html). */
function s3BucketNameProblem(name: string): string | null {
  if (name.length < 3 || name.length > 63) return '3 to 63 characters';
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(name)) {
    return 'lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit';
  }
  if (name.includes('..')) return 'no two adjacent dots';
  if (/^\d{1,3}(?:\.\d{1,3}){3}$/.test(name)) return 'not formatted as an IP address';
  if (/^(?:xn--|sthree-|amzn-s3-demo-)/.test(name)) return 'no reserved prefix (xn--, sthree-, amzn-s3-demo-)';
  if (/(?:-s3alias|--ol-s3|\.mrap|--x-s3|--table-s3)$/.test(name))
    return 'no reserved suffix (-s3alias, --ol-s3, .mrap, --x-s3, --table-s3)';
  return null;
}
