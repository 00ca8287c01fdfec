import type { DialectName } from '../db/connect';
import { mergedJsonList } from '../db/json-list';
import type { Database, TelemetryTable } from '../db/schema';
import { SESSION_FACT_LIMITS, type SessionFacts } from '../otlp/session-facts';

/** Session counter column each table feeds. */
export const SESSION_COUNTER = {
  spans: 'span_count',
  logs: 'log_count',
  metric_points: 'metric_count',
  replay_chunks: 'replay_chunk_count',
  recipes: 'recipe_count',
} as const satisfies Record<TelemetryTable, keyof Database['sessions']>;

/** What one write adds to one session's summary. */
export interface SessionDelta {
  sessionId: string;
  appId: string;
  first: number;
  last: number;
  count: number;
  /** Error log records among them (see isErrorLog). */
  errors: number;
}

/** What a session summary needs of a stored row; log rows also carry `severity_number` and `attributes`. */
export interface SessionSource {
  session_id: string | null;
  app_id: string;
  time_ms: number;
  end_ms?: number;
  severity_number?: unknown;
  attributes?: unknown;
}

/** ERROR in OpenTelemetry's severity numbers (17–20 ERROR, 21–24 FATAL). */
const SEVERITY_ERROR = 17;

/**
 * A log record the sessions page counts as an error: severity ERROR or above (console.error, the SDK's exceptions), or
 * any record with `exception.type` (an exception another sender logged at a lower severity). The attributes are parsed
 * only when their text names the key.
 */
export function isErrorLog(row: SessionSource): boolean {
  if (typeof row.severity_number === 'number' && row.severity_number >= SEVERITY_ERROR) return true;
  const { attributes } = row;
  return (
    typeof attributes === 'string' &&
    attributes.includes('"exception.type"') &&
    (JSON.parse(attributes) as Record<string, unknown>)['exception.type'] !== undefined
  );
}

/** Code-unit order of two texts: the writers' lock order, the same in every process. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Folds the rows a write stored into one delta per session, so each session summary is upserted once per write. Only
 * stored rows count (a retried record is not stored again), so counts stay exact under retries. The deltas come sorted
 * by session id: every write then locks session rows in the same order, so two concurrent writes touching the same
 * sessions (a collector's batches behind a load balancer) wait for each other instead of deadlocking.
 */
export function sessionDeltas(table: TelemetryTable, rows: Iterable<SessionSource>): SessionDelta[] {
  const deltas = new Map<string, SessionDelta>();
  for (const r of rows) {
    if (!r.session_id) continue;
    const end = r.end_ms ?? r.time_ms;
    const error = table === 'logs' && isErrorLog(r) ? 1 : 0;
    const d = deltas.get(r.session_id);
    if (!d)
      deltas.set(r.session_id, {
        sessionId: r.session_id,
        appId: r.app_id,
        first: r.time_ms,
        last: end,
        count: 1,
        errors: error,
      });
    else {
      d.first = Math.min(d.first, r.time_ms);
      d.last = Math.max(d.last, end);
      d.count += 1;
      d.errors += error;
    }
  }
  return [...deltas.values()].sort((a, b) => byText(a.sessionId, b.sessionId));
}

/** A new summary row's counters: all zero but the one the delta feeds. */
function sessionCounters(
  table: TelemetryTable,
  count: number,
): Pick<Database['sessions'], (typeof SESSION_COUNTER)[TelemetryTable]> {
  return {
    span_count: 0,
    log_count: 0,
    metric_count: 0,
    replay_chunk_count: 0,
    recipe_count: 0,
    [SESSION_COUNTER[table]]: count,
  };
}

type FactColumns = Pick<
  Database['sessions'],
  | 'user_id'
  | 'user_email'
  | 'user_name'
  | 'user_ms'
  | 'attributes'
  | 'attributes_ms'
  | 'replay_mode'
  | 'sample_rate'
  | 'env'
  | 'release'
  | 'browser'
  | 'browser_version'
  | 'os'
  | 'device'
  | 'urls'
  | 'page_count'
  | 'entry_url'
  | 'entry_ms'
  | 'test_run_id'
  | 'test_id'
  | 'test_retry'
  | 'test_title'
  | 'test_file'
