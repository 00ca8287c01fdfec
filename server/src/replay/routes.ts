import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { AppEnv, Services } from '../http/env';
import { ApiError, badRequest } from '../http/errors';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer } from '../http/openapi';
import { cursorQuery, limitQuery, pageOf, Time } from '../http/schemas';
import { encodeCursor, keysetPage } from '../shared/keyset';
import { iso } from '../shared/time';
import { readCursor } from '../http/cursor';
import { recipeJson, sessionJson } from '../query/routes';
import { RecipeRecordSchema } from '../records/schemas';
import { SessionSchema } from '../query/schemas';
import { orderChunks, pageOfChunks, positionOf, type ChunkPosition, type OrderedChunk } from './chunk-order';
import { EventType, readEvent } from './export/rrweb';
import { PlaywrightExport } from './export/playwright-spec';
import { feedStoredSession, forEachBatch } from './export/stored-session';
import { chunkEvents, chunkIndex, findSession, sessionRecipes } from './session-store';

/** A replay page also ends once its chunks hold this much as stored, so one answer stays a bounded size. */
const PAGE_STORED_BYTES = 4_000_000;

/** `base_url`: the origin the exported test runs against by default; paths come from the recording. */
const BaseUrl = z
  .string()
  .transform((raw, ctx) => {
    if (raw === '') return undefined;
    const origin = originOf(raw);
    if (origin === undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'must be an http(s) origin such as http://localhost:3000 (the paths come from the recording)',
      });
    return origin;
  })
  .optional()
  .openapi({
    type: 'string',
    format: 'uri',
    description:
      'Origin the test runs against by default (else the recorded one); SVC_REPLAY_BASE_URL overrides it at run time',
    example: 'http://localhost:3000',
  });

const session = {
  tags: ['query'],
  security: CONTROL_SECURITY,
  method: 'get' as const,
  description:
    "Confined to the key's project: another project's session is a 404. Unknown query parameters are rejected.",
};
const params = z.object({ id: z.string().min(1).openapi({ description: "Session id (the SDK's sessionId)" }) });
const pageQuery = (defaultLimit: number, maxLimit: number) =>
  z.strictObject({ limit: limitQuery(defaultLimit, maxLimit), cursor: cursorQuery });

const detailRoute = createRoute({
  ...session,
  path: '/{id}',
  summary: 'A session with its replays',
  request: { params, query: z.strictObject({}) },
  responses: {
    200: jsonAnswer(
      'The session; replays ordered by start',
      SessionSchema.extend({
        replays: z.array(
          z.object({
            replay_id: z.string(),
            start_time: Time,
            end_time: Time,
            chunk_count: z.number().int(),
            event_count: z.number().int(),
            first_url: z
              .string()
              .nullable()
              .openapi({ description: "href of the replay's rrweb Meta event: the page it recorded" }),
          }),
        ),
      }),
    ),
    ...errors(400, 401, 403, 404),
  },
});

const replayRoute = createRoute({
  ...session,
  path: '/{id}/replay',
  summary: "The session's rrweb events in playback order, decompressed",
  description:
    'Pages by chunks: replays by the start time of their first chunk, then seq; a chunk stored twice counts once. A page ends early once its chunks hold about 4 MB as stored. ' +
    "`gaps` (the whole session's, on every page) lists the seqs missing below each replay's highest. " +
    session.description,
  request: { params, query: pageQuery(50, 200) },
  responses: {
    200: jsonAnswer(
      'A page of events',
      z.object({
        session_id: z.string(),
        events: z.array(z.unknown()),
        chunks: z.array(
          z.object({
            replay_id: z.string(),
            seq: z.number().int(),
            start_time: Time,
            end_time: Time,
            event_count: z.number().int(),
            unreadable: z
              .string()
              .optional()
              .openapi({ description: 'Why the stored events could not be read (they are left out)' }),
          }),
        ),
        gaps: z.array(
          z.object({
            replay_id: z.string(),
            missing_seq: z.array(z.number().int()).max(1000).openapi({ description: 'The first 1000 missing seqs' }),
            missing_count: z.number().int(),
          }),
        ),
        next_cursor: z.string().nullable(),
      }),
    ),
    ...errors(400, 401, 403, 404),
  },
});

const recipesRoute = createRoute({
  ...session,
  path: '/{id}/recipes',
  summary: "The session's recipe steps, oldest first",
  request: { params, query: pageQuery(200, 1000) },
  responses: { 200: jsonAnswer('A page', pageOf(RecipeRecordSchema)), ...errors(400, 401, 403, 404) },
});

