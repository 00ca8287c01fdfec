import type { DialectName } from '../db/connect';
import { mergedJsonList } from '../db/json-list';
import type { Database, TelemetryTable } from '../db/schema';
import type { StoredRow } from '../ingest/writer';

/**
 * What a write adds to the trace summaries (traces/tables.ts): one row per trace the stored rows touch, which each
 * writer upserts in the write's transaction. Only rows actually stored feed it (a retried span is not stored again), so
 * the counts stay exact under retries, as the session summaries do.
 */

export type SummaryRow = Database['trace_summaries'];

export const STATUS_ERROR = 2;
/** Marks the JSON text of a span's events when one of them is an exception (OpenTelemetry's `recordException`). */
export const EXCEPTION_EVENT = '"name":"exception"';
/** Marks the JSON text of a log record's attributes when it records an exception. */
export const EXCEPTION_LOG = '"exception.type"';

/**
 * Most distinct values each list keeps, the first seen: a trace with more services, span names or apps is not found by
 * a filter on the later ones (its figures stay exact). Traces of a browser and a few back ends have far fewer.
 */
export const SUMMARY_LIMITS = { services: 16, names: 64, app_ids: 16 } as const;

const TABLE = 'trace_summaries';
const KEY = ['project_id', 'trace_key', 'trace_id'] as const;

/** Every column of a summary row, in the order the upsert names them. */
export const SUMMARY_COLUMNS = [
  ...KEY,
  'start_ms',
  'start_ns',
  'end_ns',
  'duration_ns',
  'span_count',
  'error_count',
  'status_code',
  'session_id',
  'root_span_id',
  'root_name',
  'root_service',
  'root_attributes',
  'root_has_parent',
  'root_ms',
  'services',
  'names',
  'app_ids',
  'last_received_ms',
] as const satisfies ReadonlyArray<keyof SummaryRow>;

/** A summary row being folded, with its lists as sets until it is written. */
interface Fold {
  row: SummaryRow;
  services: Set<string>;
  names: Set<string>;
  apps: Set<string>;
}

const nsLess = (a: string, b: string) => BigInt(a) < BigInt(b);

/** A summary's root fields when it has no root span (yet, or no longer: erasure). */
export const NO_ROOT = {
  root_span_id: null,
  root_name: null,
  root_service: null,
  root_attributes: null,
  root_has_parent: null,
  root_ms: null,
} as const;

type RootRank = Pick<SummaryRow, 'root_has_parent' | 'root_ms' | 'root_span_id'>;

/**
 * Whether root candidate `a` outranks the stored root `b`: a span naming no parent first (the trace's start, even if it
 * arrived after its children), then the earliest (time_ms), then the smaller span id. Unlike a rule on "parent not
 * stored", this needs no look at other spans, so it can be kept at ingest; a span whose parent was never received is
 * the root only while no parentless span is stored, and the earliest span nearly always is one anyway.
 */
function outranks(a: RootRank, b: RootRank): boolean {
  if (b.root_span_id === null) return true;
  if (a.root_has_parent !== b.root_has_parent) return a.root_has_parent! < b.root_has_parent!;
  if (a.root_ms !== b.root_ms) return a.root_ms! < b.root_ms!;
  return a.root_span_id! < b.root_span_id;
}

const emptyRow = (projectId: string, row: StoredRow): SummaryRow => ({
  project_id: projectId,
  trace_key: row.trace_key as number,
  trace_id: row.trace_id as string,
  start_ms: null,
  start_ns: null,
  end_ns: null,
  duration_ns: null,
  span_count: 0,
  error_count: 0,
  status_code: null,
  session_id: null,
  ...NO_ROOT,
  services: '[]',
  names: '[]',
  app_ids: '[]',
  last_received_ms: row.received_ms,
});

/** The resource's `service.name` (the normalizer required it), parsed once per distinct resource text. */
function serviceReader(): (resource: unknown) => string | null {
  const seen = new Map<string, string | null>();
  return (resource) => {
    if (typeof resource !== 'string') return null;
    let service = seen.get(resource);
    if (service === undefined) {
      const name = (JSON.parse(resource) as { attributes?: Record<string, unknown> }).attributes?.['service.name'];
      seen.set(resource, (service = typeof name === 'string' ? name : null));
    }
    return service;
  };
}

/** Adds one stored span to its trace's fold. */
function addSpan(f: Fold, span: StoredRow, service: string | null): void {
  const r = f.row;
  const startNs = span.start_ns as string;
  const endNs = span.end_ns as string;
  const status = span.status_code as number;
  r.span_count += 1;
  if (status === STATUS_ERROR || (span.events as string).includes(EXCEPTION_EVENT)) r.error_count += 1;
  r.start_ms = r.start_ms === null ? span.time_ms : Math.min(r.start_ms, span.time_ms);
  if (r.start_ns === null || nsLess(startNs, r.start_ns)) r.start_ns = startNs;
  if (r.end_ns === null || nsLess(r.end_ns, endNs)) r.end_ns = endNs;
  r.status_code = Math.max(r.status_code ?? status, status);
  if (span.session_id !== null && (r.session_id === null || span.session_id < r.session_id))
    r.session_id = span.session_id;
  const candidate = {
    root_span_id: span.span_id as string,
    root_has_parent: span.parent_span_id ? 1 : 0,
    root_ms: span.time_ms,
  };
  if (outranks(candidate, r))
    Object.assign(r, candidate, {
      root_name: span.name as string,
      root_service: service,
      root_attributes: span.attributes as string,
    });
  if (service !== null && f.services.size < SUMMARY_LIMITS.services) f.services.add(service);
  if (f.names.size < SUMMARY_LIMITS.names) f.names.add(span.name as string);
  if (f.apps.size < SUMMARY_LIMITS.app_ids) f.apps.add(span.app_id);
}

