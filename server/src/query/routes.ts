import { createRoute, z } from '@hono/zod-openapi';
import type { Kysely, Selectable } from 'kysely';
import type { RecipeStep } from '../../../wire/replay';
import type { Database, TelemetryTable } from '../db/schema';
import { traceKey } from '../db/trace-key';
import { controlAuth } from '../http/auth';
import type { Services } from '../http/env';
import { badRequest } from '../http/errors';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer } from '../http/openapi';
import { listOf, pageOf, rangeQuery, traceIdQuery } from '../http/schemas';
import { storedEvents } from '../replay/stored-events';
import { listApps, resolveServiceNames } from '../projects/apps-store';
import { iso } from '../shared/time';
import { keysetPage } from '../shared/keyset';
import { readCursor } from '../http/cursor';
import { samplingSummary } from './sampling';
import { AppSchema, SamplingSchema, SessionFacetsSchema, sessionsQuery, SessionSchema } from './schemas';
import {
  listingQuery,
  LogRecordSchema,
  MetricPointSchema,
  RecipeRecordSchema,
  ReplayChunkRecordSchema,
  SpanSchema,
} from '../records/schemas';
import { FACETS_LIMIT, sessionFacets } from '../sessions/facets';
import { afterCursor, encodeSessionCursor, readSessionCursor, SORT_COLUMN } from '../sessions/listing';
import { readAttributeFilters, sessionConditions, sessionsOfUser, type SessionFilters } from './session-filters';

export type Row<T extends TelemetryTable> = Selectable<Database[T]> & { app: string };
type Filter = 'session_id' | 'trace_id' | 'name';

interface Listing<T extends TelemetryTable> {
  path: string;
  summary: string;
  item: z.ZodType;
  table: T;
  filters: readonly Filter[];
  defaultLimit: number;
  maxLimit: number;
  toJson: (row: Row<T>) => Record<string, unknown>;
}

const FILTERS: Record<Filter, z.ZodType> = {
  session_id: z.string().optional(),
  trace_id: traceIdQuery,
  name: z.string().optional(),
};

const parse = (json: string): unknown => JSON.parse(json);

const common = (r: Row<TelemetryTable>) => ({
  id: r.id,
  app: r.app,
  session_id: r.session_id,
  received_at: iso(r.received_ms),
});

/** A stored recipe step as the API returns it: the step as recorded, with where and when it was stored. */
export const recipeJson = (r: Row<'recipes'>) => ({
  ...common(r),
  replay_id: r.replay_id,
  trace_id: r.trace_id,
  ...(parse(r.step) as RecipeStep),
});

/** A session summary as the API returns it. */
export const sessionJson = (s: Selectable<Database['sessions']> & { app: string }) => ({
  session_id: s.session_id,
  app: s.app,
  first_seen: iso(s.first_ms),
  last_seen: iso(s.last_ms),
  counts: {
    spans: s.span_count,
    logs: s.log_count,
    metric_points: s.metric_count,
    replay_chunks: s.replay_chunk_count,
    recipes: s.recipe_count,
  },
  user:
    s.user_id === null
      ? null
      : {
          id: s.user_id,
          ...(s.user_email !== null && { email: s.user_email }),
          ...(s.user_name !== null && { name: s.user_name }),
        },
  attributes: s.attributes === null ? {} : (parse(s.attributes) as Record<string, unknown>),
  replay_mode: s.replay_mode,
  // PostgreSQL's driver returns double precision as a number already; SQLite's REAL likewise.
  sample_rate: s.sample_rate,
  duration_ms: s.duration_ms,
  env: s.env,
  release: s.release,
  pages: s.page_count,
  entry_url: s.entry_url,
  urls: s.urls === null ? [] : (parse(s.urls) as string[]),
  errors: s.error_count,
  device: { browser: s.browser, browser_version: s.browser_version, os: s.os, type: s.device },
  test:
    s.test_run_id === null
      ? null
      : { run_id: s.test_run_id, test_id: s.test_id, retry: s.test_retry, title: s.test_title, file: s.test_file },
});

