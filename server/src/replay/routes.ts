import { Hono, type Context } from 'hono';
import type { AppEnv, Services } from '../http/env';
import { ApiError, badRequest } from '../http/errors';
import { checkParams, encodeCursor, iso, keysetPage, readCursor, readLimit } from '../query/params';
import { recipeJson, sessionJson } from '../query/routes';
import { orderChunks, pageOfChunks, positionOf, type ChunkPosition, type OrderedChunk } from './chunk-order';
import { EventType, readEvent } from './export/rrweb';
import { PlaywrightExport } from './export/playwright-spec';
import { feedStoredSession, forEachBatch } from './export/stored-session';
import { chunkEvents, chunkIndex, findSession, sessionRecipes } from './session-store';

/** A replay page also ends once its chunks hold this much as stored, so one answer stays a bounded size. */
const PAGE_STORED_BYTES = 4_000_000;

/**
 * One session on the control plane (docs/query-api.md): its replays, its rrweb events in playback order, its recipe
 * steps, and its export as a Playwright spec (docs/replay-export.md). Mounted under `/control-plane/sessions`, behind
 * the query API's control-key check, which sets the caller; every read is confined to the caller's project.
 */
export function sessionRoutes(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const { db } = services;

  app.get('/:id', async (c) => {
    checkParams(c, []);
    const { projectId, sessionId } = target(c);
    const session = await findSession(db, projectId, sessionId);
    const { replays } = orderChunks(await chunkIndex(db, projectId, sessionId));
    const firstUrls = new Map<number, string | null>();
    await forEachBatch(replays.map((r) => r.first_chunk_id), async (ids) => {
      for (const [id, stored] of await chunkEvents(db, projectId, ids)) firstUrls.set(id, pageUrl(stored.events));
    });
    return c.json({
      ...sessionJson(session),
      replays: replays.map((r) => ({
        replay_id: r.replay_id,
        start_time: iso(r.start_ms),
        end_time: iso(r.end_ms),
        chunk_count: r.chunk_count,
        event_count: r.event_count,
        first_url: firstUrls.get(r.first_chunk_id) ?? null,
      })),
    });
  });

  app.get('/:id/replay', async (c) => {
    checkParams(c, ['cursor', 'limit']);
    const { projectId, sessionId } = target(c);
    const limit = readLimit(c, 50, 200);
    const cursor = readChunkCursor(c);
    await findSession(db, projectId, sessionId);
    const { chunks, gaps } = orderChunks(await chunkIndex(db, projectId, sessionId));
    const { page, more } = pageOfChunks(chunks, cursor, limit, PAGE_STORED_BYTES);
    const events = await chunkEvents(db, projectId, page.map((chunk) => chunk.id));
    const last = page[page.length - 1];
    return c.json({
      session_id: sessionId,
      events: page.flatMap((chunk) => events.get(chunk.id)?.events ?? []),
      chunks: page.map((chunk) => {
        const unreadable = events.get(chunk.id)?.unreadable;
        return {
          replay_id: chunk.replay_id,
          seq: chunk.seq,
          start_time: iso(chunk.time_ms),
          end_time: iso(chunk.end_ms),
          event_count: chunk.event_count,
          ...(unreadable !== undefined && { unreadable }),
        };
      }),
      gaps,
      next_cursor: more && last ? chunkCursor(last) : null,
    });
  });

  app.get('/:id/recipes', async (c) => {
    checkParams(c, ['cursor', 'limit']);
    const { projectId, sessionId } = target(c);
    const limit = readLimit(c, 200, 1000);
    const cursor = readCursor(c, 'number');
    await findSession(db, projectId, sessionId);
    const rows = await sessionRecipes(db, projectId, sessionId, limit + 1, cursor);
    return c.json(keysetPage(rows, limit, recipeJson, (r) => ({ t: r.time_ms, k: r.id })));
  });

  app.get('/:id/playwright', async (c) => {
    checkParams(c, ['base_url']);
    const { projectId, sessionId } = target(c);
    const baseUrl = readBaseUrl(c);
    const session = await findSession(db, projectId, sessionId);
    const exporter = new PlaywrightExport();
    const steps = await feedStoredSession(db, projectId, sessionId, exporter);
    const spec = exporter.finish({ sessionId, app: session.app, ...(baseUrl && { baseUrl }) }, steps);
    if (spec === undefined) throw new ApiError(404, 'not_found', `session "${sessionId}" has no recorded page load to export`);
    c.header('content-type', 'text/plain; charset=utf-8');
    c.header('content-disposition', `attachment; filename="session-${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.spec.ts"`);
    return c.body(spec);
  });

  return app;
}

function target(c: Context<AppEnv>): { projectId: string; sessionId: string } {
  // U+0000, which PostgreSQL cannot take, is refused before any route (http/middleware.ts refuseNul).
  return { projectId: c.get('caller').projectId, sessionId: c.req.param('id') ?? '' };
}

/** The URL of the page a replay recorded: its rrweb Meta event's `href`. */
function pageUrl(events: readonly unknown[]): string | null {
  for (const raw of events) {
    const event = readEvent(raw);
    if (event?.type === EventType.Meta && typeof event.data.href === 'string') return event.data.href;
  }
  return null;
}

const badCursor = () => badRequest('cursor is not a cursor this API returned (use next_cursor from the previous page)', { field: 'cursor' });

/** A replay page's cursor: the position of its last chunk (replay start time, then `seq:replay id`). */
const chunkCursor = (chunk: OrderedChunk): string => {
  const p = positionOf(chunk);
  return encodeCursor({ t: p.replayStart, k: `${p.seq}:${p.replayId}` });
};

function readChunkCursor(c: Context): ChunkPosition | undefined {
  const cursor = readCursor(c, 'string');
  if (!cursor) return undefined;
  const match = /^(\d+):(.+)$/s.exec(cursor.k);
  if (!match) throw badCursor();
  return { replayStart: cursor.t, replayId: match[2]!, seq: Number(match[1]) };
}

/** `base_url`: the origin the exported test runs against by default; paths come from the recording. */
function readBaseUrl(c: Context): string | undefined {
  const raw = c.req.query('base_url');
  if (raw === undefined || raw === '') return undefined;
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (!url || !/^https?:$/.test(url.protocol) || url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw badRequest('base_url must be an http(s) origin such as http://localhost:3000 (the paths come from the recording)', { field: 'base_url' });
  }
  return url.origin;
}
