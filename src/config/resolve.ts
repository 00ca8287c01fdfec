import { REPLAY_LIMITS } from '../../wire/replay';
import type { IntegrationsOption } from '../core/integration';
import { DEFAULT_CONFIG } from './defaults';
import type {
  BeforeSend,
  BrowserSDKConfig,
  Pattern,
  ConfigWarningHandler,
  ResolvedConfig,
  ResolvedPropagationConfig,
  ResolvedReplayConfig,
  ResolvedReplaySampling,
  ResolvedVitalsConfig,
} from './types';

/** Browsers fire a timer with a delay above 2^31-1 ms immediately, which would turn a long period into a busy loop. */
const MAX_TIMER_MS = 2_147_483_647;

/** RFC 9110 token characters: `Headers.set` throws on any other header name, which would break the user's fetch. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A whitespace or a leading dot makes `classList.contains` never match, silently disabling blocking or masking. */
const CSS_CLASS_NAME = /^[^\s.][^\s]*$/;

/** One level of the options object, with the dotted path used to name its options in warnings. */
interface Section {
  readonly values: Readonly<Record<string, unknown>>;
  readonly path: string;
  readonly warn: ConfigWarningHandler;
  /** The options read from `values` so far: once the section is resolved, any other key is unknown. */
  readonly known: string[];
}

interface NumberRule {
  readonly min: number;
  /** `true` when `min` itself is not allowed (a period of 0 ms would spin). */
  readonly minExclusive: boolean;
  readonly max: number;
  readonly integer: boolean;
  /** Completes "must be …" in the warning. */
  readonly expected: string;
}

const PERIOD_MS: NumberRule = {
  min: 0,
  minExclusive: true,
  max: MAX_TIMER_MS,
  integer: false,
  expected: `a number of milliseconds greater than 0 and at most ${MAX_TIMER_MS}`,
};

const INTERVAL_MS: NumberRule = {
  min: 0,
  minExclusive: false,
  max: MAX_TIMER_MS,
  integer: false,
  expected: `a number of milliseconds between 0 and ${MAX_TIMER_MS}`,
};

const COUNT: NumberRule = {
  min: 1,
  minExclusive: false,
  max: Number.MAX_SAFE_INTEGER,
  integer: true,
  expected: 'a whole number of at least 1',
};

const RATE: NumberRule = {
  min: 0,
  minExclusive: false,
  max: 1,
  integer: false,
  expected: 'a number between 0 and 1',
};

const CHUNK_BYTES: NumberRule = {
  min: 1,
  minExclusive: false,
  // A chunk can pass the threshold by one event (at most maxEventBytes): a larger threshold could produce chunks the
  // ingest endpoint rejects, losing the recording.
  max: REPLAY_LIMITS.maxChunkBytes - REPLAY_LIMITS.maxEventBytes,
  integer: true,
  expected: `a whole number of bytes between 1 and ${REPLAY_LIMITS.maxChunkBytes - REPLAY_LIMITS.maxEventBytes} (the ingest limit less one event)`,
};

function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Short, safe rendering of a rejected value: never throws, never dumps a whole object into the console. */
function describe(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
    case 'number':
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'bigint':
      return `${value.toString()}n`;
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      if (value === null) return 'null';
      return Array.isArray(value) ? 'an array' : 'an object';
  }
}

function describeDefault(value: unknown): string {
  return value === '' ? "the default '' (same origin)" : `the default ${describe(value)}`;
}

function optionName(section: Section, key: string): string {
  return section.path === '' ? key : `${section.path}.${key}`;
}

function invalid(section: Section, key: string, expected: string, value: unknown, fallback: unknown): void {
  section.warn(
    `Option "${optionName(section, key)}" must be ${expected}, got ${describe(value)}; using ${describeDefault(fallback)}.`,
  );
}

/** Reads one option; a throwing getter (a Proxy, a broken accessor) counts as an invalid value, not a crash. */
function read(section: Section, key: string): { ok: true; value: unknown } | { ok: false } {
  section.known.push(key);
  try {
    return { ok: true, value: section.values[key] };
  } catch {
    section.warn(`Option "${optionName(section, key)}" threw when read; using the default.`);
    return { ok: false };
  }
}

/**
 * Freezes the options resolved from a section, warning about each key of it that was not read: a typo such as
 * `flushInterval` would otherwise be silently ignored and the user would wonder why nothing changed.
 */
function resolved<T>(section: Section, options: T): Readonly<T> {
  let keys: string[] = [];
  try {
    keys = Object.keys(section.values);
  } catch {
    // A Proxy whose key listing throws: its keys cannot be checked.
  }
  for (const key of keys) {
    if (!section.known.includes(key)) section.warn(`Unknown option "${optionName(section, key)}" is ignored.`);
  }
  return Object.freeze(options);
}

