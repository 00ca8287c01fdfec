import { parseArgs } from 'node:util';
import { DEFAULT_AI_TIMEOUT_MS, type AiSettings } from './ai/settings';
import { DEFAULT_DATABASE_URL } from './db/connect';
import { nearestDatabase } from './db/location';
import { checkDemoSdk } from './demo/sdk-file';
import { readOidcSettings, type OidcSettings } from './auth/oidc/settings';
import { smtpUrlProblem, type MailSettings } from './auth/mailer';
import {
  MAX_RETENTION_DAYS,
  RETENTION_SIGNALS,
  SIGNAL_TEXT,
  signalVariable,
  type RetentionSignal,
} from './retention/signals';
import {
  DEFAULT_LIMITS,
  describeLimits,
  LIMIT_SIGNALS,
  limitFlag,
  limitsProblem,
  limitVariable,
  parseLimits,
  UNIT_TEXT,
  type LimitDefaults,
} from './limits/signals';
import { DEFAULT_SPIKES, type SpikeSettings } from './limits/spikes';
import { DETECTION_INTERVAL_MS, DETECTION_INTERVAL_RANGE } from './incidents/detect/schedule';
import { WINDOW_SECONDS } from './alerts/rule';
import { readReplayStorage, REPLAY_STORAGE_VARIABLES, type ReplayStorageSettings } from './replay/storage-settings';

/** Server settings. Each comes from a flag, else its `SVC_*` environment variable, else the default. */
export interface ServerConfig {
  host: string;
  port: number;
  databaseUrl: string;
  /** Base URL used in links the server hands out; when absent, http://<host>:<port> once listening. */
  publicUrl?: string;
  /** `*` (echo any origin) or exact origins allowed to send telemetry from a browser. */
  corsOrigins: '*' | string[];
  /** Largest request body in bytes, after decompression. */
  bodyLimit: number;
  /** Days telemetry is kept; 0 keeps it forever. The default of every signal in `retentionBySignal`. */
  retentionDays: number;
  /** The signals given their own server default (SVC_RETENTION_<SIGNAL>_DAYS); the others follow `retentionDays`. */
  retentionBySignal?: Partial<Record<RetentionSignal, number>>;
  /** Absolute path of the built SDK script (`dist/cdn/svc.min.js`); when set, the demo page is served at /demo/. */
  demoSdk?: string;
  /** Key for stored secrets and signed links (≥ 32 characters); default: a key file beside the database. */
  secretKey?: string;
  /** Lets notifications reach loopback and private addresses (local development, tests). Default false. */
  allowPrivateTargets?: boolean;
  /** The model root-cause analyses ask (docs/ai-fixes.md); without it they are heuristic. */
  ai?: AiSettings;
  /** Single sign-on through an OpenID provider (docs/teams.md, "Single sign-on"); without it, passwords only. */
  oidc?: OidcSettings;
  /** The SMTP server password resets and invitations are sent through; without it their links are only shown. */
  mail?: MailSettings;
  /** Ingest limits' server defaults per signal (SVC_LIMIT_<SIGNAL>); default DEFAULT_LIMITS. */
  limits?: LimitDefaults;
  /** Spike protection (SVC_SPIKE_MULTIPLE, SVC_SPIKE_MINUTES); default DEFAULT_SPIKES. */
  spikes?: SpikeSettings;
  /** Replay chunk payloads in an S3-compatible bucket (SVC_REPLAY_S3_*); without it, in the database. */
  replayStorage?: ReplayStorageSettings;
  /** Milliseconds between runs of incident detection and alert rule evaluation; default DETECTION_INTERVAL_MS. */
  detectionIntervalMs?: number;
  /** For tests: the shortest window an alert rule may have; default WINDOW_SECONDS.min (60). */
  alertMinWindowSeconds?: number;
}

export const CONFIG_DEFAULTS = {
  host: '127.0.0.1',
  port: 4318,
  databaseUrl: DEFAULT_DATABASE_URL,
  corsOrigins: '*',
  bodyLimit: 10 * 1024 * 1024,
  retentionDays: 30,
} as const;

