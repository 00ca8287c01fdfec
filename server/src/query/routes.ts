import { Hono, type Context } from 'hono';
import type { Kysely, Selectable } from 'kysely';
import type { RecipeStep } from '../../../wire/replay';
import type { Database, TelemetryTable } from '../db/schema';
import { traceKey } from '../db/trace-key';
import { controlAuth } from '../http/auth';
import type { AppEnv, Services } from '../http/env';
import { badRequest } from '../http/errors';
import { storedEvents } from '../replay/stored-events';
import { listApps, resolveServiceNames } from '../tenancy/apps';
import { iso, keysetPage, readCursor, readLimit, readTime, checkParams } from './params';
import { samplingSummary } from './sampling';
import { ATTRIBUTE_PARAM, attributeMatches, readAttributeFilters, readUserId, sessionsOfUser } from './session-filters';

export type Row<T extends TelemetryTable> = Selectable<Database[T]> & { app: string };
type Filter = 'session_id' | 'trace_id' | 'name';

interface Listing<T extends TelemetryTable> {
  table: T;
  filters: readonly Filter[];
  defaultLimit: number;
  maxLimit: number;
  toJson: (row: Row<T>) => Record<string, unknown>;
}

const parse = (json: string): unknown => JSON.parse(json);

const common = (r: Row<TelemetryTable>) => ({ id: r.id, app: r.app, session_id: r.session_id, received_at: iso(r.received_ms) });

/** A stored recipe step as the API returns it: the step as recorded, with where and when it was stored. */
export const recipeJson = (r: Row<'recipes'>) => ({ ...common(r), replay_id: r.replay_id, trace_id: r.trace_id, ...(parse(r.step) as RecipeStep) });

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
  user: s.user_id === null ? null : { id: s.user_id, ...(s.user_email !== null && { email: s.user_email }), ...(s.user_name !== null && { name: s.user_name }) },
  attributes: s.attributes === null ? {} : (parse(s.attributes) as Record<string, unknown>),
  replay_mode: s.replay_mode,
  // PostgreSQL's driver returns double precision as a number already; SQLite's REAL likewise.
  sample_rate: s.sample_rate,
});

const LISTINGS = {
  spans: {
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

async function appIdFilter(services: Services, projectId: string, c: Context): Promise<string | undefined> {
  const name = c.req.query('app');
  if (name === undefined || name === '') return undefined;
  const found = (await resolveServiceNames(services.db, projectId, [name])).get(name);
  if (!found) throw badRequest(`app "${name}" is neither an app name nor an alias in this project`, { field: 'app' });
  return found.id;
}

function listRoute<T extends TelemetryTable>(services: Services, listing: Listing<T>) {
  const allowed = ['app', 'from', 'to', 'limit', 'cursor', 'user_id', ...listing.filters];
  return async (c: Context<AppEnv>) => {
    checkParams(c, allowed);
    const { projectId } = c.get('caller');
    const limit = readLimit(c, listing.defaultLimit, listing.maxLimit);
    const cursor = readCursor(c, 'number');
    const from = readTime(c, 'from');
    const to = readTime(c, 'to');
    const userId = readUserId(c);
    const appId = await appIdFilter(services, projectId, c);
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
      const v = c.req.query(f);
      if (v === undefined || v === '') continue;
      if (f === 'trace_id') {
        const traceId = v.toLowerCase();
        if (!/^[0-9a-f]{32}$/.test(traceId)) throw badRequest('trace_id must be 32 hex characters', { field: 'trace_id' });
        q = q.where('r.trace_key', '=', traceKey(traceId)).where('r.trace_id', '=', traceId);
      } else q = q.where(`r.${f}`, '=', v);
    }
    if (cursor) {
      q = q.where((eb) =>
        eb.or([eb('r.time_ms', '<', cursor.t), eb.and([eb('r.time_ms', '=', cursor.t), eb('r.id', '<', Number(cursor.k))])]),
      );
    }
    const rows = (await q.orderBy('r.time_ms', 'desc').orderBy('r.id', 'desc').limit(limit + 1).execute()) as unknown as Array<Row<T> & { time_ms: number; id: number }>;
    return c.json(keysetPage(rows, limit, listing.toJson, (r) => ({ t: r.time_ms, k: r.id })));
  };
}

/** Query API: sessions and every stored signal, newest first, confined to the key's project. */
export function queryRoutes(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('*', controlAuth(services));

  app.get('/apps', async (c) => {
    const apps = await listApps(services.db, c.get('caller').projectId);
    return c.json({ data: apps.map((a) => ({ id: a.id, name: a.name, aliases: a.aliases })) });
  });

  app.get('/sessions', async (c) => {
    checkParams(c, ['app', 'from', 'to', 'limit', 'cursor', 'user_id'], [ATTRIBUTE_PARAM]);
    const { projectId } = c.get('caller');
    const limit = readLimit(c, 50, 500);
    const cursor = readCursor(c, 'string');
    const from = readTime(c, 'from');
    const to = readTime(c, 'to');
    const userId = readUserId(c);
    const attributes = readAttributeFilters(c);
    const appId = await appIdFilter(services, projectId, c);
    let q = services.db
      .selectFrom('sessions as s')
      .innerJoin('apps', 'apps.id', 's.app_id')
      .selectAll('s')
      .select('apps.name as app')
      .where('s.project_id', '=', projectId);
    if (appId) q = q.where('s.app_id', '=', appId);
    if (userId !== undefined) q = q.where('s.user_id', '=', userId);
    for (const filter of attributes) q = q.where(attributeMatches(services.dialect, filter));
    // A session is in range when its activity overlaps [from, to).
    if (from !== undefined) q = q.where('s.last_ms', '>=', from);
    if (to !== undefined) q = q.where('s.first_ms', '<', to);
    if (cursor) {
      const k = String(cursor.k);
      q = q.where((eb) => eb.or([eb('s.last_ms', '<', cursor.t), eb.and([eb('s.last_ms', '=', cursor.t), eb('s.session_id', '<', k)])]));
    }
    const rows = await q.orderBy('s.last_ms', 'desc').orderBy('s.session_id', 'desc').limit(limit + 1).execute();
    return c.json(keysetPage(rows, limit, sessionJson, (s) => ({ t: s.last_ms, k: s.session_id })));
  });

  app.get('/sessions/sampling', async (c) => {
    checkParams(c, ['app', 'from', 'to']);
    const { projectId } = c.get('caller');
    const range = { from: readTime(c, 'from'), to: readTime(c, 'to') };
    const appId = await appIdFilter(services, projectId, c);
    return c.json(await samplingSummary(services.db, projectId, { appId, ...range }));
  });

  app.get('/spans', listRoute(services, LISTINGS.spans));
  app.get('/logs', listRoute(services, LISTINGS.logs));
  app.get('/metrics', listRoute(services, LISTINGS.metric_points));
  app.get('/replay/chunks', listRoute(services, LISTINGS.replay_chunks));
  app.get('/recipes', listRoute(services, LISTINGS.recipes));
  return app;
}
