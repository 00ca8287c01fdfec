import type { Context } from 'hono';
import { appIdFilter } from '../apps/filter';
import { readCursor } from '../http/cursor';
import type { AppEnv, Services } from '../http/env';
import { createRouter } from '../http/openapi';
import { recipeJson } from '../records/json';
import { PlaywrightExport } from '../replay/export/playwright-spec';
import { feedStoredSession } from '../replay/export/stored-session';
import { notFound } from '../shared/domain-errors';
import { keysetPage } from '../shared/keyset';
import { readAttributeFilters, sessionConditions } from './filters';
import { sessionJson } from './json';
import { encodeSessionCursor, readSessionCursor, SORT_COLUMN } from './listing';
import { pagesMatching } from './pages';
import {
  detailRoute,
  facetsRoute,
  playwrightRoute,
  recipesRoute,
  replayRoute,
  samplingRoute,
  sessionsRoute,
} from './openapi';
import { readChunkCursor, replayPage, replaysOf } from './replay-page';
import { findSession, listSessions, samplingSummary, sessionFacets, sessionRecipes } from './store';

/**
 * `/control-plane/sessions` (docs/query-api.md): the listing with its facets and sampling figures, then one session:
 * its replays, its rrweb events in playback order, its recipe steps, and its export as a Playwright spec
 * (docs/replay-export.md). Behind the control plane's key check, which sets the caller; every read is confined to the
 * caller's project.
 */
export function sessionRoutes(services: Services) {
  // Chained, so the router's type carries every route for the console's typed client (server/src/api-types.ts).
  return createRouter().route('/', listingRoutes(services)).route('/', oneSessionRoutes(services));
}

function listingRoutes({ db, dialect }: Services) {
  return createRouter()
    .openapi(sessionsRoute, async (c) => {
      const { app: appName, sort, order, limit, cursor, url, ...params } = c.req.valid('query');
      const { projectId } = c.get('caller');
      const column = SORT_COLUMN[sort];
      const after = readSessionCursor(cursor, sort, order);
      const attributes = readAttributeFilters(c.req.queries());
      const appId = await appIdFilter(db, projectId, appName);
      const pages = url === undefined ? undefined : await pagesMatching(db, dialect, projectId, url);
      const conditions = sessionConditions(dialect, { ...params, appId, pages }, attributes);
      const rows = await listSessions(db, projectId, { conditions, sort: column, order, after, limit });
      const kept = rows.slice(0, limit);
      const last = kept[kept.length - 1];
      const next = rows.length > limit && last ? encodeSessionCursor(sort, order, last[column], last.session_id) : null;
      return c.json({ data: kept.map(sessionJson), next_cursor: next }, 200);
    })
    .openapi(facetsRoute, async (c) => {
      const { app: name, from, to } = c.req.valid('query');
      const { projectId } = c.get('caller');
      const appId = await appIdFilter(db, projectId, name);
      const range = from === undefined && to === undefined ? [] : sessionConditions(dialect, { appId, from, to }, []);
      const activeSince = to === undefined && appId === undefined ? from : undefined;
      return c.json(await sessionFacets(db, { projectId, appId, range, activeSince }), 200);
    })
    .openapi(samplingRoute, async (c) => {
      const { app: name, from, to } = c.req.valid('query');
      const { projectId } = c.get('caller');
      const appId = await appIdFilter(db, projectId, name);
      return c.json(await samplingSummary(db, projectId, { appId, from, to }), 200);
    });
}

function oneSessionRoutes({ db }: Services) {
  return createRouter()
    .openapi(detailRoute, async (c) => {
      const { projectId, sessionId } = target(c);
      const session = await findSession(db, projectId, sessionId);
      return c.json({ ...sessionJson(session), replays: await replaysOf(db, projectId, sessionId) }, 200);
    })
    .openapi(replayRoute, async (c) => {
      const { projectId, sessionId } = target(c);
      const { limit, cursor: rawCursor } = c.req.valid('query');
      const cursor = readChunkCursor(rawCursor);
      await findSession(db, projectId, sessionId);
      return c.json(await replayPage(db, { projectId, sessionId }, cursor, limit), 200);
    })
    .openapi(recipesRoute, async (c) => {
      const { projectId, sessionId } = target(c);
      const { limit } = c.req.valid('query');
      const cursor = readCursor(c, 'number');
      await findSession(db, projectId, sessionId);
      const rows = await sessionRecipes(db, projectId, sessionId, limit + 1, cursor);
      return c.json(
        keysetPage(rows, limit, recipeJson, (r) => ({ t: r.time_ms, k: r.id })),
        200,
      );
    })
    .openapi(playwrightRoute, async (c) => {
      const { projectId, sessionId } = target(c);
      const baseUrl = c.req.valid('query').base_url;
      const session = await findSession(db, projectId, sessionId);
      const exporter = new PlaywrightExport();
      const steps = await feedStoredSession(db, projectId, sessionId, exporter);
      const spec = exporter.finish({ sessionId, app: session.app, ...(baseUrl && { baseUrl }) }, steps);
      if (spec === undefined) throw notFound(`session "${sessionId}" has no recorded page load to export`);
      return c.text(spec, 200, {
        'content-type': 'text/plain; charset=utf-8',
        'content-disposition': `attachment; filename="session-${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.spec.ts"`,
      });
    });
}

function target(c: Context<AppEnv>): { projectId: string; sessionId: string } {
  // U+0000, which PostgreSQL cannot take, is refused before any route (http/middleware.ts refuseNul).
  return { projectId: c.get('caller').projectId, sessionId: c.req.param('id') ?? '' };
}