>;

/** A session's facts as columns; null where the batch said nothing (the upsert then keeps what is stored). */
function factColumns(f: SessionFacts | undefined): FactColumns {
  const pages = f?.pages;
  return {
    user_id: f?.user?.id ?? null,
    user_email: f?.user?.email ?? null,
    user_name: f?.user?.name ?? null,
    user_ms: f?.user?.timeMs ?? null,
    attributes: f?.attributes ? JSON.stringify(f.attributes.values) : null,
    attributes_ms: f?.attributes?.timeMs ?? null,
    replay_mode: f?.replayMode ?? null,
    sample_rate: f?.sampleRate ?? null,
    env: f?.env ?? null,
    release: f?.release ?? null,
    browser: f?.client?.browser ?? null,
    browser_version: f?.client?.browserVersion ?? null,
    os: f?.client?.os ?? null,
    device: f?.client?.device ?? null,
    urls: pages ? JSON.stringify(pages) : null,
    page_count: pages?.length ?? 0,
    entry_url: pages?.[0] ?? null,
    entry_ms: pages ? (f?.entryMs ?? null) : null,
    test_run_id: f?.test?.runId ?? null,
    test_id: f?.test?.testId ?? null,
    test_retry: f?.test?.retry ?? null,
    test_title: f?.test?.title ?? null,
    test_file: f?.test?.file ?? null,
  };
}

/** The batch's facts by session id, for the writers' upserts. */
export const factsBySession = (facts: readonly SessionFacts[] | undefined): Map<string, SessionFacts> =>
  new Map((facts ?? []).map((f) => [f.sessionId, f]));

/** `excluded.<column>` when the batch's record is at least as recent as the stored one (`<time>`), else the stored value. */
const latest = (column: string, time: string) =>
  `case when excluded.${time} >= coalesce(sessions.${time}, excluded.${time}) then excluded.${column} else sessions.${column} end`;

/** `excluded.<column>` when the batch's record is earlier than the stored one (`<time>`), else the stored value. */
const earliest = (column: string, time: string) =>
  `case when excluded.${time} < coalesce(sessions.${time}, excluded.${time} + 1) then excluded.${column} else sessions.${column} end`;

/** `excluded.<column>` when the batch named `key`, else the stored value: the columns of one fact change together. */
const together = (key: string, column: string) =>
  `case when excluded.${key} is null then sessions.${column} else excluded.${column} end`;
/** The client's columns change together (a batch that names a browser names them all). */
const client = (column: string) => together('browser', column);
/** So do the test's: a batch that names a test run names the whole test. */
const test = (column: string) => together('test_run_id', column);

/** The stored page paths followed by the batch's new ones, at most {@link SESSION_FACT_LIMITS}.maxPages. */
const mergedUrls = (dialect: DialectName) => mergedJsonList(dialect, 'sessions', 'urls', SESSION_FACT_LIMITS.maxPages);

/**
 * The ON CONFLICT values of the fact columns. The latest user wins, by the time of the record that named it, so a
 * record sent late (a retry, a persisted batch) does not undo a newer sign-in; a batch that names no user keeps the
 * stored one. Attributes likewise, as a whole. Sampling, environment, release and browser: the latest batch that
 * carries them; the test likewise, as a whole. Pages: the union, in the order first seen, bounded; the entry page is the earliest record's.
 * Both databases evaluate every SET expression on the row as it was, so no expression sees another's new value.
 */
