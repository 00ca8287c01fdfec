import type { LogRow } from './types';

/** OTLP severity numbers 17-24 are ERROR and FATAL. */
const ERROR_SEVERITY = 17;

export const bodyText = (body: unknown): string => (typeof body === 'string' ? body : (JSON.stringify(body) ?? ''));

/** An error as the server counts them: severity ERROR and above, or an exception. */
export const isError = (log: LogRow): boolean =>
  log.severity_number >= ERROR_SEVERITY || 'exception.type' in log.attributes;

export const logTime = (log: LogRow): number => Date.parse(log.time);

export function severityTone(log: LogRow): 'bad' | 'warn' | 'info' | 'neutral' {
  if (log.severity_number >= ERROR_SEVERITY) return 'bad';
  if (log.severity_number >= 13) return 'warn';
  if (log.severity_number >= 9) return 'info';
  return 'neutral';
}

export const severityLabel = (log: LogRow): string =>
  log.severity_text ?? (log.severity_number >= ERROR_SEVERITY ? 'ERROR' : 'LOG');