/** Flag name, environment variable and description: the single table behind parsing and `--help`. */
export const CONFIG_OPTIONS = [
  ['host', 'SVC_HOST', `interface to listen on (default ${CONFIG_DEFAULTS.host}; 0.0.0.0 for all)`],
  ['port', 'SVC_PORT', `port (default ${CONFIG_DEFAULTS.port}, the OTLP/HTTP port)`],
  [
    'database-url',
    'SVC_DATABASE_URL',
    `SQLite file, :memory:, or postgres:// URL (default: the nearest .svc-data/svc.db here or in a folder above, else ${CONFIG_DEFAULTS.databaseUrl})`,
  ],
  ['public-url', 'SVC_PUBLIC_URL', 'base URL for links (default http://<host>:<port>)'],
  ['cors-origins', 'SVC_CORS_ORIGINS', 'comma-separated browser origins allowed to send telemetry, or * (default *)'],
  [
    'body-limit',
    'SVC_BODY_LIMIT',
    'largest request body after decompression: bytes, or with kb/mb suffix (default 10mb)',
  ],
  [
    'retention-days',
    'SVC_RETENTION_DAYS',
    `days telemetry is kept, 0 for ever (default ${CONFIG_DEFAULTS.retentionDays}); each signal's default below`,
  ],
  ...RETENTION_SIGNALS.map(
    (signal) =>
      [
        `retention-${signal}-days`,
        signalVariable(signal),
        `days ${SIGNAL_TEXT[signal]} are kept, 0 for ever (default SVC_RETENTION_DAYS); projects may set their own`,
      ] as const,
  ),
  ...LIMIT_SIGNALS.map(
    (signal) =>
      [
        limitFlag(signal),
        limitVariable(signal),
        `ingest limits of ${UNIT_TEXT[signal]}: rate=<per second per key>,burst=<n>,daily=<per project per UTC day>, 0 for none (default ${describeLimits(DEFAULT_LIMITS[signal])}); projects may set their own`,
      ] as const,
  ),
  [
    'spike-multiple',
    'SVC_SPIKE_MULTIPLE',
    `spike protection: throttle a project sending more than this many times its usual rate, 0 for off (default ${DEFAULT_SPIKES.multiple})`,
  ],
  ['spike-minutes', 'SVC_SPIKE_MINUTES', `minutes a spike is throttled (default ${DEFAULT_SPIKES.minutes})`],
  [
    'detection-interval-ms',
    'SVC_DETECTION_INTERVAL_MS',
    `milliseconds between runs of incident detection and alert rule evaluation, ${DETECTION_INTERVAL_RANGE.min} to ${DETECTION_INTERVAL_RANGE.max} (default ${DETECTION_INTERVAL_MS})`,
  ],
  [
    'alert-min-window-seconds',
    'SVC_ALERT_MIN_WINDOW_SECONDS',
    `for tests: the shortest window an alert rule may have, 1 to ${WINDOW_SECONDS.min} (default ${WINDOW_SECONDS.min})`,
  ],
  [
    'demo-sdk',
    'SVC_DEMO_SDK',
    'built SDK script (dist/cdn/svc.min.js): serves the SDK demo page at /demo/ (default off)',
  ],
  [
    'secret-key',
    'SVC_SECRET_KEY',
    'key (32+ characters) sealing channel secrets and signing links; processes sharing a database need the same (default: secret.key beside the database)',
  ],
  [
    'allow-private-targets',
    'SVC_ALLOW_PRIVATE_TARGETS',
    'true lets notifications reach loopback and private addresses, for local development (default false)',
  ],
  [
    'ai-base-url',
    'SVC_AI_BASE_URL',
    'OpenAI-compatible API root for issue analyses, e.g. https://api.openai.com/v1 (default off: heuristic analyses)',
  ],
  ['ai-api-key', 'SVC_AI_API_KEY', 'API key sent to SVC_AI_BASE_URL (default none: local servers such as Ollama)'],
  ['ai-model', 'SVC_AI_MODEL', 'model (Azure OpenAI: deployment) issue analyses ask; required with SVC_AI_BASE_URL'],
  ['ai-timeout', 'SVC_AI_TIMEOUT', `seconds one model call may take (default ${DEFAULT_AI_TIMEOUT_MS / 1000})`],
  [
    'oidc-issuer',
    'SVC_OIDC_ISSUER',
    'OpenID provider for single sign-on, its issuer URL; register <public URL>/auth/oidc/callback there (default off)',
  ],
  ['oidc-client-id', 'SVC_OIDC_CLIENT_ID', 'client id registered at the provider; required with SVC_OIDC_ISSUER'],
  ['oidc-client-secret', 'SVC_OIDC_CLIENT_SECRET', "the client's secret (default none: a public client, PKCE only)"],
  ['oidc-scopes', 'SVC_OIDC_SCOPES', 'scopes asked for, with openid (default "openid email profile")'],
  ['oidc-email-claim', 'SVC_OIDC_EMAIL_CLAIM', 'claim holding the e-mail address (default email)'],
  ['oidc-groups-claim', 'SVC_OIDC_GROUPS_CLAIM', 'claim holding the groups (default groups)'],
  [
    'oidc-group-roles',
    'SVC_OIDC_GROUP_ROLES',
    'comma-separated group=role, e.g. svc-admins=admin,devs=member; the highest matching role wins (default none)',
  ],
  [
    'oidc-default-role',
    'SVC_OIDC_DEFAULT_ROLE',
    'role of a new member whose groups map to none: owner, admin, member, viewer or none (refused) (default viewer)',
  ],
  [
    'oidc-allowed-domains',
    'SVC_OIDC_ALLOWED_DOMAINS',
    'comma-separated e-mail domains that may sign in through the provider (default any)',
  ],
  ['oidc-name', 'SVC_OIDC_NAME', 'label of the sign-in button (default "Single sign-on")'],
  [
    'smtp-url',
    'SVC_SMTP_URL',
    'smtp[s]://user:password@host:port sending password resets and invitations (default off: links only shown)',
  ],
  ['mail-from', 'SVC_MAIL_FROM', "sender address of the server's mail; required with SVC_SMTP_URL"],
  ['replay-s3-bucket', 'SVC_REPLAY_S3_BUCKET', 'S3 bucket replay chunk payloads go to (default none: the database)'],
  ['replay-s3-endpoint', 'SVC_REPLAY_S3_ENDPOINT', 'S3-compatible server, path-style (default AWS S3)'],
  ['replay-s3-region', 'SVC_REPLAY_S3_REGION', 'region of the bucket (default us-east-1)'],
  ['replay-s3-prefix', 'SVC_REPLAY_S3_PREFIX', 'key prefix of the objects, e.g. replays/ (default none)'],
] as const;

