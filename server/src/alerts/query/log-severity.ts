/** Log severities as a rule names them, and the OpenTelemetry severity numbers each covers (1–4 trace … 21–24 fatal). */
export const LOG_SEVERITIES = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
export type LogSeverity = (typeof LOG_SEVERITIES)[number];

/** The severity numbers `[lowest, highest]` of a severity; records without a number (0) are of none. */
export const severityRange = (severity: LogSeverity): [number, number] => {
  const lowest = LOG_SEVERITIES.indexOf(severity) * 4 + 1;
  return [lowest, lowest + 3];
};
