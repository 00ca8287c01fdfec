/**
 * The operator's logger: one JSON object per line (`time`, `level`, `msg`, then the fields flat), so `kubectl logs`
 * stays greppable (`discovered 3 workloads`) and log pipelines get the fields without parsing prose. The sink is
 * injectable so tests read exactly what the operator prints.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

export interface Logger {
  /** Same shape as the `LogFn` the webhook and certificate manager take: pass `logger.log` directly. */
  log(level: LogLevel, msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger that adds `fields` to every line (e.g. `{ component: 'controller' }`). */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  /** Receives each line without its newline; default: process.stdout. */
  sink?: (line: string) => void;
  /** Lines below this level are dropped (default `info`). */
  level?: LogLevel;
  clock?: () => Date;
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const RESERVED = new Set(['time', 'level', 'msg']);

/** Errors become their message (and name when it says more); fields never make a line unserializable. */
function plain(value: unknown): unknown {
  if (value instanceof Error)
    return value.name && value.name !== 'Error' ? `${value.name}: ${value.message}` : value.message;
  if (typeof value === 'bigint') return value.toString();
  return value;
}

function serialize(time: Date, level: LogLevel, msg: string, fields: LogFields): string {
  const line: LogFields = { time: time.toISOString(), level, msg };
  // A field named like the envelope keeps its value under a prefixed key instead of overwriting the envelope.
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) line[RESERVED.has(key) ? `field.${key}` : key] = plain(value);
  try {
    return JSON.stringify(line, (_key, value: unknown) => plain(value));
  } catch {
    return JSON.stringify({ time: line.time, level, msg, fieldsError: 'fields could not be serialized' });
  }
}

export function createLogger(options: LoggerOptions = {}, base: LogFields = {}): Logger {
  const sink = options.sink ?? ((line: string) => process.stdout.write(`${line}\n`));
  const threshold = RANK[options.level ?? 'info'];
  const clock = options.clock ?? (() => new Date());
  const log = (level: LogLevel, msg: string, fields: LogFields = {}) => {
    if (RANK[level] < threshold) return;
    sink(serialize(clock(), level, msg, { ...base, ...fields }));
  };
  return {
    log,
    debug: (msg, fields) => log('debug', msg, fields),
    info: (msg, fields) => log('info', msg, fields),
    warn: (msg, fields) => log('warn', msg, fields),
    error: (msg, fields) => log('error', msg, fields),
    child: (fields) => createLogger(options, { ...base, ...fields }),
  };
}

/** Parses LOG_LEVEL-style text; undefined for anything else (the caller says what it accepts). */
export function parseLogLevel(text: string | undefined): LogLevel | undefined {
  return text !== undefined && text in RANK ? (text as LogLevel) : undefined;
}