/**
 * The summary rows a write's stored rows add, sorted by trace key and id: every write then locks summary rows in the
 * same order (as it does session rows), so concurrent writes to the same traces wait for each other instead of
 * deadlocking. Spans add to every figure; a log record only to the error count, when it records an exception. Other
 * tables add nothing.
 */
export function summaryDeltas(table: TelemetryTable, projectId: string, rows: Iterable<StoredRow>): SummaryRow[] {
  if (table !== 'spans' && table !== 'logs') return [];
  const folds = new Map<string, Fold>();
  const serviceOf = serviceReader();
  const foldOf = (row: StoredRow): Fold => {
    const id = row.trace_id as string;
    let f = folds.get(id);
    if (!f)
      folds.set(id, (f = { row: emptyRow(projectId, row), services: new Set(), names: new Set(), apps: new Set() }));
    f.row.last_received_ms = Math.max(f.row.last_received_ms, row.received_ms);
    return f;
  };
  for (const row of rows) {
    if (table === 'spans') addSpan(foldOf(row), row, serviceOf(row.resource));
    else if (typeof row.trace_id === 'string' && String(row.attributes).includes(EXCEPTION_LOG))
      foldOf(row).row.error_count += 1;
  }
  return [...folds.values()]
    .map(({ row, services, names, apps }) => ({
      ...row,
      duration_ns:
        row.start_ns === null || row.end_ns === null ? null : Number(BigInt(row.end_ns) - BigInt(row.start_ns)),
      services: JSON.stringify([...services]),
      names: JSON.stringify([...names]),
      app_ids: JSON.stringify([...apps]),
    }))
    .sort((a, b) => a.trace_key - b.trace_key || (a.trace_id < b.trace_id ? -1 : a.trace_id > b.trace_id ? 1 : 0));
}

/** The smaller (larger) of two values where either may be null: null only when both are. */
const extreme = (dialect: DialectName, fn: 'min' | 'max', a: string, b: string) =>
  dialect === 'postgres'
    ? `${fn === 'min' ? 'least' : 'greatest'}(${a}, ${b})`
    : `coalesce(${fn}(${a}, ${b}), ${a}, ${b})`;

/** The stored or the incoming nanosecond time, whichever is earlier (`<`) or later (`>`), compared as integers. */
const nsPick = (column: string, op: '<' | '>') =>
  `case when excluded.${column} is not null and (${TABLE}.${column} is null or cast(excluded.${column} as bigint) ${op} cast(${TABLE}.${column} as bigint)) then excluded.${column} else ${TABLE}.${column} end`;

/** The incoming root outranks the stored one (see `outranks`): row values compare left to right in both databases. */
const BETTER_ROOT = `excluded.root_span_id is not null and (${TABLE}.root_span_id is null or (excluded.root_has_parent, excluded.root_ms, excluded.root_span_id) < (${TABLE}.root_has_parent, ${TABLE}.root_ms, ${TABLE}.root_span_id))`;
const root = (column: string) => `case when ${BETTER_ROOT} then excluded.${column} else ${TABLE}.${column} end`;

/**
 * The ON CONFLICT values that add an incoming summary row to the stored one, the same figures `summaryDeltas` folds in
 * memory. Both databases evaluate every SET expression on the row as it was, so none sees another's new value.
 */
export function summaryUpdate(
  dialect: DialectName,
): Record<Exclude<(typeof SUMMARY_COLUMNS)[number], (typeof KEY)[number]>, string> {
  const startNs = nsPick('start_ns', '<');
  const endNs = nsPick('end_ns', '>');
  const sum = (column: string) => `${TABLE}.${column} + excluded.${column}`;
  const min = (column: string) => extreme(dialect, 'min', `${TABLE}.${column}`, `excluded.${column}`);
  const max = (column: string) => extreme(dialect, 'max', `${TABLE}.${column}`, `excluded.${column}`);
  const list = (column: keyof typeof SUMMARY_LIMITS) => mergedJsonList(dialect, TABLE, column, SUMMARY_LIMITS[column]);
  return {
    start_ms: min('start_ms'),
    start_ns: startNs,
    end_ns: endNs,
    duration_ns: `cast(${endNs} as bigint) - cast(${startNs} as bigint)`,
    span_count: sum('span_count'),
    error_count: sum('error_count'),
    status_code: max('status_code'),
    session_id: min('session_id'),
    root_span_id: root('root_span_id'),
    root_name: root('root_name'),
    root_service: root('root_service'),
    root_attributes: root('root_attributes'),
    root_has_parent: root('root_has_parent'),
    root_ms: root('root_ms'),
    services: list('services'),
    names: list('names'),
    app_ids: list('app_ids'),
    last_received_ms: max('last_received_ms'),
  };
}

/** The summary upsert's conflict target. */
export const SUMMARY_KEY = KEY;
export const SUMMARY_TABLE = TABLE;
