/**
 * What retention is set for, one signal at a time (docs/server.md, "Retention"): each has a server default
 * (SVC_RETENTION_<SIGNAL>_DAYS, else SVC_RETENTION_DAYS) that a project may override, except the audit log, which
 * belongs to the organisation and follows the server's setting alone. 0 days keeps a signal forever.
 */
export const RETENTION_SIGNALS = [
  'spans',
  'logs',
  'metrics',
  'replays',
  'recipes',
  'sessions',
  'issues',
  'audit',
] as const;
export type RetentionSignal = (typeof RETENTION_SIGNALS)[number];

/** What each signal keeps, for `--help` and the CLI. */
export const SIGNAL_TEXT: Record<RetentionSignal, string> = {
  spans: 'spans',
  logs: 'log records',
  metrics: 'metric points',
  replays: 'replay chunks',
  recipes: 'recipes (recorded requests)',
  sessions: 'session rows',
  issues: "issues' sessions, hours, tests and facets (the issues themselves stay)",
  audit: 'audit log entries (per organisation, not per project)',
};

/** The signals a project may set for itself. */
export const PROJECT_SIGNALS = RETENTION_SIGNALS.filter((s): s is Exclude<RetentionSignal, 'audit'> => s !== 'audit');
export type ProjectSignal = (typeof PROJECT_SIGNALS)[number];

/** The longest retention that can be set, in days (100 years): the same bound as SVC_RETENTION_DAYS. */
export const MAX_RETENTION_DAYS = 36_500;

/** The server's settings: `days` (SVC_RETENTION_DAYS) and each signal's default, resolved. */
export interface RetentionDefaults {
  /** SVC_RETENTION_DAYS: the default of every signal, and the retention of ingest refusal counts. */
  days: number;
  signals: Record<RetentionSignal, number>;
}

/** The server defaults: a signal's own setting where given, else `days`. */
export function retentionDefaults(
  days: number,
  bySignal: Partial<Record<RetentionSignal, number>> = {},
): RetentionDefaults {
  const signals = Object.fromEntries(RETENTION_SIGNALS.map((s) => [s, bySignal[s] ?? days]));
  return { days, signals: signals as Record<RetentionSignal, number> };
}

/** `SVC_RETENTION_REPLAYS_DAYS` for `replays`. */
export const signalVariable = (signal: RetentionSignal): string => `SVC_RETENTION_${signal.toUpperCase()}_DAYS`;
