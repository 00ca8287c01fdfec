import { parseArgs } from 'node:util';
import { DEFAULT_DATABASE_URL } from './db/connect';
import { checkDemoSdk } from './demo/sdk-file';

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
  /** Days telemetry is kept; 0 keeps it forever. */
  retentionDays: number;
  /** Absolute path of the built SDK script (`dist/cdn/svc.min.js`); when set, the demo page is served at /demo/. */
  demoSdk?: string;
  /** Key for stored secrets and signed links (≥ 32 characters); default: a key file beside the database. */
  secretKey?: string;
  /** Lets notifications reach loopback and private addresses (local development, tests). Default false. */
  allowPrivateTargets?: boolean;
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
  ['database-url', 'SVC_DATABASE_URL', `SQLite file, :memory:, or postgres:// URL (default ${CONFIG_DEFAULTS.databaseUrl})`],
  ['public-url', 'SVC_PUBLIC_URL', 'base URL for links (default http://<host>:<port>)'],
  ['cors-origins', 'SVC_CORS_ORIGINS', 'comma-separated browser origins allowed to send telemetry, or * (default *)'],
  ['body-limit', 'SVC_BODY_LIMIT', 'largest request body after decompression: bytes, or with kb/mb suffix (default 10mb)'],
  ['retention-days', 'SVC_RETENTION_DAYS', `days telemetry is kept, 0 for ever (default ${CONFIG_DEFAULTS.retentionDays})`],
  ['demo-sdk', 'SVC_DEMO_SDK', 'built SDK script (dist/cdn/svc.min.js): serves the SDK demo page at /demo/ (default off)'],
  ['secret-key', 'SVC_SECRET_KEY', 'key (32+ characters) sealing channel secrets and signing links; processes sharing a database need the same (default: secret.key beside the database)'],
  ['allow-private-targets', 'SVC_ALLOW_PRIVATE_TARGETS', 'true lets notifications reach loopback and private addresses, for local development (default false)'],
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
  if (!/^\d+$/.test(raw.trim()) || n < min || n > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
  return n;
}

/** Builds the configuration from flags (`--port 4318`) over environment variables over defaults. */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ServerConfig {
  const { values } = parseArgs({
    args: [...argv],
    options: Object.fromEntries(CONFIG_OPTIONS.map(([flag]) => [flag, { type: 'string' as const }])),
    strict: true,
    allowPositionals: false,
  });
  const get = (flag: (typeof CONFIG_OPTIONS)[number][0]): [string, string | undefined] => {
    const [, envName] = CONFIG_OPTIONS.find(([f]) => f === flag)!;
    const v = (values as Record<string, string | undefined>)[flag];
    if (v !== undefined) return [`--${flag}`, v];
    const e = env[envName];
    return [envName, e === '' ? undefined : e];
  };
  const [, host = CONFIG_DEFAULTS.host] = get('host');
  const [portName, portRaw] = get('port');
  const port = portRaw === undefined ? CONFIG_DEFAULTS.port : parseInteger(portName, portRaw, 0, 65535);
  const [, databaseUrl = CONFIG_DEFAULTS.databaseUrl] = get('database-url');
  const [corsName, corsRaw = CONFIG_DEFAULTS.corsOrigins] = get('cors-origins');
  const corsOrigins = corsRaw.trim() === '*' ? '*' : corsRaw.split(',').map((o) => o.trim()).filter(Boolean);
  if (corsOrigins !== '*') {
    for (const o of corsOrigins) {
      if (!/^https?:\/\/[^/\s]+$/.test(o)) throw new ConfigError(`${corsName}: "${o}" is not an origin like https://app.example.com`);
    }
  }
  const [bodyName, bodyRaw] = get('body-limit');
  const [retName, retRaw] = get('retention-days');
  const [pubName, pub] = get('public-url');
  if (pub !== undefined && !/^https?:\/\/\S+$/.test(pub)) throw new ConfigError(`${pubName} must be an http(s) URL (got "${pub}")`);
  const [demoName, demoRaw] = get('demo-sdk');
  const demo = demoRaw === undefined ? undefined : checkDemoSdk(demoRaw);
  if (demo && 'problem' in demo) throw new ConfigError(`${demoName}: ${demo.problem}`);
  const [keyName, secretKey] = get('secret-key');
  if (secretKey !== undefined && secretKey.length < 32) throw new ConfigError(`${keyName} must be at least 32 characters`);
  const [privateName, privateRaw] = get('allow-private-targets');
  if (privateRaw !== undefined && privateRaw !== 'true' && privateRaw !== 'false') throw new ConfigError(`${privateName} must be true or false (got "${privateRaw}")`);
  return {
    host,
    port,
    databaseUrl,
    ...(secretKey ? { secretKey } : {}),
    ...(privateRaw === 'true' ? { allowPrivateTargets: true } : {}),
    publicUrl: pub?.replace(/\/+$/, ''),
    corsOrigins,
    bodyLimit: bodyRaw === undefined ? CONFIG_DEFAULTS.bodyLimit : parseSize(bodyName, bodyRaw),
    retentionDays: retRaw === undefined ? CONFIG_DEFAULTS.retentionDays : parseInteger(retName, retRaw, 0, 36500),
    ...(demo ? { demoSdk: demo.path } : {}),
  };
}
