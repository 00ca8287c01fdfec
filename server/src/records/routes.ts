import { createRoute, z } from '@hono/zod-openapi';
import type { TelemetryTable } from '../db/schema';
import { appIdFilter } from '../apps/filter';
import { readCursor } from '../http/cursor';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { pageOf, traceIdQuery } from '../http/schemas';
import { keysetPage } from '../shared/keyset';
import { logJson, metricPointJson, recipeJson, replayChunkJson, spanJson, type Row } from './json';
import {
  listingQuery,
  LogRecordSchema,
  MetricPointSchema,
  RecipeRecordSchema,
  ReplayChunkRecordSchema,
  SpanSchema,
} from './schemas';
import { listRecords, type RecordFilter } from './store';

/** One listing; its path and item schema are type parameters so the router's type names each listing's answer. */
interface Listing<
  T extends TelemetryTable,
  P extends string = string,
  I extends z.ZodType = z.ZodType,
  F extends RecordFilter = RecordFilter,
> {
  path: P;
  summary: string;
  item: I;
  table: T;
  filters: readonly F[];
  defaultLimit: number;
  maxLimit: number;
  toJson: (row: Row<T>) => z.input<I>;
}

const FILTERS = {
  session_id: z.string().optional(),
  trace_id: traceIdQuery,
  name: z.string().optional(),
} satisfies Record<RecordFilter, z.ZodType>;

/** The query schemas of a listing's filters. */
const filtersOf = <F extends RecordFilter>(names: readonly F[]) =>
  Object.fromEntries(names.map((f) => [f, FILTERS[f]])) as Pick<typeof FILTERS, F>;

const LISTINGS = [
  {
    path: '/spans' as const,
    summary: 'Spans',
    item: SpanSchema,
    table: 'spans',
    filters: ['session_id', 'trace_id', 'name'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: spanJson,
  } satisfies Listing<'spans'>,
  {
    path: '/logs' as const,
    summary: 'Log records',
    item: LogRecordSchema,
    table: 'logs',
    filters: ['session_id', 'trace_id'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: logJson,
  } satisfies Listing<'logs'>,
  {
    path: '/metrics' as const,
    summary: 'Metric data points',
    item: MetricPointSchema,
    table: 'metric_points',
    filters: ['session_id', 'name'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: metricPointJson,
  } satisfies Listing<'metric_points'>,
  {
    path: '/replay/chunks' as const,
    summary: 'Replay chunks with their decoded events',
    item: ReplayChunkRecordSchema,
    table: 'replay_chunks',
    filters: ['session_id'],
    defaultLimit: 20,
    maxLimit: 100,
    toJson: replayChunkJson,
  } satisfies Listing<'replay_chunks'>,
  {
    path: '/recipes' as const,
    summary: 'Recipe steps',
    item: RecipeRecordSchema,
    table: 'recipes',
    filters: ['session_id', 'trace_id'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: recipeJson,
  } satisfies Listing<'recipes'>,
] as const;

const LISTED = "Newest first, confined to the key's project. Unknown query parameters are rejected.";

function listingRoute<T extends TelemetryTable, P extends string, I extends z.ZodType, F extends RecordFilter>(
  listing: Listing<T, P, I, F>,
) {
  return createRoute({
    ...needs('project.view'),
    tags: ['query'],
    method: 'get',
    path: listing.path,
    summary: listing.summary,
    description: LISTED,
    request: {
      query: listingQuery(filtersOf(listing.filters), listing.defaultLimit, listing.maxLimit),
    },
    responses: { 200: jsonAnswer('A page', pageOf(listing.item)), ...errors(400, 401, 403) },
  });
}

function listingRoutes<T extends TelemetryTable, P extends string, I extends z.ZodType, F extends RecordFilter>(
  services: Services,
  listing: Listing<T, P, I, F>,
) {
  return createRouter().openapi(listingRoute(listing), async (c) => {
    const params = c.req.valid('query') as Record<string, unknown> & {
      app?: string;
      from?: number;
      to?: number;
      user_id?: string;
      limit: number;
    };
    const { projectId } = c.get('caller');
    const after = readCursor(c, 'number');
    const appId = await appIdFilter(services.db, projectId, params.app);
    const equal = Object.fromEntries(
      listing.filters.flatMap((f) => (typeof params[f] === 'string' ? [[f, params[f]]] : [])),
    );
    const rows = await listRecords(services.db, listing.table, {
      projectId,
      appId,
      userId: params.user_id,
      from: params.from,
      to: params.to,
      equal,
      after,
      limit: params.limit,
    });
    return c.json(
      keysetPage(rows, params.limit, listing.toJson, (r) => ({ t: r.time_ms, k: r.id })),
      200,
    );
  });
}

/** The stored records of each signal (spans, logs, metric points, replay chunks, recipe steps), newest first. */
export function recordRoutes(services: Services) {
  const [spans, logs, metricPoints, replayChunks, recipes] = LISTINGS;
  // Chained, so the router's type carries every listing for the console's typed client (server/src/api-types.ts).
  return createRouter()
    .route('/', listingRoutes(services, spans))
    .route('/', listingRoutes(services, logs))
    .route('/', listingRoutes(services, metricPoints))
    .route('/', listingRoutes(services, replayChunks))
    .route('/', listingRoutes(services, recipes));
}
