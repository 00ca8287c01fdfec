import { createRoute, z } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { Time, TimeOrNull } from '../http/schemas';
import { iso } from '../shared/time';
import { listApps } from '../projects/apps-store';
import { activeIngestKeys } from '../projects/keys-store';
import { projectNamed } from '../projects/store';
import { firstData } from './store';

const IngestKey = z
  .object({
    id: z.string(),
    name: z.string(),
    display_prefix: z.string().openapi({ example: 'svc_ingest_Ab3dE9' }),
    key: z.string().nullable().openapi({
      description:
        'The ingest key itself (public: every page that sends telemetry carries it); null for keys made before the server kept them',
    }),
    created_at: Time,
    expires_at: TimeOrNull,
  })
  .openapi('SetupIngestKey');

export const Setup = z
  .object({
    project: z.object({ id: z.string(), name: z.string() }),
    ingest_url: z.string().openapi({
      description: "The server's public address, where the SDK sends to",
      example: 'http://127.0.0.1:4318',
    }),
    ingest_keys: z
      .array(IngestKey)
      .openapi({ description: 'Ingest keys of the project that still work, oldest first' }),
    apps: z
      .array(z.object({ name: z.string(), aliases: z.array(z.string()) }))
      .openapi({ description: 'The names telemetry may carry as `service.name`' }),
    first_data: z
      .object({
        received_at: Time,
        session: z
          .object({ session_id: z.string(), app: z.string() })
          .nullable()
          .openapi({ description: 'The first browser session, when the data has one' }),
      })
      .nullable()
      .openapi({ description: 'null until the project has received anything: the console waits on it' }),
  })
  .openapi('ProjectSetup');

const route = createRoute({
  ...needs('project.view'),
  tags: ['projects'],
  method: 'get',
  path: '/',
  summary: 'What a new project needs to receive data: its ingest keys, app names and address, and whether data arrived',
  description:
    'Read and control keys see the ingest keys too: they are public by design (each page that sends telemetry carries one). ' +
    'Control, read and admin keys are never shown: only their hashes are stored.',
  responses: { 200: jsonAnswer('The set-up', Setup), ...errors(401, 403) },
});

/** `GET /control-plane/setup`, behind the control plane's key check: the console's set-up of an empty project. */
export function setupRoutes(services: Services) {
  return createRouter().openapi(route, async (c) => {
    const { projectId } = c.get('caller');
    const [project, keys, apps, first] = await Promise.all([
      projectNamed(services.db, projectId),
      activeIngestKeys(services.db, services.clock, projectId),
      listApps(services.db, projectId),
      firstData(services.db, projectId),
    ]);
    return c.json(
      {
        project,
        ingest_url: services.publicUrl,
        ingest_keys: keys.map((k) => ({
          id: k.id,
          name: k.name,
          display_prefix: k.displayPrefix,
          key: k.key,
          created_at: iso(k.createdMs),
          expires_at: k.expiresMs === null ? null : iso(k.expiresMs),
        })),
        apps: apps.map((a) => ({ name: a.name, aliases: a.aliases })),
        first_data: first,
      },
      200,
    );
  });
}
