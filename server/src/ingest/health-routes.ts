import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { badRequest } from '../http/errors';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { Time, rangeQuery } from '../http/schemas';
import { iso } from '../shared/time';
import { refusalSummary } from './refusals/read';
import { NO_PROJECT } from './refusals/tables';
import { sdkDrops } from './sdk-drops';

/** Without `from`, the page covers this much before `to` (now unless given). */
const DEFAULT_WINDOW_MS = 24 * 3_600_000;

const Key = z
  .object({
    state: z
      .enum(['missing', 'unknown', 'valid', 'unchecked', 'revoked', 'expired', 'wrong_scope'])
      .openapi({ description: '`unchecked`: refused before the key was checked (origin, path)' }),
    marker: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'Unknown keys: the scope prefix the key starts with (`svc_control_`), if any' }),
    id: z.string().optional(),
    name: z.string().optional(),
    scope: z.string().optional(),
  })
  .openapi({ description: 'The key the request carried, never the key itself: its id, name and scope when it exists' });

const Example = z
  .object({
    at: Time,
    status: z.number().int(),
    code: z.string(),
    message: z.string().openapi({ description: 'What the client was told (at most 300 characters)' }),
    method: z.string(),
    path: z.string(),
    origin: z.string().nullable(),
    user_agent: z.string().nullable(),
    content_type: z.string().nullable(),
    content_encoding: z.string().nullable(),
    content_length: z.number().nullable(),
    key: Key,
  })
  .openapi('IngestRefusalExample');

const Refusal = z
  .object({
    reason: z.string().openapi({
      description:
        'The error code answered, or `key_missing`, `key_unknown`, `key_revoked`, `key_expired`, `key_wrong_scope`',
      example: 'unknown_service',
    }),
    status: z.number().int().openapi({ example: 422 }),
    count: z.number().int(),
    last_at: Time,
    example: Example,
  })
  .openapi('IngestRefusal');

export const Health = z
  .object({
    window: z.object({ from: Time, to: Time }),
    refusals: z.array(Refusal).openapi({
      description: "Ingest requests of the project's keys that the server refused, per reason, most frequent first",
    }),
    unattributed: z.array(Refusal).nullable().openapi({
      description:
        'Admin keys: refusals whose key named no project (missing or unknown key), server-wide; null for other keys',
    }),
    sdk_drops: z
      .array(z.object({ app: z.string(), reason: z.string(), count: z.number(), sessions: z.number().int() }))
      .openapi({
        description: 'Records the browser SDK reported it dropped (`svc.sdk.dropped_items`), per app and reason',
      }),
  })
  .openapi('IngestHealth');

const route = createRoute({
  ...needs('project.view'),
  tags: ['ingest'],
  method: 'get',
  path: '/',
  summary: 'Ingest health: the requests the server refused and what the SDK reports it dropped',
  description:
    `Refused ingest requests (401, 403, 404, 413, 415, 422, 400, …) are counted per project, hour and reason with the newest example, in memory and written every few seconds; ` +
    `those of this process are written before the answer. Window [from, to): by default the ${DEFAULT_WINDOW_MS / 3_600_000} hours before now, widened to whole hours for refusals.`,
  request: { query: z.strictObject({ from: rangeQuery.from, to: rangeQuery.to }) },
  responses: { 200: jsonAnswer('Refusals and SDK drops', Health), ...errors(400, 401, 403) },
});

/** `GET /control-plane/ingest/health`, behind the control plane's key check (any project key, or an admin key). */
export function ingestHealthRoutes(services: Services) {
  return createRouter().openapi(route, async (c) => {
    const { projectId, permissions } = c.get('caller');
    const p = c.req.valid('query');
    const to = p.to ?? services.clock.now();
    const from = p.from ?? to - DEFAULT_WINDOW_MS;
    if (from >= to)
      throw badRequest(`from must be before to (${iso(from)} is not before ${iso(to)})`, { field: 'from' });
    await services.refusals.flush();
    const [refusals, unattributed, drops] = await Promise.all([
      refusalSummary(services.db, projectId, from, to),
      // Refusals no project can be named for are the organisation's: for those who manage its keys.
      permissions.has('keys.manage') ? refusalSummary(services.db, NO_PROJECT, from, to) : null,
      sdkDrops(services.db, projectId, from, to),
    ]);
    return c.json({ window: { from: iso(from), to: iso(to) }, refusals, unattributed, sdk_drops: drops }, 200);
  });
}