function readSection(parent: Section, key: string): Section {
  const empty: Section = { values: {}, path: optionName(parent, key), warn: parent.warn, known: [] };
  const result = read(parent, key);
  if (!result.ok || result.value === undefined) return empty;
  if (!isRecord(result.value)) {
    parent.warn(
      `Option "${optionName(parent, key)}" must be an object, got ${describe(result.value)}; using the defaults of all its options.`,
    );
    return empty;
  }
  return { ...empty, values: result.value };
}

/**
 * Reads one option: `fallback` when it is absent (or unreadable), the value when `accept` takes it, else `fallback`
 * with a warning that the option must be `expected`.
 */
function readOption<T>(
  section: Section,
  key: string,
  fallback: T,
  expected: string,
  accept: (value: unknown) => value is T,
): T {
  const result = read(section, key);
  if (!result.ok || result.value === undefined) return fallback;
  if (accept(result.value)) return result.value;
  invalid(section, key, expected, result.value, fallback);
  return fallback;
}

const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean';

function readBoolean(section: Section, key: string, fallback: boolean): boolean {
  return readOption(section, key, fallback, 'true or false', isBoolean);
}

function satisfies(value: unknown, rule: NumberRule): value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  if (rule.integer && !Number.isInteger(value)) return false;
  if (rule.minExclusive ? value <= rule.min : value < rule.min) return false;
  return value <= rule.max;
}

function readNumber(section: Section, key: string, fallback: number, rule: NumberRule): number {
  return readOption(section, key, fallback, rule.expected, (value): value is number => satisfies(value, rule));
}

function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** An optional identity string: absent stays `undefined`, and so does an invalid one (there is nothing to fall back to). */
function readOptionalString(section: Section, key: string): string | undefined {
  const result = read(section, key);
  if (!result.ok || result.value === undefined) return undefined;
  if (isNonBlankString(result.value)) return result.value;
  section.warn(
    `Option "${optionName(section, key)}" must be a non-empty string, got ${describe(result.value)}; ignoring it.`,
  );
  return undefined;
}

function readRequiredString(section: Section, key: string): string | undefined {
  const result = read(section, key);
  if (!result.ok) return undefined;
  if (isNonBlankString(result.value)) return result.value;
  const problem =
    result.value === undefined ? 'is missing' : `must be a non-empty string, got ${describe(result.value)}`;
  section.warn(
    `Option "${optionName(section, key)}" ${problem}; it is required and has no default, so no telemetry can be sent.`,
  );
  return undefined;
}

function readString(
  section: Section,
  key: string,
  fallback: string,
  expected: string,
  accept: (value: string) => boolean,
): string {
  return readOption(
    section,
    key,
    fallback,
    expected,
    (value): value is string => typeof value === 'string' && accept(value),
  );
}

function readChoice<T extends string>(section: Section, key: string, fallback: T, choices: readonly T[]): T {
  const expected = `one of ${choices.map((choice) => `"${choice}"`).join(', ')}`;
  return readOption(section, key, fallback, expected, (value): value is T => choices.includes(value as T));
}

/** `true`/`false` switch mouse movement on or off; a number is rrweb's sampling interval in ms. */
function readMousemove(section: Section, fallback: boolean | number): boolean | number {
  const expected = `true, false or ${INTERVAL_MS.expected}`;
  return readOption(
    section,
    'mousemove',
    fallback,
    expected,
    (value) => isBoolean(value) || satisfies(value, INTERVAL_MS),
  );
}

/**
 * Strips trailing slashes so that `${ingestUrl}/otlp/v1/traces` is always well formed. Returns `undefined` for
 * anything that is not '', a same-origin path or an absolute http(s) URL without query or fragment.
 */