export function sessionFactsUpdate(dialect: DialectName): Record<keyof FactColumns, string> {
  const urls = mergedUrls(dialect);
  const length = dialect === 'sqlite' ? `json_array_length(${urls})` : `jsonb_array_length(${urls}::jsonb)`;
  return {
    user_id: latest('user_id', 'user_ms'),
    user_email: latest('user_email', 'user_ms'),
    user_name: latest('user_name', 'user_ms'),
    user_ms: latest('user_ms', 'user_ms'),
    attributes: latest('attributes', 'attributes_ms'),
    attributes_ms: latest('attributes_ms', 'attributes_ms'),
    replay_mode: 'coalesce(excluded.replay_mode, sessions.replay_mode)',
    sample_rate: 'coalesce(excluded.sample_rate, sessions.sample_rate)',
    env: 'coalesce(excluded.env, sessions.env)',
    release: 'coalesce(excluded.release, sessions.release)',
    browser: client('browser'),
    browser_version: client('browser_version'),
    os: client('os'),
    device: client('device'),
    urls: `case when excluded.urls is null then sessions.urls else ${urls} end`,
    page_count: `case when excluded.urls is null then sessions.page_count else ${length} end`,
    entry_url: earliest('entry_url', 'entry_ms'),
    entry_ms: earliest('entry_ms', 'entry_ms'),
    test_run_id: test('test_run_id'),
    test_id: test('test_id'),
    test_retry: test('test_retry'),
    test_title: test('test_title'),
    test_file: test('test_file'),
  };
}

/** The sessions row a delta inserts, or adds to the existing row (each writer's upsert sums the counter column). */
export function sessionRow(
  table: TelemetryTable,
  projectId: string,
  receivedMs: number,
  d: SessionDelta,
  facts?: SessionFacts,
): Database['sessions'] {
  return {
    ...sessionCounters(table, d.count),
    ...factColumns(facts),
    error_count: d.errors,
    duration_ms: d.last - d.first,
    project_id: projectId,
    session_id: d.sessionId,
    app_id: d.appId,
    first_ms: d.first,
    last_ms: d.last,
    last_received_ms: receivedMs,
  };
}

/** One page path a session showed, as the writers store it (sessions/tables.ts). */
export type SessionPage = Database['session_pages'];

/**
 * Most distinct page paths stored per session (session_pages), which "URL contains" searches: the first ones stored,
 * as peers bound a session's pages. A single-page app with ids in its paths, or a hostile client, would otherwise grow
 * the table without bound; past the cap, a path the session already has is still refreshed (retention reads its
 * receipt), a new one is not stored. A batch names at most SESSION_FACT_LIMITS.maxPages paths per session.
 */
export const SESSION_PAGES_MAX = 500;

/** A session's batch paths, first seen first, each once. */
export const batchPaths = (facts: ReadonlyMap<string, SessionFacts>, sessionId: string): string[] => [
  ...new Set(facts.get(sessionId)?.pages ?? []),
];

/**
 * Of a session's batch `paths`, those it may store: all while the session's `stored` count leaves room for them, else
 * those already stored and the first new ones that fit under {@link SESSION_PAGES_MAX}. Each writer counts under the
 * session row's lock (the summary upsert before it, in the same transaction), so concurrent batches of one session
 * never pass the cap, and a retried batch finds its paths stored.
 */
export function pagesWithinCap(paths: string[], stored: number, isStored: (path: string) => boolean): string[] {
  if (stored + paths.length <= SESSION_PAGES_MAX) return paths;
  let room = SESSION_PAGES_MAX - stored;
  return paths.filter((path) => isStored(path) || room-- > 0);
}

/** A session's batch paths that it may store (see {@link pagesWithinCap}); every one when the writer does not check. */
export type PagesKept = (sessionId: string, paths: string[]) => string[];

/**
 * The page paths the batch's facts name for the sessions it stored rows of, as `kept` bounds them, each (path,
 * session) once, sorted by path then session: every write then takes the paths' and pairs' locks in the same order.
 * Storing them again changes nothing but the pair's time of receipt, so a retried batch adds no row.
 */
export function sessionPages(
  projectId: string,
  receivedMs: number,
  deltas: readonly SessionDelta[],
  facts: ReadonlyMap<string, SessionFacts>,
  kept: PagesKept,
): SessionPage[] {
  const pages = deltas.flatMap((d) => {
    const paths = batchPaths(facts, d.sessionId);
    return (paths.length === 0 ? paths : kept(d.sessionId, paths)).map((path) => ({
      project_id: projectId,
      path,
      session_id: d.sessionId,
      received_ms: receivedMs,
    }));
  });
  return pages.sort((a, b) => byText(a.path, b.path) || byText(a.session_id, b.session_id));
}
