import { nanosToMillis } from '../../json/read';
import { routePattern } from '../../shared/route-pattern';
import { parseDebugIds } from '../../sourcemaps/debug-ids';
import { errorFacets, type ErrorFacets } from './error-facets';
import type { RawError } from './fingerprint';
import { DEFAULT_ENV, environmentOf, TEST_ENV } from '../../otlp/environment';

/** Log records at or above this OTLP severity number (ERROR 17–20, FATAL 21–24) are errors. */
export const ERROR_SEVERITY = 17;

/** Which test produced an error of test traffic: the `test.*` resource attributes the SDK copies from the fixture. */
export interface TestSighting {
  runId: string | null;
  testId: string | null;
  /** The title path joined with ` > `. */
  title: string | null;
}

/** One error, from an error log record or a span's `exception` event. */
export interface ErrorOccurrence {
  projectId: string;
  appId: string;
  env: string;
  release: string | null;
  sessionId: string | null;
  /** The trace it was recorded in: a log record's, or the span's that holds the exception event. */
  traceId: string | null;
  /** When it happened (the reporter's clock). */
  timeMs: number;
  /** When the server stored it: detection windows use the server's clock. */
  receivedMs: number;
  raw: RawError;
  /** Script URL → debug ID, from `svc.exception.debug_ids`: which maps symbolicate the stack. */
  debugIds: ReadonlyMap<string, string>;
  /** Set when the error is test traffic (env {@link TEST_ENV}): it is counted apart and never opens an incident. */
  test: TestSighting | null;
  /** Browser, system, page and user: what the issue's breakdown counts it under. */
  facets: ErrorFacets;
}

export interface ErrorLogRow {
  project_id: string;
  app_id: string;
  time_ms: number;
  received_ms: number;
  session_id: string | null;
  trace_id: string | null;
  body: string;
  attributes: string;
  resource: string;
}

export interface ExceptionSpanRow {
  project_id: string;
  app_id: string;
  time_ms: number;
  received_ms: number;
  session_id: string | null;
  trace_id: string;
  events: string;
  attributes: string;
  resource: string;
}

type Json = Record<string, unknown>;

const resourceAttributes = (resourceJson: string): Json =>
  ((JSON.parse(resourceJson) as { attributes?: Json }).attributes ?? {}) as Json;

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * Longest run or test id kept (the reporter's run ids have at most 128 characters, Playwright's test ids far fewer): an
 * id is part of a primary key, and a hostile one of megabytes would fail the counting transaction on every retry.
 */
const MAX_TEST_KEY = 256;
/** Longest test title kept; a longer one is cut. */
const MAX_TEST_TITLE = 1024;
const key = (v: unknown): string | null => {
  const s = text(v);
  return s !== undefined && s.length <= MAX_TEST_KEY ? s : null;
};

/** Environment (`test` for a test's records) and release of a stored resource (`{"attributes": {...}}`), and the test behind it when it is test traffic. */
export function resourceFacts(resourceJson: string): {
  env: string;
  release: string | null;
  test: TestSighting | null;
} {
  const attrs = resourceAttributes(resourceJson);
  const env = environmentOf(attrs);
  return {
    env,
    release: text(attrs['service.version']) ?? null,
    test:
      env === TEST_ENV
        ? {
            runId: key(attrs['test.run.id']),
            testId: key(attrs['test.id']),
            title: text(attrs['test.title'])?.slice(0, MAX_TEST_TITLE) ?? null,
          }
        : null,
  };
}

/**
 * The environment an error is grouped in: test traffic joins the production issue of the same bug, so that an issue
 * can say it was seen in production, in tests, or both (docs/issues.md, "Test traffic").
 */
export const groupingEnv = (o: Pick<ErrorOccurrence, 'env' | 'test'>): string => (o.test ? DEFAULT_ENV : o.env);

function rawError(attributes: Json, fallbackMessage: string): RawError {
  return {
    type: text(attributes['exception.type']),
    message: text(attributes['exception.message']) ?? fallbackMessage,
    stacktrace: text(attributes['exception.stacktrace']),
  };
}