const playwrightRoute = createRoute({
  ...session,
  path: '/{id}/playwright',
  summary: 'The session as a runnable Playwright spec (TypeScript)',
  description:
    'Replays the navigation, clicks and inputs and serves the recorded recipes with page.route (docs/replay-export.md). 404 also when the session recorded no page load. ' +
    session.description,
  request: { params, query: z.strictObject({ base_url: BaseUrl }) },
  responses: {
    200: { description: 'session-<id>.spec.ts, as an attachment', content: { 'text/plain': { schema: z.string() } } },
    ...errors(400, 401, 403, 404),
  },
});

/**
 * One session on the control plane (docs/query-api.md): its replays, its rrweb events in playback order, its recipe
 * steps, and its export as a Playwright spec (docs/replay-export.md). Mounted under `/control-plane/sessions`, behind
 * the query API's control-key check, which sets the caller; every read is confined to the caller's project.
 */
export function sessionRoutes(services: Services) {
  const app = createRouter();
  const { db } = services;

  app.openapi(detailRoute, async (c) => {
    const { projectId, sessionId } = target(c);
    const session = await findSession(db, projectId, sessionId);
    const { replays } = orderChunks(await chunkIndex(db, projectId, sessionId));
    const firstUrls = new Map<number, string | null>();
    await forEachBatch(
      replays.map((r) => r.first_chunk_id),
      async (ids) => {
        for (const [id, stored] of await chunkEvents(db, projectId, ids)) firstUrls.set(id, pageUrl(stored.events));
      },
    );
    return c.json(
      {
        ...sessionJson(session),
        replays: replays.map((r) => ({
          replay_id: r.replay_id,
          start_time: iso(r.start_ms),
          end_time: iso(r.end_ms),
          chunk_count: r.chunk_count,
          event_count: r.event_count,
          first_url: firstUrls.get(r.first_chunk_id) ?? null,
        })),
      },
      200,
    );
  });

  app.openapi(replayRoute, async (c) => {
    const { projectId, sessionId } = target(c);
    const { limit } = c.req.valid('query');
    const cursor = readChunkCursor(c);
    await findSession(db, projectId, sessionId);
    const { chunks, gaps } = orderChunks(await chunkIndex(db, projectId, sessionId));
    const { page, more } = pageOfChunks(chunks, cursor, limit, PAGE_STORED_BYTES);
    const events = await chunkEvents(
      db,
      projectId,
      page.map((chunk) => chunk.id),
    );
    const last = page[page.length - 1];
    return c.json(
      {
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
      },
      200,
    );
  });

  app.openapi(recipesRoute, async (c) => {
    const { projectId, sessionId } = target(c);
    const { limit } = c.req.valid('query');
    const cursor = readCursor(c, 'number');
    await findSession(db, projectId, sessionId);
    const rows = await sessionRecipes(db, projectId, sessionId, limit + 1, cursor);
    return c.json(
      keysetPage(rows, limit, recipeJson, (r) => ({ t: r.time_ms, k: r.id })),
      200,
    );
  });

  app.openapi(playwrightRoute, async (c) => {
    const { projectId, sessionId } = target(c);
    const baseUrl = c.req.valid('query').base_url;
    const session = await findSession(db, projectId, sessionId);
    const exporter = new PlaywrightExport();
    const steps = await feedStoredSession(db, projectId, sessionId, exporter);
    const spec = exporter.finish({ sessionId, app: session.app, ...(baseUrl && { baseUrl }) }, steps);
    if (spec === undefined)
      throw new ApiError(404, 'not_found', `session "${sessionId}" has no recorded page load to export`);
    return c.text(spec, 200, {
      'content-type': 'text/plain; charset=utf-8',
      'content-disposition': `attachment; filename="session-${sessionId.replace(/[^A-Za-z0-9_-]/g, '_')}.spec.ts"`,
    });
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

const badCursor = () =>
  badRequest('cursor is not a cursor this API returned (use next_cursor from the previous page)', { field: 'cursor' });

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

/** The origin of an http(s) URL that is only an origin (no path, query, fragment or credentials); undefined otherwise. */
function originOf(raw: string): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  const bare =
    /^https?:$/.test(url.protocol) &&
    url.pathname === '/' &&
    !url.search &&
    !url.hash &&
    !url.username &&
    !url.password;
  return bare ? url.origin : undefined;
}
