import { PROJECT_SIGNALS, RETENTION_SIGNALS, type RetentionDefaults, type RetentionSignal } from './signals';
import type { ProjectRetention } from './store';

/** A signal's retention for one project, and where it comes from. */
export interface SignalRetention {
  signal: RetentionSignal;
  /** Days the signal is kept; 0 for ever. */
  days: number;
  /** `project`: the project's own setting; `server`: the server's default. */
  source: 'project' | 'server';
  /** The server's default for the signal (SVC_RETENTION_<SIGNAL>_DAYS, else SVC_RETENTION_DAYS). */
  server_days: number;
  /** Whether a project may set it (the audit log follows the server alone). */
  settable: boolean;
}

/** The days a project keeps a signal: its own setting, else the server's default. */
export const daysOf = (defaults: RetentionDefaults, own: ProjectRetention, signal: RetentionSignal): number =>
  (signal === 'audit' ? undefined : own[signal]) ?? defaults.signals[signal];

/** Every signal's retention for a project whose own settings are `own`. */
export function effectiveRetention(defaults: RetentionDefaults, own: ProjectRetention): SignalRetention[] {
  return RETENTION_SIGNALS.map((signal) => {
    const settable = (PROJECT_SIGNALS as readonly string[]).includes(signal);
    return {
      signal,
      days: daysOf(defaults, own, signal),
      source: settable && own[signal as keyof ProjectRetention] !== undefined ? 'project' : 'server',
      server_days: defaults.signals[signal],
      settable,
    };
  });
}
