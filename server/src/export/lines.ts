import type { Kysely } from 'kysely';
import type { Database, TelemetryTable } from '../db/schema';
import type { Row } from '../records/json';
import { listRecords } from '../records/store';
import { storedEvents } from '../replay/stored-events';
import { invalid } from '../shared/domain-errors';
import { encodeSortedCursor, readSortedCursor, type KeysetSort } from '../shared/keyset';
import { logsRequest, metricsRequest, traceRequest } from './otlp';

/** What can be exported, the table each is read from, and how a page of it becomes lines. */
export const EXPORT_SIGNALS = ['spans', 'logs', 'metrics', 'replay'] as const;
export type ExportSignal = (typeof EXPORT_SIGNALS)[number];

interface Source<T extends TelemetryTable> {
  table: T;
  /** Rows a page reads (and, for OTLP signals, one line holds) unless asked otherwise, and the most it may. */
  page: { default: number; max: number };
  /** A page's rows as the JSON objects of its lines, each with the row it ends at, made as each line is taken. */
  lines(rows: Array<Row<T>>): Iterable<[json: Record<string, unknown>, last: Row<T>]>;
}

/** One export request per page: the page's rows nested by resource and scope. */
const onePerPage =
  <T extends TelemetryTable>(request: (rows: Array<Row<T>>) => Record<string, unknown>) =>
  (rows: Array<Row<T>>): Array<[Record<string, unknown>, Row<T>]> => [[request(rows), rows[rows.length - 1]!]];

/** A replay chunk as ingest's `POST /ingest/replay/chunk` takes it: the rrweb events inline. */
function replayChunk(r: Row<'replay_chunks'>): Record<string, unknown> {
  const { events, unreadable } = storedEvents(r.encoding, r.data);
  return {
    serviceName: r.app,
    sessionId: r.session_id,
    replayId: r.replay_id,
    seq: r.seq,
    startTs: r.time_ms,
    endTs: r.end_ms,
    eventCount: events.length,
    events,
    ...(unreadable !== undefined && { unreadable }),
  };
}

/** The table each signal is read from. */
interface Tables {
  spans: 'spans';
  logs: 'logs';
  metrics: 'metric_points';
  replay: 'replay_chunks';
}

const SOURCES: { [S in ExportSignal]: Source<Tables[S]> } = {
  spans: { table: 'spans', page: { default: 500, max: 1000 }, lines: onePerPage(traceRequest) },
  logs: { table: 'logs', page: { default: 500, max: 1000 }, lines: onePerPage(logsRequest) },
  metrics: { table: 'metric_points', page: { default: 500, max: 1000 }, lines: onePerPage(metricsRequest) },
  // A chunk holds up to thousands of events: a line each, and few read at once.
  replay: {
    table: 'replay_chunks',
    page: { default: 20, max: 100 },
    // Decoded one at a time: a chunk's events reach 5 MB of JSON, a page's twenty would be 100 MB.
    *lines(rows) {
      for (const r of rows) yield [replayChunk(r), r];
    },
  },
};

/** An export's cursor is a position in one signal's oldest-first order: read under another signal it is refused. */
const keysetOf = (signal: ExportSignal): KeysetSort => ({
  sort: signal,
  order: 'asc',
  value: 'integer',
  defaultSort: signal,
});

export interface ExportQuery {
  projectId: string;
  signal: ExportSignal;
  /** Inclusive lower and exclusive upper bound, epoch ms. */
  from?: number;
  to?: number;
  /** Where a previous export stopped: the `cursor` of the last line it wrote. */
  cursor?: string;
  pageSize?: number;
}

/**
 * Checks an export's page size and cursor before anything is read, so the answer can still be a 400: a page larger
 * than the signal allows, or a forged cursor or one of another signal, is refused up front.
 */
export function checkExport(signal: ExportSignal, cursor: string | undefined, pageSize: number | undefined): void {
  const { max } = SOURCES[signal].page;
  if (pageSize !== undefined && (!Number.isSafeInteger(pageSize) || pageSize < 1 || pageSize > max))
    throw invalid(`page_size must be an integer from 1 to ${max} for ${signal}`, 'invalid_request', {
      field: 'page_size',
    });
  readSortedCursor(cursor, keysetOf(signal));
}

/**
 * The project's records of one signal in `[from, to)`, oldest first, as JSON lines: an OTLP/JSON export request per
 * page for spans, logs and metric points, a chunk per line for replays. Pages are read one after the other as the
 * consumer takes the lines, so memory holds one page however large the export. Each line ends with `"cursor"`: the
 * position after its last record, from which an export resumes with exactly the rest.
 */
export async function* exportLines(db: Kysely<Database>, q: ExportQuery): AsyncGenerator<string> {
  const source = SOURCES[q.signal] as Source<TelemetryTable>;
  const keyset = keysetOf(q.signal);
  const limit = q.pageSize ?? source.page.default;
  const start = readSortedCursor(q.cursor, keyset);
  let after = start && { t: Number(start.t), k: Number(start.k) };
  for (;;) {
    const rows = await listRecords(db, source.table, {
      projectId: q.projectId,
      ...(q.from !== undefined && { from: q.from }),
      ...(q.to !== undefined && { to: q.to }),
      equal: {},
      ...(after && { after }),
      limit,
      oldestFirst: true,
    });
    const page = rows.slice(0, limit);
    for (const [json, last] of page.length > 0 ? source.lines(page) : []) {
      const cursor = encodeSortedCursor(keyset, { t: last.time_ms, k: String(last.id) });
      yield `${JSON.stringify({ ...json, cursor })}\n`;
    }
    if (rows.length <= limit) return;
    const last = page[page.length - 1]!;
    after = { t: last.time_ms, k: last.id };
  }
}