/** A stored log body (AnyValue as plain JSON) as text: strings as they are, anything else (maps, arrays) as JSON. */
export function bodyText(bodyJson: string): string {
  const body = JSON.parse(bodyJson) as unknown;
  if (body === null) return '';
  return typeof body === 'string' ? body : JSON.stringify(body);
}

const DEBUG_IDS = 'svc.exception.debug_ids';

/** The error of an error log record (the caller selects records at {@link ERROR_SEVERITY} or above). */
export function errorOfLog(row: ErrorLogRow): ErrorOccurrence {
  return occurrenceOfLog(row, JSON.parse(row.attributes) as Json);
}

/** Set by the SDK on a console error or failed request the app wants as an issue (its `issuesFrom` option). */
const ISSUE_MARK = 'svc.issue';

/**
 * The error of an error log record when it forms an issue (docs/issues.md, "What becomes an issue"), else undefined:
 * issues group exceptions. A record of an exception (`exception.type` or `exception.stacktrace`, as OpenTelemetry's
 * exception conventions and the SDK's captures write them) does, unless it is console output; an error log without an
 * exception (a failed request's outcome, `console.error('…')`, a backend's `logger.error('…')`) is a log and a
 * breadcrumb. The SDK marks the console errors and failed requests an app wants as issues with `svc.issue: true`.
 */
export function issueErrorOfLog(row: ErrorLogRow): ErrorOccurrence | undefined {
  const attributes = JSON.parse(row.attributes) as Json;
  const exception =
    text(attributes['exception.type']) !== undefined || text(attributes['exception.stacktrace']) !== undefined;
  const wanted = attributes[ISSUE_MARK] === true || (exception && attributes['log.source'] !== 'console');
  return wanted ? occurrenceOfLog(row, attributes) : undefined;
}

/**
 * A failed request's outcome log as an error: `GET /api/items/:id → 500`, or `GET /api/items/:id failed: TypeError:
 * Failed to fetch` without an answer. The route pattern of its path, not the URL and duration its log body carries:
 * those differ on every request, and a title of `<url>` and a number names nothing.
 */
function requestError(attributes: Json): RawError | undefined {
  const method = text(attributes['http.method']);
  const url = text(attributes['http.url']);
  if (method === undefined || url === undefined || text(attributes['exception.type']) !== undefined) return undefined;
  let path = url;
  try {
    path = new URL(url, 'http://relative.invalid').pathname;
  } catch {
    // Not a URL: its pattern is made of it as it is.
  }
  const failure = text(attributes['error.message']);
  const outcome = failure === undefined ? `→ ${String(attributes['http.status_code'])}` : `failed: ${failure}`;
  return { type: 'RequestError', message: `${method} ${routePattern(path)} ${outcome}`, stacktrace: undefined };
}

function occurrenceOfLog(row: ErrorLogRow, attributes: Json): ErrorOccurrence {
  return {
    projectId: row.project_id,
    appId: row.app_id,
    ...resourceFacts(row.resource),
    sessionId: row.session_id,
    traceId: row.trace_id,
    timeMs: row.time_ms,
    receivedMs: row.received_ms,
    raw: requestError(attributes) ?? rawError(attributes, bodyText(row.body)),
    debugIds: parseDebugIds(attributes[DEBUG_IDS]),
    facets: errorFacets(attributes, resourceAttributes(row.resource)),
  };
}

/** The errors of a span: one per `exception` event (OpenTelemetry's `recordException`). */
export function errorsOfSpan(row: ExceptionSpanRow): ErrorOccurrence[] {
  const events = JSON.parse(row.events) as Array<{ name: string; timeUnixNano: string; attributes: Json }>;
  const facts = resourceFacts(row.resource);
  // An exception event names no page or user of its own: the span's do.
  const facets = errorFacets(JSON.parse(row.attributes) as Json, resourceAttributes(row.resource));
  return events
    .filter((e) => e.name === 'exception')
    .map((e) => ({
      projectId: row.project_id,
      appId: row.app_id,
      ...facts,
      sessionId: row.session_id,
      traceId: row.trace_id,
      timeMs: e.timeUnixNano === '0' ? row.time_ms : nanosToMillis(e.timeUnixNano),
      receivedMs: row.received_ms,
      raw: rawError(e.attributes, ''),
      debugIds: parseDebugIds(e.attributes[DEBUG_IDS]),
      facets,
    }));
}
