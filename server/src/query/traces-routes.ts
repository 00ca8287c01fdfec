import { createRoute } from '@hono/zod-openapi';
import { sql, type Expression, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { DialectName } from '../db/connect';
import type { Database } from '../db/schema';
import { traceKey } from '../db/trace-key';
import type { Services } from '../http/env';
import { ApiError } from '../http/errors';
import { CONTROL_SECURITY, createRouter, errors } from '../http/openapi';
import { pageOf } from '../http/schemas';
import { afterPosition, readSortedCursor, sortedPage, type KeysetSort, type Position } from '../shared/keyset';
import { iso } from '../shared/time';
import { appIdFilter, LISTINGS, type Row } from './routes';
import { rootSpanOf, traceLabel } from './trace-label';
import {
  TRACE_SUMMARY_EXAMPLE,
  TraceSchema,
  traceParams,
  tracesQuery,
  TraceSummarySchema,
  type TraceSort,
  type TracesQuery,
} from './traces-schemas';

/** Without `from`, a search looks this far back (unless it names a trace or a session, which an index finds anyway). */
export const DEFAULT_TRACE_WINDOW_MS = 24 * 3_600_000;
/** Most spans the trace detail returns. */
export const MAX_TRACE_SPANS = 2000;

const STATUS_ERROR = 2;

/** The resource's `service.name` of span `s`: each database reads into the JSON text its own way. */
function serviceOf(dialect: DialectName): RawBuilder<string | null> {
  return dialect === 'postgres'
    ? sql`(s.resource::jsonb -> 'attributes' ->> 'service.name')`
    : sql`json_extract(s.resource, '$.attributes."service.name"')`;
}

/** `%`, `_` and the escape character itself match literally in a LIKE pattern after this. */
const likeContains = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Some span of the group satisfies `condition`. */
const anySpan = (condition: RawBuilder<unknown>) => sql<SqlBool>`max(case when ${condition} then 1 else 0 end) = 1`;

/** The nanosecond span of a trace; the *_ns columns hold decimal text, and both databases cast it to a 64-bit integer. */
const DURATION_NS = sql<number>`max(cast(s.end_ns as bigint)) - min(cast(s.start_ns as bigint))`;
const START_MS = sql<number>`min(s.time_ms)`;
/** Marks the JSON text of a span's events when one of them is an exception (OpenTelemetry's `recordException`). */
const EXCEPTION_EVENT = '%"name":"exception"%';
/** Marks the JSON text of a log record's attributes when it records an exception. */
const EXCEPTION_LOG = '%"exception.type"%';

/**
 * The errors of a trace: its spans that failed or recorded an exception, and the exception log records written in it
 * (a click whose handler threw: its span ends fine, the error log carries its trace). A span and a log of one failure
 * count once each.
 */
const errorCount = (projectId: string) =>
  sql<number>`sum(case when s.status_code = ${STATUS_ERROR} or s.events like ${EXCEPTION_EVENT} then 1 else 0 end) + (select count(*) from logs l where l.trace_key = s.trace_key and l.trace_id = s.trace_id and l.project_id = ${projectId} and l.attributes like ${EXCEPTION_LOG})`;

/** The aggregate each order sorts a trace by; all are integers (a duration in nanoseconds may pass 2^53). */
const sortValue = (sort: TraceSort, projectId: string): RawBuilder<number> =>
  ({ start: START_MS, duration: DURATION_NS, spans: sql<number>`count(*)`, errors: errorCount(projectId) })[sort];

interface Window {
  projectId: string;
  from: number | undefined;
  to: number | undefined;
}

/** The spans a search reads: the project's, in the window. */
function spansIn(db: Kysely<Database>, w: Window) {
  let q = db.selectFrom('spans as s').where('s.project_id', '=', w.projectId);
  if (w.from !== undefined) q = q.where('s.time_ms', '>=', w.from);
  if (w.to !== undefined) q = q.where('s.time_ms', '<', w.to);
  return q;
}

interface TraceRef {
  trace_id: string;
}

/** Root span and services of the page's traces, read by their trace index in the same window as the search. */
async function rootsAndServices(services: Services, w: Window, traces: readonly TraceRef[]) {
  const ids = traces.map((t) => t.trace_id);
  if (ids.length === 0)
    return {
      roots: new Map<string, { name: string; label: string; service: string | null; span_id: string }>(),
      names: new Map<string, string[]>(),
    };
  const service = serviceOf(services.dialect);
  const ofPage = spansIn(services.db, w)
    .where('s.trace_key', 'in', [...new Set(ids.map(traceKey))])
    .where('s.trace_id', 'in', ids);
  // The root: the earliest span whose parent is not stored (none given, or never received), else the earliest.
  const orphan = sql<SqlBool>`s.parent_span_id is null or not exists (select 1 from spans p where p.trace_key = s.trace_key and p.span_id = s.parent_span_id and p.trace_id = s.trace_id and p.project_id = s.project_id)`;
  const ranked = ofPage.select([
    's.trace_id',
    's.span_id',
    's.name',
    's.attributes',
    service.as('service'),
    sql<number>`row_number() over (partition by s.trace_id order by case when ${orphan} then 0 else 1 end, s.time_ms, s.id)`.as(
      'rank',
    ),
  ]);
  const [rootRows, serviceRows] = await Promise.all([
    services.db.selectFrom(ranked.as('r')).selectAll('r').where('r.rank', '=', 1).execute(),
    ofPage
      .select(['s.trace_id', service.as('service')])
      .distinct()
      .execute(),
  ]);
  const roots = new Map(
    rootRows.map((r) => [
      r.trace_id,
      { name: r.name, label: traceLabel(r.name, JSON.parse(r.attributes)), service: r.service, span_id: r.span_id },
    ]),
  );
  const names = new Map<string, string[]>();
  for (const r of serviceRows) {
    if (r.service === null) continue;
    names.set(r.trace_id, [...(names.get(r.trace_id) ?? []), r.service]);
  }
  for (const list of names.values()) list.sort();
  return { roots, names };
}

/** The search's conditions on a trace's spans, for its HAVING clause: the filters, then the position after the cursor. */
function traceConditions(
  dialect: DialectName,
  p: TracesQuery,
  projectId: string,
  appId: string | undefined,
  ks: KeysetSort,
  cursor: Position | undefined,
): Array<Expression<SqlBool>> {
  const having: Array<Expression<SqlBool>> = [];
  if (appId !== undefined) having.push(anySpan(sql`s.app_id = ${appId}`));
  if (p.service !== undefined) having.push(anySpan(sql`${serviceOf(dialect)} = ${p.service}`));
  if (p.name !== undefined)
    having.push(
      anySpan(sql`s.name ${sql.raw(dialect === 'postgres' ? 'ilike' : 'like')} ${likeContains(p.name)} escape '\\'`),
    );
  if (p.status !== undefined)
    having.push(sql<SqlBool>`max(s.status_code) = ${{ error: STATUS_ERROR, ok: 1, unset: 0 }[p.status]}`);
  if (p.min_duration_ms !== undefined)
    having.push(sql<SqlBool>`${DURATION_NS} >= ${Math.ceil(p.min_duration_ms * 1e6)}`);
  if (p.max_duration_ms !== undefined)
    having.push(sql<SqlBool>`${DURATION_NS} <= ${Math.floor(p.max_duration_ms * 1e6)}`);
  if (cursor) having.push(afterPosition(ks, sortValue(p.sort, projectId), sql.ref('s.trace_id'), cursor));
  return having;
}

const query = { tags: ['query'], security: CONTROL_SECURITY, method: 'get' as const };

const tracesRoute = createRoute({
  ...query,
  path: '/',
  summary:
    'Traces: one item per trace, newest first unless `sort` and `order` say otherwise, with its root span, duration, span and error counts and services',
  description:
    "Confined to the key's project. A trace's figures are those of its spans in the window [from, to); without `from` the window is the last " +
    `${DEFAULT_TRACE_WINDOW_MS / 3_600_000} hours, unless \`trace_id\` or \`session_id\` is given. Ordered by start (newest first) unless \`sort\` and \`order\` say otherwise, then trace id; ` +
    'filters on spans (`app`, `service`, `name`, `session_id`) keep a trace when any of its spans matches. Unknown query parameters are rejected.',
  request: { query: tracesQuery },
  responses: {
    200: {
      description: 'A page',
      content: {
        'application/json': {
          schema: pageOf(TraceSummarySchema),
          example: { data: [TRACE_SUMMARY_EXAMPLE], next_cursor: null },
        },
      },
    },
    ...errors(400, 401, 403),
  },
});

const traceRoute = createRoute({
  ...query,
  path: '/{trace_id}',
  summary: 'Every span of one trace, by start time, for its waterfall',
  description: `Spans as the span listing returns them (with attributes, events and links), at most ${MAX_TRACE_SPANS}; 404 when the project has none of this trace.`,
  request: { params: traceParams },
  responses: {
    200: {
      description: 'The trace',
      content: {
        'application/json': {
          schema: TraceSchema,
          example: {
            trace_id: TRACE_SUMMARY_EXAMPLE.trace_id,
            label: 'click on Add to cart',
            error_count: 0,
            spans: [],
            truncated: false,
          },
        },
      },
    },
    ...errors(400, 401, 403, 404),
  },
});

const startNs = (r: { start_ns: string }) => BigInt(r.start_ns);

/** Trace search and trace detail, confined to the key's project; mounted at /traces behind the query API's key check. */
export function traceRoutes(services: Services) {
  return createRouter()
    .openapi(tracesRoute, async (c) => {
      const p = c.req.valid('query');
      const { projectId } = c.get('caller');
      // Cursors from before the search could be sorted were by start, newest first.
      const ks: KeysetSort = { sort: p.sort, order: p.order, value: 'integer', defaultSort: 'start' };
      const cursor = readSortedCursor(p.cursor, ks);
      const pinned = p.trace_id !== undefined || p.session_id !== undefined;
      const appId = await appIdFilter(services, projectId, p.app);
      const w: Window = {
        projectId,
        from: p.from ?? (pinned ? undefined : services.clock.now() - DEFAULT_TRACE_WINDOW_MS),
        to: p.to,
      };
      let q = spansIn(services.db, w)
        .select([
          's.trace_id',
          START_MS.as('start_ms'),
          DURATION_NS.as('duration_ns'),
          sql<number>`count(*)`.as('span_count'),
          errorCount(projectId).as('error_count'),
          sql<string | null>`min(s.session_id)`.as('session_id'),
          // Exact as text: the drivers read a 64-bit integer into a double.
          sql<string>`cast(${sortValue(p.sort, projectId)} as text)`.as('sort_value'),
        ])
        .groupBy(['s.trace_key', 's.trace_id']);
      if (p.trace_id !== undefined)
        q = q.where('s.trace_key', '=', traceKey(p.trace_id)).where('s.trace_id', '=', p.trace_id);
      if (p.session_id !== undefined) {
        // Whole traces, not just the session's spans: the traces one of whose spans is the session's (its index finds them).
        const ofSession = services.db
          .selectFrom('spans')
          .select(['trace_key', 'trace_id'])
          .where('project_id', '=', projectId)
          .where('session_id', '=', p.session_id)
          .$asTuple('trace_key', 'trace_id');
        q = q.where(({ eb, refTuple }) => eb(refTuple('s.trace_key', 's.trace_id'), 'in', ofSession));
      }
      const having = traceConditions(services.dialect, p, projectId, appId, ks, cursor);
      if (having.length > 0) q = q.having(({ and }) => and(having));
      const rows = await q
        .orderBy(sortValue(p.sort, projectId), p.order)
        .orderBy('s.trace_id', p.order)
        .limit(p.limit + 1)
        .execute();
      const { roots, names } = await rootsAndServices(services, w, rows.slice(0, p.limit));
      const page = sortedPage(
        rows,
        p.limit,
        ks,
        (r) => ({
          trace_id: r.trace_id,
          root: roots.get(r.trace_id) ?? null,
          start: iso(Number(r.start_ms)),
          duration_ms: Number(r.duration_ns) / 1e6,
          span_count: Number(r.span_count),
          error_count: Number(r.error_count),
          services: names.get(r.trace_id) ?? [],
          session_id: r.session_id,
        }),
        (r) => ({ t: r.sort_value, k: r.trace_id }),
      );
      return c.json(page, 200);
    })
    .openapi(traceRoute, async (c) => {
      const { trace_id: traceId } = c.req.valid('param');
      const { projectId } = c.get('caller');
      const rows = (await services.db
        .selectFrom('spans as s')
        .innerJoin('apps', 'apps.id', 's.app_id')
        .selectAll('s')
        .select('apps.name as app')
        .where('s.project_id', '=', projectId)
        .where('s.trace_key', '=', traceKey(traceId))
        .where('s.trace_id', '=', traceId)
        .orderBy('s.time_ms')
        .orderBy('s.id')
        .limit(MAX_TRACE_SPANS + 1)
        .execute()) as Array<Row<'spans'>>;
      if (rows.length === 0) throw new ApiError(404, 'not_found', `no trace "${traceId}" in this project`);
      const spans = rows.slice(0, MAX_TRACE_SPANS);
      const { n: exceptionLogs } = await services.db
        .selectFrom('logs')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', projectId)
        .where('trace_key', '=', traceKey(traceId))
        .where('trace_id', '=', traceId)
        .where('attributes', 'like', EXCEPTION_LOG)
        .executeTakeFirstOrThrow();
      const failedSpans = rows.filter(
        (r) => r.status_code === STATUS_ERROR || r.events.includes(EXCEPTION_EVENT.slice(1, -1)),
      ).length;
      // time_ms is whole milliseconds: the nanosecond start orders spans within one millisecond (the sort is stable).
      spans.sort((a, b) => (startNs(a) < startNs(b) ? -1 : startNs(a) > startNs(b) ? 1 : 0));
      const json = spans.map(LISTINGS.spans.toJson);
      const root = rootSpanOf(json);
      return c.json(
        {
          trace_id: traceId,
          label: traceLabel(root.name, root.attributes),
          error_count: failedSpans + Number(exceptionLogs),
          spans: json,
          truncated: rows.length > MAX_TRACE_SPANS,
        },
        200,
      );
    });
}