export class ConfigError extends Error {}

function parseSize(name: string, raw: string): number {
  const m = /^(\d+)\s*(b|kb|mb|gb)?$/i.exec(raw.trim());
  if (!m) throw new ConfigError(`${name} must be a size in bytes, optionally with kb, mb or gb (got "${raw}")`);
  const unit = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? 'b').toLowerCase() as 'b'];
  const n = Number(m[1]) * unit;
  if (n < 1024) throw new ConfigError(`${name} must be at least 1kb (got "${raw}")`);
  return n;
}

function parseInteger(name: string, raw: string, min: number, max: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max)
    throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  return n;
}

type Getter = (flag: (typeof CONFIG_OPTIONS)[number][0]) => [string, string | undefined];

/** The model settings: a base URL and a model together, or neither. */
function readAi(get: Getter): AiSettings | undefined {
  const [urlName, baseUrl] = get('ai-base-url');
  const [modelName, model] = get('ai-model');
  const [, apiKey] = get('ai-api-key');
  const [timeoutName, timeoutRaw] = get('ai-timeout');
  if (baseUrl === undefined && model === undefined) return undefined;
  if (baseUrl === undefined || model === undefined)
    throw new ConfigError(
      `${baseUrl === undefined ? modelName : urlName} needs ${baseUrl === undefined ? 'SVC_AI_BASE_URL' : 'SVC_AI_MODEL'} too`,
    );
  if (!/^https?:\/\/\S+$/.test(baseUrl)) throw new ConfigError(`${urlName} must be an http(s) URL (got "${baseUrl}")`);
  const timeoutMs =
    timeoutRaw === undefined ? DEFAULT_AI_TIMEOUT_MS : parseInteger(timeoutName, timeoutRaw, 1, 3600) * 1000;
  return { baseUrl: baseUrl.replace(/\/+$/, ''), model, timeoutMs, ...(apiKey ? { apiKey } : {}) };
}

