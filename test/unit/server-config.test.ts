import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../server/src/config';

describe('server configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig([], {})).toEqual({
      host: '127.0.0.1',
      port: 4318,
      databaseUrl: './.svc-data/svc.db',
      publicUrl: undefined,
      corsOrigins: '*',
      bodyLimit: 10 * 1024 * 1024,
      retentionDays: 30,
    });
  });

  it('reads SVC_* variables, and flags win over them', () => {
    const env = {
      SVC_HOST: '0.0.0.0',
      SVC_PORT: '9000',
      SVC_DATABASE_URL: 'postgres://u@db/svc',
      SVC_PUBLIC_URL: 'https://ingest.example.com/',
      SVC_CORS_ORIGINS: 'https://a.example, https://b.example:8443',
      SVC_BODY_LIMIT: '2mb',
      SVC_RETENTION_DAYS: '7',
    };
    expect(loadConfig([], env)).toEqual({
      host: '0.0.0.0',
      port: 9000,
      databaseUrl: 'postgres://u@db/svc',
      publicUrl: 'https://ingest.example.com',
      corsOrigins: ['https://a.example', 'https://b.example:8443'],
      bodyLimit: 2 * 1024 * 1024,
      retentionDays: 7,
    });
    expect(loadConfig(['--port', '1234', '--body-limit', '512kb'], env)).toMatchObject({
      port: 1234,
      bodyLimit: 512 * 1024,
    });
  });

  it("reads each signal's retention default from SVC_RETENTION_<SIGNAL>_DAYS or its flag; the others follow SVC_RETENTION_DAYS", () => {
    const env = { SVC_RETENTION_DAYS: '60', SVC_RETENTION_REPLAYS_DAYS: '14', SVC_RETENTION_AUDIT_DAYS: '0' };
    expect(loadConfig(['--retention-metrics-days', '90'], env)).toMatchObject({
      retentionDays: 60,
      retentionBySignal: { replays: 14, metrics: 90, audit: 0 },
    });
    expect(loadConfig([], {}).retentionBySignal).toBeUndefined();
  });

  it("reads a signal's ingest limits from SVC_LIMIT_<SIGNAL> or its flag over the defaults, and spike protection", () => {
    const config = loadConfig(['--limit-replay-bytes', 'daily=0', '--spike-multiple', '0'], {
      SVC_LIMIT_SPANS: 'rate=2000,burst=20000',
      SVC_SPIKE_MINUTES: '15',
    });
    expect(config.limits).toMatchObject({
      spans: { rate: 2000, burst: 20000, daily: 100_000_000 },
      replay_bytes: { rate: 20_000_000, daily: 0 },
      logs: { rate: 50_000 },
    });
    expect(config.spikes).toEqual({ multiple: 0, minutes: 15 });
    expect(loadConfig([], {})).not.toHaveProperty('limits');
  });

  it('reads the detection interval from SVC_DETECTION_INTERVAL_MS or its flag, and refuses one out of range, naming it', () => {
    expect(loadConfig([], { SVC_DETECTION_INTERVAL_MS: '250' }).detectionIntervalMs).toBe(250);
    expect(loadConfig(['--detection-interval-ms', '60000'], { SVC_DETECTION_INTERVAL_MS: '250' })).toMatchObject({
      detectionIntervalMs: 60_000,
    });
    expect(loadConfig([], {})).not.toHaveProperty('detectionIntervalMs');
    expect(() => loadConfig(['--detection-interval-ms', '100'], {})).toThrow(
      '--detection-interval-ms must be an integer from 250 to 60000 (got "100")',
    );
    expect(() => loadConfig([], { SVC_DETECTION_INTERVAL_MS: '10s' })).toThrow(
      'SVC_DETECTION_INTERVAL_MS must be an integer from 250 to 60000 (got "10s")',
    );
  });

  it('reads the shortest alert rule window tests may ask for, 1 to 60 seconds, and refuses another, naming it', () => {
    expect(loadConfig(['--alert-min-window-seconds', '5'], {}).alertMinWindowSeconds).toBe(5);
    expect(loadConfig([], { SVC_ALERT_MIN_WINDOW_SECONDS: '60' }).alertMinWindowSeconds).toBe(60);
    expect(loadConfig([], {})).not.toHaveProperty('alertMinWindowSeconds');
    expect(() => loadConfig([], { SVC_ALERT_MIN_WINDOW_SECONDS: '0' })).toThrow(
      'SVC_ALERT_MIN_WINDOW_SECONDS must be an integer from 1 to 60 (got "0")',
    );
  });

  it('reads single sign-on from SVC_OIDC_* variables or their --oidc-* flags', () => {
    expect(loadConfig([], {}).oidc).toBeUndefined();
    const config = loadConfig(['--oidc-client-id', 'svc', '--oidc-default-role', 'none'], {
      SVC_OIDC_ISSUER: 'https://id.example.com/realms/acme',
      SVC_OIDC_GROUP_ROLES: 'ops=admin',
      SVC_OIDC_ALLOWED_DOMAINS: 'example.com',
    });
    expect(config.oidc).toMatchObject({
      issuer: new URL('https://id.example.com/realms/acme'),
      clientId: 'svc',
      groupRoles: new Map([['ops', 'admin']]),
      defaultRole: null,
      allowedDomains: ['example.com'],
      name: 'Single sign-on',
    });
    expect(() => loadConfig(['--oidc-client-id', 'svc'], {})).toThrow('SVC_OIDC_CLIENT_ID needs SVC_OIDC_ISSUER too');
  });

  it('reads the model of issue analyses: a base URL and a model together, a key and a timeout', () => {
    expect(loadConfig([], {}).ai).toBeUndefined();
    const env = {
      SVC_AI_BASE_URL: 'https://api.openai.com/v1/',
      SVC_AI_MODEL: 'gpt-4.1-mini',
      SVC_AI_API_KEY: 'sk-x',
      SVC_AI_TIMEOUT: '30',
    };
    expect(loadConfig([], env).ai).toEqual({
      baseUrl: 'https://api.openai.com/v1',
      model: 'gpt-4.1-mini',
      apiKey: 'sk-x',
      timeoutMs: 30_000,
    });
    expect(
      loadConfig(['--ai-base-url', 'http://127.0.0.1:11434/v1', '--ai-model', 'qwen2.5-coder:14b'], {}).ai,
    ).toEqual({ baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder:14b', timeoutMs: 120_000 });
  });

  it.each([
    [{ SVC_PORT: '70000' }, 'SVC_PORT must be an integer from 0 to 65535'],
    [{ SVC_BODY_LIMIT: '10' }, 'SVC_BODY_LIMIT must be at least 1kb'],
    [{ SVC_RETENTION_DAYS: '-1' }, 'SVC_RETENTION_DAYS must be an integer'],
    [
      { SVC_RETENTION_REPLAYS_DAYS: '14d' },
      'SVC_RETENTION_REPLAYS_DAYS must be an integer from 0 to 36500 (got "14d")',
    ],
    [{ SVC_RETENTION_AUDIT_DAYS: '36501' }, 'SVC_RETENTION_AUDIT_DAYS must be an integer from 0 to 36500'],
    [{ SVC_PUBLIC_URL: 'ftp://x' }, 'SVC_PUBLIC_URL must be an http(s) URL'],
    [{ SVC_LIMIT_LOGS: 'rate=5,burst=10' }, 'SVC_LIMIT_LOGS: burst must be at least 10000'],
    [{ SVC_LIMIT_SPANS: 'speed=5' }, 'SVC_LIMIT_SPANS: "speed=5" is not rate=<n>, burst=<n> or daily=<n>'],
    [{ SVC_SPIKE_MINUTES: '0' }, 'SVC_SPIKE_MINUTES must be an integer from 1 to 10080'],
    [{ SVC_CORS_ORIGINS: 'https://a.example/path' }, 'is not an origin'],
    [{ SVC_AI_BASE_URL: 'http://127.0.0.1:11434/v1' }, 'SVC_AI_BASE_URL needs SVC_AI_MODEL too'],
    [{ SVC_AI_MODEL: 'gpt-4.1' }, 'SVC_AI_MODEL needs SVC_AI_BASE_URL too'],
    [{ SVC_AI_BASE_URL: 'localhost:11434', SVC_AI_MODEL: 'm' }, 'SVC_AI_BASE_URL must be an http(s) URL'],
    [
      { SVC_AI_BASE_URL: 'http://h/v1', SVC_AI_MODEL: 'm', SVC_AI_TIMEOUT: '0' },
      'SVC_AI_TIMEOUT must be an integer from 1 to 3600',
    ],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig([], env)).toThrow(ConfigError);
    expect(() => loadConfig([], env)).toThrow(message);
  });
});
