/** Replay chunks in an S3-compatible bucket (SVC_REPLAY_S3_*); absent, payloads stay in the database. */
export interface ReplayStorageSettings {
  bucket: string;
  /** An S3-compatible server (MinIO, Ceph, R2…), addressed path-style; absent, AWS S3 of `region`. */
  endpoint?: string;
  region: string;
  /** Empty, or ending in `/`: every object's key starts with it. */
  prefix: string;
}

export const REPLAY_STORAGE_VARIABLES = [
  'SVC_REPLAY_S3_BUCKET',
  'SVC_REPLAY_S3_ENDPOINT',
  'SVC_REPLAY_S3_REGION',
  'SVC_REPLAY_S3_PREFIX',
] as const;
type Variable = (typeof REPLAY_STORAGE_VARIABLES)[number];

const DEFAULT_REGION = 'us-east-1';
/** S3's bucket naming rules (lower case, digits, dots and hyphens, 3 to 63 characters). */
const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const REGION = /^[a-z0-9-]{1,64}$/;
const PREFIX = /^[A-Za-z0-9!_.*'()/-]{0,512}$/;

/**
 * The settings from each variable's value (a flag's or the environment's); a problem names its variable (or flag, as
 * `names` says). Credentials are none of these: the AWS SDK's default chain finds them (AWS_ACCESS_KEY_ID and
 * AWS_SECRET_ACCESS_KEY, a profile, an instance role), so the server never holds or prints them.
 */
export function readReplayStorage(
  values: Record<Variable, string | undefined>,
  names: Record<Variable, string>,
): { settings?: ReplayStorageSettings; problem?: string } {
  const { SVC_REPLAY_S3_BUCKET: bucket, SVC_REPLAY_S3_ENDPOINT: endpoint } = values;
  const { SVC_REPLAY_S3_REGION: region = DEFAULT_REGION, SVC_REPLAY_S3_PREFIX: rawPrefix = '' } = values;
  if (bucket === undefined) {
    const given = REPLAY_STORAGE_VARIABLES.find((v) => values[v] !== undefined);
    return given ? { problem: `${names[given]} needs SVC_REPLAY_S3_BUCKET too` } : {};
  }
  if (!BUCKET.test(bucket))
    return { problem: `${names.SVC_REPLAY_S3_BUCKET} must be an S3 bucket name (got "${bucket}")` };
  if (endpoint !== undefined && !/^https?:\/\/[^/\s]+\/?$/.test(endpoint))
    return { problem: `${names.SVC_REPLAY_S3_ENDPOINT} must be an http(s) URL of a server (got "${endpoint}")` };
  if (!REGION.test(region)) return { problem: `${names.SVC_REPLAY_S3_REGION} must be a region name (got "${region}")` };
  if (!PREFIX.test(rawPrefix) || rawPrefix.startsWith('/') || rawPrefix.includes('//'))
    return {
      problem: `${names.SVC_REPLAY_S3_PREFIX} must be a key prefix such as "replays/" (no leading or double /, got "${rawPrefix}")`,
    };
  const prefix = rawPrefix === '' || rawPrefix.endsWith('/') ? rawPrefix : `${rawPrefix}/`;
  return {
    settings: { bucket, region, prefix, ...(endpoint !== undefined && { endpoint: endpoint.replace(/\/$/, '') }) },
  };
}

/** The settings from the environment alone, for the administration commands (which take no SVC_REPLAY_S3_* flags). */
export function replayStorageFromEnv(env: NodeJS.ProcessEnv): ReplayStorageSettings | undefined {
  const values = Object.fromEntries(
    REPLAY_STORAGE_VARIABLES.map((v) => [v, env[v] === '' ? undefined : env[v]]),
  ) as Record<Variable, string | undefined>;
  const names = Object.fromEntries(REPLAY_STORAGE_VARIABLES.map((v) => [v, v])) as Record<Variable, string>;
  const { settings, problem } = readReplayStorage(values, names);
  if (problem) throw new Error(problem);
  return settings;
}