/** The server's mail settings: an SMTP URL and a sender together, or neither. */
function readMail(get: Getter): MailSettings | undefined {
  const [urlName, smtpUrl] = get('smtp-url');
  const [fromName, from] = get('mail-from');
  if (smtpUrl === undefined && from === undefined) return undefined;
  if (smtpUrl === undefined) throw new ConfigError(`${fromName} needs SVC_SMTP_URL too`);
  if (from === undefined) throw new ConfigError(`${urlName} needs SVC_MAIL_FROM too`);
  const problem = smtpUrlProblem(smtpUrl);
  if (problem) throw new ConfigError(`${urlName} ${problem}`);
  if (!/^[^\s@]+@[^\s@]+$/.test(from)) throw new ConfigError(`${fromName} must be an e-mail address (got "${from}")`);
  return { smtpUrl, from };
}

/** Each signal's own retention default, where one is given (SVC_RETENTION_REPLAYS_DAYS, --retention-replays-days). */
function readRetention(get: Getter): Partial<Record<RetentionSignal, number>> | undefined {
  const given = RETENTION_SIGNALS.flatMap((signal) => {
    const [name, raw] = get(`retention-${signal}-days`);
    return raw === undefined ? [] : [[signal, parseInteger(name, raw, 0, MAX_RETENTION_DAYS)] as const];
  });
  return given.length === 0 ? undefined : Object.fromEntries(given);
}

/** Each signal's ingest limits (SVC_LIMIT_SPANS=rate=…,burst=…,daily=…), over the defaults; checked for sense. */
function readLimits(get: Getter, bodyLimit: number): LimitDefaults | undefined {
  const given = LIMIT_SIGNALS.flatMap((signal) => {
    const [name, raw] = get(limitFlag(signal));
    if (raw === undefined) return [];
    try {
      const limits = parseLimits(raw, DEFAULT_LIMITS[signal]);
      const problem = limitsProblem(signal, limits, bodyLimit);
      if (problem) throw new Error(problem);
      return [[signal, limits] as const];
    } catch (err) {
      throw new ConfigError(`${name}: ${(err as Error).message}`);
    }
  });
  return given.length === 0 ? undefined : { ...DEFAULT_LIMITS, ...Object.fromEntries(given) };
}

/** Spike protection's settings, where given. */
function readSpikes(get: Getter): SpikeSettings | undefined {
  const [multipleName, multiple] = get('spike-multiple');
  const [minutesName, minutes] = get('spike-minutes');
  if (multiple === undefined && minutes === undefined) return undefined;
  return {
    multiple: multiple === undefined ? DEFAULT_SPIKES.multiple : parseInteger(multipleName, multiple, 0, 1_000),
    minutes: minutes === undefined ? DEFAULT_SPIKES.minutes : parseInteger(minutesName, minutes, 1, 10_080),
  };
}

/**
 * How often detection and alert rule evaluation run, and the shortest rule window tests may ask for, where given
 * (docs/server.md, "Detection schedule").
 */
function readDetection(get: Getter): Pick<ServerConfig, 'detectionIntervalMs' | 'alertMinWindowSeconds'> {
  const [intervalName, interval] = get('detection-interval-ms');
  const [windowName, window] = get('alert-min-window-seconds');
  const { min, max } = DETECTION_INTERVAL_RANGE;
  return {
    ...(interval === undefined ? {} : { detectionIntervalMs: parseInteger(intervalName, interval, min, max) }),
    ...(window === undefined ? {} : { alertMinWindowSeconds: parseInteger(windowName, window, 1, WINDOW_SECONDS.min) }),
  };
}

/** Replay chunks in object storage: the SVC_REPLAY_S3_* settings, each from its flag or its variable. */
function readReplayObjects(get: Getter): ReplayStorageSettings | undefined {
  const flags = REPLAY_STORAGE_VARIABLES.map((v) => CONFIG_OPTIONS.find(([, envName]) => envName === v)![0]);
  const given = flags.map((flag) => get(flag));
  const byVariable = <T>(pick: (g: [string, string | undefined]) => T) =>
    Object.fromEntries(REPLAY_STORAGE_VARIABLES.map((v, i) => [v, pick(given[i]!)])) as Record<
      (typeof REPLAY_STORAGE_VARIABLES)[number],
      T
    >;
  const { settings, problem } = readReplayStorage(
    byVariable(([, value]) => value),
    byVariable(([name]) => name),
  );
  if (problem) throw new ConfigError(problem);
  return settings;
}

