import { createRoute, z } from '@hono/zod-openapi';
import type { TelemetryTable } from '../db/schema';
import { appIdFilter } from '../apps/filter';
import { readCursor } from '../http/cursor';
import type { Services } from '../http/env';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer } from '../http/openapi';
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

interface Listing<T extends TelemetryTable> {
  path: string;
  summary: string;
  item: z.ZodType;
  table: T;
  filters: readonly RecordFilter[];
  defaultLimit: number;
  maxLimit: number;
  toJson: (row: Row<T>) => Record<string, unknown>;
}

const FILTERS: Record<RecordFilter, z.ZodType> = {
  session_id: z.string().optional(),
  trace_id: traceIdQuery,
  name: z.string().optional(),
};

const LISTINGS = [
  {
    path: '/spans',
    summary: 'Spans',
    item: SpanSchema,
    table: 'spans',
    filters: ['session_id', 'trace_id', 'name'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: spanJson,
  } satisfies Listing<'spans'>,
  {
    path: '/logs',
    summary: 'Log records',
    item: LogRecordSchema,
    table: 'logs',
    filters: ['session_id', 'trace_id'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: logJson,
  } satisfies Listing<'logs'>,
  {
    path: '/metrics',
    summary: 'Metric data points',
    item: MetricPointSchema,
    table: 'metric_points',
    filters: ['session_id', 'name'],
    defaultLimit: 100,
    maxLimit: 1000,
    toJson: metricPointJson,
  } satisfies Listing<'metric_points'>,
  {
    path: '/replay/chunks',
    summary: 'Replay chunks with their decoded events',
    item: ReplayChunkRecordSchema,
    table: 'replay_chunks',
    filters: ['session_id'],
    defaultLimit: 20,
    maxLimit: 100,
    toJson: replayChunkJson,
  } satisfies Listing<'replay_chunks'>,
  {
    path: '/recipes',
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

function listingRoute<T extends TelemetryTable>(listing: Listing<T>) {
  return createRoute({
    tags: ['query'],
    security: CONTROL_SECURITY,
    method: 'get',
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
  const app = createRouter();
  const [spans, logs, metricPoints, replayChunks, recipes] = LISTINGS;
  addListing(app, services, spans);
  addListing(app, services, logs);
  addListing(app, services, metricPoints);
  addListing(app, services, replayChunks);
  addListing(app, services, recipes);
  return app;
}
