import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, jsonBody, needs, readControlJson } from '../http/openapi';
import { idParams, listOf, Time, TimeOrNull } from '../http/schemas';
import { createKey, listKeys, PROJECT_KEY_SCOPES, revokeKey, type KeyListing } from '../projects/keys-store';
import { NameSchema } from '../projects/names';
import { DomainError } from '../shared/domain-errors';
import { iso } from '../shared/time';

const DAY_MS = 86_400_000;
const isoOrNull = (ms: number | null) => (ms === null ? null : iso(ms));

const Key = z
  .object({
    id: z.string(),
    project_id: z.string(),
    name: z.string(),
    scope: z.enum(['ingest', 'control', 'read', 'admin']),
    display_prefix: z.string().openapi({ description: 'The start of the key, to recognise it; never the whole key' }),
    created_at: Time,
    created_by: z
      .object({ id: z.string(), email: z.string() })
      .nullable()
      .openapi({ description: 'The person who made it; null for keys made with the CLI or by another key' }),
    last_used_at: TimeOrNull.openapi({ description: 'Its last accepted request, to the minute; null when never used' }),
    expires_at: TimeOrNull,
    revoked_at: TimeOrNull,
  })
  .openapi('Key');

const keyJson = (k: KeyListing) => ({
  id: k.id,
  project_id: k.projectId,
  name: k.name,
  scope: k.scope,
  display_prefix: k.displayPrefix,
  created_at: iso(k.createdMs),
  created_by: k.createdBy,
  last_used_at: isoOrNull(k.lastUsedMs),
  expires_at: isoOrNull(k.expiresMs),
  revoked_at: isoOrNull(k.revokedMs),
});

const Scope = z.enum(PROJECT_KEY_SCOPES, {
  error: `scope must be one of ${PROJECT_KEY_SCOPES.join(', ')} (admin keys are made with the CLI on the server's host: svc-server keys create --scope admin)`,
});

const tags = ['keys'];
const DAYS = 'expires_in_days must be a whole number of days from 1 to 3650';

const listRoute = createRoute({
  ...needs('keys.manage'),
  tags,
  method: 'get',
  path: '/',
  summary: "The project's keys and the organisation's admin keys, with their creator and last use",
  description: 'Oldest first, revoked and expired ones included. A key itself is never shown again after its creation.',
  responses: { 200: jsonAnswer('Keys', listOf(Key)), ...errors(401, 403) },
});

const createKeyRoute = createRoute({
  ...needs('keys.manage'),
  tags,
  middleware: [readControlJson],
  method: 'post',
  path: '/',
  summary: 'Make a named ingest, control or read key for the project; the key is shown this once',
  description:
    "Only the key's hash is stored. Admin keys are not made here but with the CLI (`svc-server keys create --scope admin`), on the server's host: " +
    'whoever holds one could otherwise keep the organisation after losing their role.',
  request: {
    body: jsonBody(
      z.strictObject({
        scope: Scope,
        name: NameSchema,
        expires_in_days: z
          .number()
          .int({ error: DAYS })
          .min(1, { error: DAYS })
          .max(3650, { error: DAYS })
          .optional()
          .openapi({ description: 'Never expires when left out' }),
      }),
      { scope: 'control', name: 'CI deploys', expires_in_days: 90 },
    ),
  },
  responses: {
    201: jsonAnswer(
      'Made',
      Key.extend({
        key: z.string().openapi({ description: 'The key itself, shown this once: only its hash is stored' }),
      }),
    ),
    ...errors(400, 401, 403, 413, 415),
  },
});

const revokeRoute = createRoute({
  ...needs('keys.manage'),
  tags,
  method: 'delete',
  path: '/{id}',
  summary: 'Revoke a key: its next request is refused',
  description: 'A key of the project, or an admin key of the organisation. Revoking a revoked key changes nothing.',
  request: { params: idParams('Key id') },
  responses: { 204: { description: 'Revoked' }, ...errors(400, 401, 403, 404) },
});

/** `/control-plane/keys`: machine keys made, listed and revoked by people (docs/teams.md, "Keys"). */
export function keyRoutes(services: Services) {
  const { db, clock } = services;
  return createRouter()
    .openapi(listRoute, async (c) => {
      const { projectId, tenantId } = c.get('caller');
      return c.json({ data: (await listKeys(db, { projectId, tenantId })).map(keyJson) }, 200);
    })
    .openapi(createKeyRoute, async (c) => {
      const { projectId, actor } = c.get('caller');
      const { scope, name, expires_in_days: days } = c.req.valid('json');
      const made = await createKey(db, clock, {
        projectId,
        scope,
        name,
        expiresMs: days === undefined ? null : clock.now() + days * DAY_MS,
        ...(actor.kind === 'person' ? { createdBy: actor.person.userId } : {}),
      });
      c.set('audit', { after: { name, scope, expires_at: isoOrNull(made.expiresMs) } });
      const createdBy = actor.kind === 'person' ? { id: actor.person.userId, email: actor.person.email } : null;
      return c.json({ ...keyJson({ ...made, createdBy, lastUsedMs: null }), key: made.key }, 201);
    })
    .openapi(revokeRoute, async (c) => {
      const { id } = c.req.valid('param');
      const { projectId, tenantId } = c.get('caller');
      if (!(await revokeKey(db, clock, id, { projectId, tenantId })))
        throw new DomainError('not_found', 'not_found', `no key ${id} in this project`, { field: 'id' });
      return c.body(null, 204);
    });
}