/** Single sign-on: the SVC_OIDC_* settings, each from its flag (--oidc-issuer …) or its variable. */
function readOidc(get: Getter): OidcSettings | undefined {
  const oidc = CONFIG_OPTIONS.filter(([, envName]) => envName.startsWith('SVC_OIDC_'));
  return readOidcSettings(Object.fromEntries(oidc.map(([flag, envName]) => [envName, get(flag)[1]])));
}

/**
 * Builds the configuration from flags (`--port 4318`) over environment variables over defaults; the default database is
 * the nearest one to `cwd` (db/location.ts), as the administration commands find it.
 */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): ServerConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: Object.fromEntries(CONFIG_OPTIONS.map(([flag]) => [flag, { type: 'string' as const }])),
    strict: true,
    allowPositionals: false,
  });
  const get: Getter = (flag) => {
    const [, envName] = CONFIG_OPTIONS.find(([f]) => f === flag)!;
    const v = (values as Record<string, string | undefined>)[flag];
    if (v !== undefined) return [`--${flag}`, v];
    const e = env[envName];
    return [envName, e === '' ? undefined : e];
  };
  const [, host = CONFIG_DEFAULTS.host] = get('host');
  const [portName, portRaw] = get('port');
  const port = portRaw === undefined ? CONFIG_DEFAULTS.port : parseInteger(portName, portRaw, 0, 65535);
  const [, databaseUrl = nearestDatabase(cwd).url] = get('database-url');
  const [corsName, corsRaw = CONFIG_DEFAULTS.corsOrigins] = get('cors-origins');
  const corsOrigins =
    corsRaw.trim() === '*'
      ? '*'
      : corsRaw
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean);
  if (corsOrigins !== '*') {
    for (const o of corsOrigins) {
      if (!/^https?:\/\/[^/\s]+$/.test(o))
        throw new ConfigError(`${corsName}: "${o}" is not an origin like https://app.example.com`);
    }
  }
  const [bodyName, bodyRaw] = get('body-limit');
  const [retName, retRaw] = get('retention-days');
  const [pubName, pub] = get('public-url');
  if (pub !== undefined && !/^https?:\/\/\S+$/.test(pub))
    throw new ConfigError(`${pubName} must be an http(s) URL (got "${pub}")`);
  const [demoName, demoRaw] = get('demo-sdk');
  const demo = demoRaw === undefined ? undefined : checkDemoSdk(demoRaw);
  if (demo && 'problem' in demo) throw new ConfigError(`${demoName}: ${demo.problem}`);
  const [keyName, secretKey] = get('secret-key');
  if (secretKey !== undefined && secretKey.length < 32)
    throw new ConfigError(`${keyName} must be at least 32 characters`);
  const [privateName, privateRaw] = get('allow-private-targets');
  if (privateRaw !== undefined && privateRaw !== 'true' && privateRaw !== 'false')
    throw new ConfigError(`${privateName} must be true or false (got "${privateRaw}")`);
  const ai = readAi(get);
  const oidc = readOidc(get);
  const mail = readMail(get);
  const retentionBySignal = readRetention(get);
  const bodyLimit = bodyRaw === undefined ? CONFIG_DEFAULTS.bodyLimit : parseSize(bodyName, bodyRaw);
  const limits = readLimits(get, bodyLimit);
  const spikes = readSpikes(get);
  const replayStorage = readReplayObjects(get);
  const detection = readDetection(get);
  return {
    host,
    port,
    ...(ai ? { ai } : {}),
    ...(oidc ? { oidc } : {}),
    ...(mail ? { mail } : {}),
    databaseUrl,
    ...(secretKey ? { secretKey } : {}),
    ...(privateRaw === 'true' ? { allowPrivateTargets: true } : {}),
    publicUrl: pub?.replace(/\/+$/, ''),
    corsOrigins,
    bodyLimit,
    ...(limits ? { limits } : {}),
    ...(spikes ? { spikes } : {}),
    ...(replayStorage ? { replayStorage } : {}),
    ...detection,
    retentionDays:
      retRaw === undefined ? CONFIG_DEFAULTS.retentionDays : parseInteger(retName, retRaw, 0, MAX_RETENTION_DAYS),
    ...(retentionBySignal ? { retentionBySignal } : {}),
    ...(demo ? { demoSdk: demo.path } : {}),
  };
}