export const LISTINGS = {
  spans: {
    path: '/spans',
    summary: 'Spans',
    item: SpanSchema,
    table: 'spans',
    filters: ['session_id', 'trace_id', 'name'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: (r) => ({
      ...common(r),
      trace_id: r.trace_id,
      span_id: r.span_id,
      parent_span_id: r.parent_span_id,
      name: r.name,
      kind: r.kind,
      start_time_unix_nano: r.start_ns,
      end_time_unix_nano: r.end_ns,
      time: iso(r.time_ms),
      duration_ms: r.duration_ms,
      status: { code: r.status_code, message: r.status_message },
      attributes: parse(r.attributes),
      events: parse(r.events),
      links: parse(r.links),
      resource: parse(r.resource),
      scope: parse(r.scope),
    }),
  } satisfies Listing<'spans'>,
  logs: {
    path: '/logs',
    summary: 'Log records',
    item: LogRecordSchema,
    table: 'logs',
    filters: ['session_id', 'trace_id'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: (r) => ({
      ...common(r),
      time_unix_nano: r.time_ns,
      observed_time_unix_nano: r.observed_ns,
      time: iso(r.time_ms),
      severity_number: r.severity_number,
      severity_text: r.severity_text,
      body: parse(r.body),
      event_name: r.event_name,
      trace_id: r.trace_id,
      span_id: r.span_id,
      attributes: parse(r.attributes),
      resource: parse(r.resource),
      scope: parse(r.scope),
    }),
  } satisfies Listing<'logs'>,
  metric_points: {
    path: '/metrics',
    summary: 'Metric data points',
    item: MetricPointSchema,
    table: 'metric_points',
    filters: ['session_id', 'name'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: (r) => ({
      ...common(r),
      name: r.name,
      description: r.description,
      unit: r.unit,
      type: r.type,
      time_unix_nano: r.time_ns,
      start_time_unix_nano: r.start_ns,
      time: iso(r.time_ms),
      value: r.value,
      data: parse(r.data),
      attributes: parse(r.attributes),
      resource: parse(r.resource),
      scope: parse(r.scope),
    }),
  } satisfies Listing<'metric_points'>,
  replay_chunks: {
    path: '/replay/chunks',
    summary: 'Replay chunks with their decoded events',
    item: ReplayChunkRecordSchema,
    table: 'replay_chunks',
    filters: ['session_id'],
    defaultLimit: 20,
    maxLimit: 100,
    toJson: (r) => ({
      ...common(r),
      replay_id: r.replay_id,
      seq: r.seq,
      start_time: iso(r.time_ms),
      end_time: iso(r.end_ms),
      event_count: r.event_count,
      encoding: r.encoding,
      ...storedEvents(r.encoding, r.data),
    }),
  } satisfies Listing<'replay_chunks'>,
  recipes: {
    path: '/recipes',
    summary: 'Recipe steps',
    item: RecipeRecordSchema,
    table: 'recipes',
    filters: ['session_id', 'trace_id'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: recipeJson,
  } satisfies Listing<'recipes'>,
};

/**
 * Kysely cannot type a query over a table chosen at run time, so listings query this view of the columns every
 * telemetry table shares; the listings above keep each table paired with its row mapper.
 */
interface SharedColumns {
  id: number;
  project_id: string;
  app_id: string;
  time_ms: number;
  session_id: string | null;
  trace_id: string | null;
  trace_key: number | null;
  name: string;
}
type SharedDb = Kysely<{ t: SharedColumns; apps: Database['apps'] }>;

export async function appIdFilter(
  services: Services,
  projectId: string,
  name: string | undefined,
): Promise<string | undefined> {
  if (name === undefined || name === '') return undefined;
  const found = (await resolveServiceNames(services.db, projectId, [name])).get(name);
  if (!found) throw badRequest(`app "${name}" is neither an app name nor an alias in this project`, { field: 'app' });
  return found.id;
}

const query = { tags: ['query'], security: CONTROL_SECURITY, method: 'get' as const };
const LISTED = "Newest first, confined to the key's project. Unknown query parameters are rejected.";

function listingRoute<T extends TelemetryTable>(listing: Listing<T>) {
  return createRoute({
    ...query,
    path: listing.path,
    summary: listing.summary,
    description: LISTED,
    request: {
      query: listingQuery(
        Object.fromEntries(listing.filters.map((f) => [f, FILTERS[f]])),
        listing.defaultLimit,
        listing.maxLimit,
      ),
    },
    responses: { 200: jsonAnswer('A page', pageOf(listing.item)), ...errors(400, 401, 403) },
  });
}

function addListing<T extends TelemetryTable>(
  app: ReturnType<typeof createRouter>,
  services: Services,
  listing: Listing<T>,
): void {
  app.openapi(listingRoute(listing), async (c) => {
    const params = c.req.valid('query') as Record<string, unknown> & {
      app?: string;
      from?: number;
      to?: number;
      user_id?: string;
      limit: number;
    };
    const { projectId } = c.get('caller');
    const { limit, from, to, user_id: userId } = params;
    const cursor = readCursor(c, 'number');
    const appId = await appIdFilter(services, projectId, params.app);
    let q = (services.db as unknown as SharedDb)
      .selectFrom(`${listing.table} as r` as 't as r')
      .innerJoin('apps', 'apps.id', 'r.app_id')
      .selectAll('r')
      .select('apps.name as app')
      .where('r.project_id', '=', projectId);
    if (appId) q = q.where('r.app_id', '=', appId);
    // The records of every session whose (latest) user is this one.
    if (userId !== undefined) q = q.where('r.session_id', 'in', sessionsOfUser(services.db, projectId, userId));
    if (from !== undefined) q = q.where('r.time_ms', '>=', from);
    if (to !== undefined) q = q.where('r.time_ms', '<', to);
    for (const f of listing.filters) {
      const v = params[f];
      if (typeof v !== 'string' || v === '') continue;
      // trace_id arrives lower-cased and checked by its schema.
      q =
        f === 'trace_id'
          ? q.where('r.trace_key', '=', traceKey(v)).where('r.trace_id', '=', v)
          : q.where(`r.${f}`, '=', v);
    }
    if (cursor) {
      q = q.where((eb) =>
        eb.or([
          eb('r.time_ms', '<', cursor.t),
          eb.and([eb('r.time_ms', '=', cursor.t), eb('r.id', '<', Number(cursor.k))]),
        ]),
      );
    }
    const rows = (await q
      .orderBy('r.time_ms', 'desc')
      .orderBy('r.id', 'desc')
      .limit(limit + 1)
      .execute()) as unknown as Array<Row<T> & { time_ms: number; id: number }>;
    return c.json(
      keysetPage(rows, limit, listing.toJson, (r) => ({ t: r.time_ms, k: r.id })),
      200,
    );
  });
}

const appsRoute = createRoute({
  ...query,
  path: '/apps',
  summary: "Apps of the key's project with their aliases",
  responses: { 200: jsonAnswer('Apps', listOf(AppSchema)), ...errors(401, 403) },
});

const sessionsRoute = createRoute({
  ...query,
  path: '/sessions',
  summary:
    'Sessions with their time range, duration, user, attributes, pages, errors, device, counts per signal and sampling',
  description:
    "Confined to the key's project; newest last activity first unless `sort` and `order` say otherwise. Unknown query parameters are rejected. " +
    'A session is in range when its activity overlaps [from, to). Every filter given must hold.',
  request: { query: sessionsQuery },
  responses: { 200: jsonAnswer('A page', pageOf(SessionSchema)), ...errors(400, 401, 403) },
});

const facetsRoute = createRoute({
  ...query,
  path: '/sessions/facets',
  summary: "Values the sessions listing's filters can take: environments, releases, browsers and apps",
  description:
    `Distinct values among the key's project's sessions whose activity overlaps [from, to) (all sessions without them), alphabetical, at most ${FACETS_LIMIT} each. ` +
    'Sessions that sent no environment, release or user agent add nothing.',
  request: { query: z.strictObject(rangeQuery) },
  responses: { 200: jsonAnswer('The values', SessionFacetsSchema), ...errors(400, 401, 403) },
});

const samplingRoute = createRoute({
  ...query,
  path: '/sessions/sampling',
  summary: 'Sessions received per replay mode and the sessions estimated before sampling',
  description:
    "From the session records of the key's project: each session counts once however often its batches were retried. A session stands for 1 / its `svc.sample_rate` " +
    'sessions before sampling (1 when it sent none). `from` and `to` select sessions whose activity overlaps the window, as in the session listing.',
  request: { query: z.strictObject(rangeQuery) },
  responses: { 200: jsonAnswer('The figures', SamplingSchema), ...errors(400, 401, 403) },
});

/** Query API: sessions and every stored signal, newest first, confined to the key's project. */
export function queryRoutes(services: Services) {
  const app = createRouter();
  app.use('*', controlAuth(services));

  app.openapi(appsRoute, async (c) => {
    const apps = await listApps(services.db, c.get('caller').projectId);
    return c.json({ data: apps.map((a) => ({ id: a.id, name: a.name, aliases: a.aliases })) }, 200);
  });

  app.openapi(sessionsRoute, async (c) => {
    const { app: appName, sort, order, limit, cursor: rawCursor, ...params } = c.req.valid('query');
    const { projectId } = c.get('caller');
    const column = SORT_COLUMN[sort];
    const cursor = readSessionCursor(rawCursor, sort, order);
    const attributes = readAttributeFilters(c);
    const filters: SessionFilters = { ...params, appId: await appIdFilter(services, projectId, appName) };
    let q = services.db
      .selectFrom('sessions as s')
      .innerJoin('apps', 'apps.id', 's.app_id')
      .selectAll('s')
      .select('apps.name as app')
      .where('s.project_id', '=', projectId);
    for (const condition of sessionConditions(services.dialect, filters, attributes)) q = q.where(condition);
    if (cursor) q = q.where(afterCursor(column, order, cursor));
    const rows = await q
      .orderBy(`s.${column}`, order)
      .orderBy('s.session_id', order)
      .limit(limit + 1)
      .execute();
    const kept = rows.slice(0, limit);
    const last = kept[kept.length - 1];
    const next = rows.length > limit && last ? encodeSessionCursor(sort, order, last[column], last.session_id) : null;
    return c.json({ data: kept.map(sessionJson), next_cursor: next }, 200);
  });

  app.openapi(facetsRoute, async (c) => {
    const { app: name, from, to } = c.req.valid('query');
    const { projectId } = c.get('caller');
    const appId = await appIdFilter(services, projectId, name);
    const range =
      from === undefined && to === undefined ? [] : sessionConditions(services.dialect, { appId, from, to }, []);
    return c.json(await sessionFacets(services.db, { projectId, appId, range }), 200);
  });

  app.openapi(samplingRoute, async (c) => {
    const { app: name, from, to } = c.req.valid('query');
    const { projectId } = c.get('caller');
    const appId = await appIdFilter(services, projectId, name);
    return c.json(await samplingSummary(services.db, projectId, { appId, from, to }), 200);
  });

  addListing(app, services, LISTINGS.spans);
  addListing(app, services, LISTINGS.logs);
  addListing(app, services, LISTINGS.metric_points);
  addListing(app, services, LISTINGS.replay_chunks);
  addListing(app, services, LISTINGS.recipes);
  return app;
}
