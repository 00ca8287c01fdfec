import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { Time, TimeOrNull } from '../http/schemas';
import { iso } from '../shared/time';
import { PERMISSIONS, ROLES } from '../auth/roles';
import { whereabouts } from './store';

/** What the server offers beyond the core, as `createApp` was given it; the console shows or hides pages by it. */
export interface ServerFeatures {
  /** A model is configured (SVC_AI_BASE_URL): analyses are the model's, not only heuristic. */
  aiAnalysis: boolean;
  /** The SDK demo page is served at /demo/. */
  demo: boolean;
}

const Named = z.object({ id: z.string(), name: z.string() });

const Me = z
  .object({
    project: Named,
    tenant: Named,
    key: z
      .object({
        id: z.string(),
        name: z.string(),
        scope: z.enum(['control', 'read', 'admin']).openapi({
          description:
            '`read` views everything and changes nothing; `admin` acts as a control key on any project of its tenant (X-Svc-Project)',
        }),
        created_at: Time,
        expires_at: TimeOrNull,
      })
      .nullable()
      .openapi({ description: 'The key the request came with; null for a person signed in to the console' }),
    person: z
      .object({ id: z.string(), email: z.string(), name: z.string(), role: z.enum(ROLES) })
      .nullable()
      .openapi({ description: 'The person signed in to the console; null for a key' }),
    permissions: z
      .array(z.enum(PERMISSIONS))
      .openapi({ description: "What the key's scope or the person's role allows (docs/teams.md, Roles)" }),
    features: z.object({
      ai_analysis: z.boolean().openapi({
        description: 'A model answers issue analyses (SVC_AI_BASE_URL is set); heuristic analyses otherwise',
      }),
      github: z.boolean().openapi({
        description: 'An app of the project has a GitHub repository connected: fixes can become pull requests',
      }),
      demo: z.boolean().openapi({ description: 'The SDK demo page is served at /demo/' }),
    }),
    apps: z.array(Named),
    projects: z.array(Named).openapi({
      description: "The projects the key may act on: an admin key's tenant's, oldest first; a project key's own",
    }),
  })
  .openapi('Me');

const meRoute = createRoute({
  ...needs('project.view'),
  tags: ['projects'],
  method: 'get',
  path: '/',
  summary: 'Who the key is: its project, tenant, scope and apps, and what this server offers',
  description:
    'What a console signs in with: a bad key gets the 401 every control-plane route answers, an ingest key a 403 saying it is one. ' +
    "An admin key answers for the project `X-Svc-Project` names, else its tenant's oldest, and lists the projects it may switch to.",
  responses: { 200: jsonAnswer('The key and its project', Me), ...errors(401, 403) },
});

/** `GET /control-plane/me`, behind the control plane's key check (a control, read or admin key). */
export function meRoutes(services: Services, features: ServerFeatures) {
  return createRouter().openapi(meRoute, async (c) => {
    const { projectId, tenantId, actor, permissions } = c.get('caller');
    const key = actor.kind === 'key' ? actor.key : null;
    const person = actor.kind === 'person' ? actor.person : null;
    const found = await whereabouts(services.db, {
      projectId,
      tenantId,
      switches: key?.scope === 'admin' || person !== null,
      limitedTo: person?.projects ?? null,
    });
    return c.json(
      {
        project: found.project,
        tenant: found.tenant,
        key: key && {
          id: key.id,
          name: key.name,
          scope: key.scope === 'read' || key.scope === 'admin' ? key.scope : ('control' as const),
          created_at: iso(key.createdMs),
          expires_at: key.expiresMs === null ? null : iso(key.expiresMs),
        },
        person: person && { id: person.userId, email: person.email, name: person.name, role: person.role },
        permissions: [...permissions],
        features: { ai_analysis: features.aiAnalysis, github: found.github, demo: features.demo },
        apps: found.apps,
        projects: found.projects ?? [found.project],
      },
      200,
    );
  });
}