export function normaliseIngestUrl(value: string): string | undefined {
  const trimmed = value.trim();
  if (trimmed === '') return '';
  if (/[?#\s]/.test(trimmed)) return undefined;
  if (trimmed.startsWith('/') && !trimmed.startsWith('//')) return trimmed.replace(/\/+$/, '');
  if (!/^https?:\/\/[^/]/i.test(trimmed)) return undefined;
  if (typeof URL === 'function') {
    try {
      new URL(trimmed);
    } catch {
      return undefined;
    }
  }
  return trimmed.replace(/\/+$/, '');
}

function readIngestUrl(section: Section, fallback: string): string {
  const result = read(section, 'ingestUrl');
  if (!result.ok || result.value === undefined) return fallback;
  const normalised = typeof result.value === 'string' ? normaliseIngestUrl(result.value) : undefined;
  if (normalised !== undefined) return normalised;
  invalid(
    section,
    'ingestUrl',
    '\'\' (same origin), a path such as "/svc" or an absolute http(s) URL without query or fragment',
    result.value,
    fallback,
  );
  return fallback;
}

function resolveSampling(replay: Section): ResolvedReplaySampling {
  const section = readSection(replay, 'sampling');
  const defaults = DEFAULT_CONFIG.replay.sampling;
  return resolved(section, {
    mousemove: readMousemove(section, defaults.mousemove),
    scroll: readNumber(section, 'scroll', defaults.scroll, INTERVAL_MS),
    input: readChoice(section, 'input', defaults.input, ['all', 'last'] as const),
  });
}

function resolveReplay(root: Section): ResolvedReplayConfig {
  const section = readSection(root, 'replay');
  const defaults = DEFAULT_CONFIG.replay;
  const className = 'a CSS class name without the leading dot or spaces';
  return resolved(section, {
    enabled: readBoolean(section, 'enabled', defaults.enabled),
    flushIntervalMs: readNumber(section, 'flushIntervalMs', defaults.flushIntervalMs, PERIOD_MS),
    maxChunkBytes: readNumber(section, 'maxChunkBytes', defaults.maxChunkBytes, CHUNK_BYTES),
    captureNetworkRecipes: readBoolean(section, 'captureNetworkRecipes', defaults.captureNetworkRecipes),
    sessionStorageKey: readString(
      section,
      'sessionStorageKey',
      defaults.sessionStorageKey,
      'a non-empty string',
      (value) => value.trim() !== '',
    ),
    blockClass: readString(section, 'blockClass', defaults.blockClass, className, (value) =>
      CSS_CLASS_NAME.test(value),
    ),
    maskTextClass: readString(section, 'maskTextClass', defaults.maskTextClass, className, (value) =>
      CSS_CLASS_NAME.test(value),
    ),
    maskAllInputs: readBoolean(section, 'maskAllInputs', defaults.maskAllInputs),
    sampling: resolveSampling(section),
    workerUrl: readOptionalString(section, 'workerUrl'),
    sampleRate: readNumber(section, 'sampleRate', defaults.sampleRate, RATE),
    onErrorSampleRate: readNumber(section, 'onErrorSampleRate', defaults.onErrorSampleRate, RATE),
    networkBodies: readChoice(section, 'networkBodies', defaults.networkBodies, ['redacted', 'none'] as const),
    networkBodyUrls: readPatterns(section, 'networkBodyUrls', defaults.networkBodyUrls),
  });
}

function resolveVitals(root: Section): ResolvedVitalsConfig {
  const section = readSection(root, 'vitals');
  const defaults = DEFAULT_CONFIG.vitals;
  return resolved(section, {
    enabled: readBoolean(section, 'enabled', defaults.enabled),
    reportAllChanges: readBoolean(section, 'reportAllChanges', defaults.reportAllChanges),
  });
}

/** The origin of an absolute http(s) URL given as an origin (no path beyond `/`, no query), else `undefined`. */
function toOrigin(value: string): string | undefined {
  try {
    const url = new URL(value);
    if (
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.pathname !== '/' ||
      url.search !== '' ||
      url.hash !== ''
    ) {
      return undefined;
    }
    return url.origin;
  } catch {
    return undefined;
  }
}

/**
 * Reads a list option, keeping each entry `convert` accepts and reporting each other one by its index: one bad entry
 * must not cost the user the whole list.
 */
function readList<T>(
  section: Section,
  key: string,
  fallback: readonly T[],
  expectedEntry: string,
  convert: (entry: unknown) => T | undefined,
): readonly T[] {
  const result = read(section, key);
  if (!result.ok || result.value === undefined) return fallback;
  if (!Array.isArray(result.value)) {
    invalid(section, key, 'an array', result.value, fallback);
    return fallback;
  }
  const list: T[] = [];
  result.value.forEach((entry: unknown, index) => {
    const converted = convert(entry);
    if (converted !== undefined) list.push(converted);
    else
      section.warn(
        `Option "${optionName(section, key)}[${index}]" must be ${expectedEntry}, got ${describe(entry)}; ignoring it.`,
      );
  });
  return Object.freeze(list);
}

const asPattern = (entry: unknown): Pattern | undefined =>
  entry instanceof RegExp || (typeof entry === 'string' && entry !== '') ? entry : undefined;

function readPatterns(section: Section, key: string, fallback: readonly Pattern[]): readonly Pattern[] {
  return readList(section, key, fallback, 'a non-empty string or a RegExp', asPattern);
}

/** Origins of `propagation.origins`: an origin string is normalised (`https://api.example.com`), a RegExp kept. */
function readOrigins(section: Section, fallback: readonly Pattern[]): readonly Pattern[] {
  return readList(
    section,
    'origins',
    fallback,
    'an http(s) origin such as "https://api.example.com" or a RegExp',
    (entry) => (entry instanceof RegExp ? entry : typeof entry === 'string' ? toOrigin(entry) : undefined),
  );
}

const isFunction = (value: unknown): value is BeforeSend => typeof value === 'function';

const isIntegrationsOption = (value: unknown): value is IntegrationsOption =>
  Array.isArray(value) || typeof value === 'function';

function resolvePropagation(root: Section): ResolvedPropagationConfig {
  const section = readSection(root, 'propagation');
  const defaults = DEFAULT_CONFIG.propagation;
  const headerName = 'a valid HTTP header name';
  const isHeaderName = (value: string): boolean => HEADER_NAME.test(value);
  return resolved(section, {
    enabled: readBoolean(section, 'enabled', defaults.enabled),
    headerName: readString(section, 'headerName', defaults.headerName, headerName, isHeaderName),
    sessionHeaderName: readString(section, 'sessionHeaderName', defaults.sessionHeaderName, headerName, isHeaderName),
    origins: readOrigins(section, defaults.origins),
  });
}

/**
 * Turns user options into the configuration the SDK runs with (SPEC 2.9 "Configuration options").
 *
 * Never throws, whatever it is given (the SDK must not break the host app over a typo): each missing option takes
 * its default, and each invalid one (wrong type, negative or non-finite number, unknown enum value, unknown key) is
 * replaced by its default and reported through `warn` with the option's dotted name. The SDK prints those messages
 * only when `debug` is true.
 *
 * @param options - the options passed to the SDK; anything that is not an object counts as no options.
 * @param warn - receives one message per ignored or replaced option.
 * @returns a deeply frozen {@link ResolvedConfig}.
 */
export function resolveConfig(
  options: BrowserSDKConfig | undefined,
  warn: ConfigWarningHandler = () => {},
): ResolvedConfig {
  // Plain JavaScript callers can pass anything, so the declared type is not trusted.
  const input: unknown = options;
  let values: Readonly<Record<string, unknown>> = {};
  if (isRecord(input)) {
    values = input;
  } else if (input !== undefined) {
    warn(`The SDK options must be an object, got ${describe(input)}; using the defaults.`);
  }
  const root: Section = { values, path: '', warn, known: [] };

  return resolved(root, {
    apiKey: readRequiredString(root, 'apiKey'),
    serviceName: readRequiredString(root, 'serviceName'),
    tenantId: readOptionalString(root, 'tenantId'),
    projectId: readOptionalString(root, 'projectId'),
    appId: readOptionalString(root, 'appId'),
    env: readOptionalString(root, 'env'),
    serviceVersion: readOptionalString(root, 'serviceVersion'),
    debug: readBoolean(root, 'debug', DEFAULT_CONFIG.debug),
    flushIntervalMs: readNumber(root, 'flushIntervalMs', DEFAULT_CONFIG.flushIntervalMs, PERIOD_MS),
    maxQueueSize: readNumber(root, 'maxQueueSize', DEFAULT_CONFIG.maxQueueSize, COUNT),
    requestTimeoutMs: readNumber(root, 'requestTimeoutMs', DEFAULT_CONFIG.requestTimeoutMs, PERIOD_MS),
    validateSemanticMetrics: readBoolean(root, 'validateSemanticMetrics', DEFAULT_CONFIG.validateSemanticMetrics),
    instrumentGlobalFetch: readBoolean(root, 'instrumentGlobalFetch', DEFAULT_CONFIG.instrumentGlobalFetch),
    ingestUrl: readIngestUrl(root, DEFAULT_CONFIG.ingestUrl),
    replay: resolveReplay(root),
    vitals: resolveVitals(root),
    propagation: resolvePropagation(root),
    sampleRate: readNumber(root, 'sampleRate', DEFAULT_CONFIG.sampleRate, RATE),
    sendUserPii: readBoolean(root, 'sendUserPii', DEFAULT_CONFIG.sendUserPii),
    beforeSend: readOption(root, 'beforeSend', undefined, 'a function', isFunction),
    ignoreErrors: readPatterns(root, 'ignoreErrors', DEFAULT_CONFIG.ignoreErrors),
    denyUrls: readPatterns(root, 'denyUrls', DEFAULT_CONFIG.denyUrls),
    allowUrls: readPatterns(root, 'allowUrls', DEFAULT_CONFIG.allowUrls),
    issuesFrom: readList(root, 'issuesFrom', DEFAULT_CONFIG.issuesFrom, '"console" or "requests"', (entry) =>
      entry === 'console' || entry === 'requests' ? entry : undefined,
    ),
    persistence: readBoolean(root, 'persistence', DEFAULT_CONFIG.persistence),
    integrations: readOption(root, 'integrations', undefined, 'an array or a function', isIntegrationsOption),
  });
}
