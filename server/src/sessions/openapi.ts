import { createRoute, z } from '@hono/zod-openapi';
import { errors, jsonAnswer, needs } from '../http/openapi';
import { cursorQuery, limitQuery, pageOf, rangeQuery, Time } from '../http/schemas';
import { RecipeRecordSchema } from '../records/schemas';
import { SamplingSchema, SessionFacetsSchema, sessionsQuery, SessionSchema } from './schemas';
import { FACETS_LIMIT } from './store';

/** The routes of /control-plane/sessions as the OpenAPI document declares them: the listing, then one session. */

const listing = { tags: ['query'], method: 'get' as const };

export const sessionsRoute = createRoute({
  ...needs('project.view'),
  ...listing,
  path: '/',
  summary:
    'Sessions with their time range, duration, user, attributes, pages, errors, device, counts per signal and sampling',
  description:
    "Confined to the key's project; newest last activity first unless `sort` and `order` say otherwise. Unknown query parameters are rejected. " +
    'A session is in range when its activity overlaps [from, to). Every filter given must hold.',
  request: { query: sessionsQuery },
  responses: { 200: jsonAnswer('A page', pageOf(SessionSchema)), ...errors(400, 401, 403) },
});

export const facetsRoute = createRoute({
  ...needs('project.view'),
  ...listing,
  path: '/facets',
  summary: "Values the sessions listing's filters can take: environments, releases, browsers and apps",
  description:
    `Distinct values among the key's project's sessions whose activity overlaps [from, to) (all sessions without them), alphabetical, at most ${FACETS_LIMIT} each. ` +
    'Sessions that sent no environment, release or user agent add nothing.',
  request: { query: z.strictObject(rangeQuery) },
  responses: { 200: jsonAnswer('The values', SessionFacetsSchema), ...errors(400, 401, 403) },
});

export const samplingRoute = createRoute({
  ...needs('project.view'),
  ...listing,
  path: '/sampling',
  summary: 'Sessions received per replay mode and the sessions estimated before sampling',
  description:
    "From the session records of the key's project: each session counts once however often its batches were retried. A session stands for 1 / its `svc.sample_rate` " +
    'sessions before sampling (1 when it sent none). `from` and `to` select sessions whose activity overlaps the window, as in the session listing.',
  request: { query: z.strictObject(rangeQuery) },
  responses: { 200: jsonAnswer('The figures', SamplingSchema), ...errors(400, 401, 403) },
});

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
  method: 'get' as const,
  description:
    "Confined to the key's project: another project's session is a 404. Unknown query parameters are rejected.",
};
const params = z.object({ id: z.string().min(1).openapi({ description: "Session id (the SDK's sessionId)" }) });
const pageQuery = (defaultLimit: number, maxLimit: number) =>
  z.strictObject({ limit: limitQuery(defaultLimit, maxLimit), cursor: cursorQuery });

export const detailRoute = createRoute({
  ...needs('project.view'),
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

export const replayRoute = createRoute({
  ...needs('project.view'),
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

export const recipesRoute = createRoute({
  ...needs('project.view'),
  ...session,
  path: '/{id}/recipes',
  summary: "The session's recipe steps, oldest first",
  request: { params, query: pageQuery(200, 1000) },
  responses: { 200: jsonAnswer('A page', pageOf(RecipeRecordSchema)), ...errors(400, 401, 403, 404) },
});

export const playwrightRoute = createRoute({
  ...needs('project.view'),
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
