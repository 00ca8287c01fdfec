import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter, errors, needs } from '../http/openapi';
import { Time } from '../http/schemas';
import { SESSION_FACT_LIMITS } from '../otlp/session-facts';
import { MAX_USER_SESSIONS, SEARCH_KINDS, searchIds } from './find';

const SearchQuery = z.strictObject({
  q: z.string().trim().min(1).max(SESSION_FACT_LIMITS.maxUserChars).openapi({
    description: 'A session, trace, issue or incident id, or a user id (`setUser`), exactly as shown',
    example: '4bf92f3577b34da6a3ce929d0e0e4736',
  }),
});

const SearchAnswer = z
  .object({
    data: z.array(
      z.object({
        kind: z.enum(SEARCH_KINDS),
        id: z.string().openapi({
          description: "The object's id; for `user`, the user id (`GET /control-plane/sessions?user_id=`)",
        }),
        title: z.string().openapi({ description: 'A line to recognise it by' }),
        at: Time.nullable().openapi({
          description:
            "Its latest activity: a session's or a user's last record, a trace's start, an issue's last error, an incident's last update",
        }),
      }),
    ),
  })
  .openapi('SearchAnswer');

const searchRoute = createRoute({
  ...needs('project.view'),
  tags: ['query'],
  method: 'get',
  path: '/',
  summary: 'Find an object of the project by its id: a session, trace, issue or incident, or a user',
  description:
    "What the console's search box asks: every object of the key's project whose id is `q` exactly (trace and issue ids in any case), " +
    `each found through its primary key or index; a user id answers the user with their session count (up to ${MAX_USER_SESSIONS}). ` +
    'No match is an empty list, not an error.',
  request: { query: SearchQuery },
  responses: {
    200: {
      description: 'The matches, sessions first, then traces, issues, incidents and users',
      content: {
        'application/json': {
          schema: SearchAnswer,
          example: {
            data: [
              {
                kind: 'trace',
                id: '4bf92f3577b34da6a3ce929d0e0e4736',
                title: 'Trace: click on Pay',
                at: '2026-01-01T12:00:00.000Z',
              },
            ],
          },
        },
      },
    },
    ...errors(400, 401, 403),
  },
});

/** `/control-plane/search`: the console's global search box (docs/query-api.md, "Search"). */
export function searchRoutes(services: Services) {
  return createRouter().openapi(searchRoute, async (c) =>
    c.json({ data: await searchIds(services.db, c.get('caller').projectId, c.req.valid('query').q) }, 200),
  );
}
