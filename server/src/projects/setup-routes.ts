import { createRoute, z } from '@hono/zod-openapi';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import type { Services } from '../http/env';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer } from '../http/openapi';
import { Time, TimeOrNull } from '../http/schemas';
import { iso } from '../query/params';
import { listApps } from '../tenancy/apps';
import { activeIngestKeys } from '../tenancy/keys';

const IngestKey = z
  .object({
    id: z.string(),
    name: z.string(),
    display_prefix: z.string().openapi({ example: 'svc_ingest_Ab3dE9' }),
    key: z
      .string()
      .nullable()
      .openapi({
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
    ingest_url: z
      .string()
      .openapi({
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
  tags: ['projects'],
  security: CONTROL_SECURITY,
  method: 'get',
  path: '/',
  summary: 'What a new project needs to receive data: its ingest keys, app names and address, and whether data arrived',
  description:
    'Read and control keys see the ingest keys too: they are public by design (each page that sends telemetry carries one). ' +
    'Control, read and admin keys are never shown: only their hashes are stored.',
  responses: { 200: jsonAnswer('The set-up', Setup), ...errors(401, 403) },
});

/** The project's first data: its first session if any, else the receipt time of any record (agents send none). */
async function firstData(db: Kysely<Database>, projectId: string) {
  const session = await db
    .selectFrom('sessions as s')
    .innerJoin('apps as a', 'a.id', 's.app_id')
    .select(['s.session_id', 'a.name as app', 's.last_received_ms'])
    .where('s.project_id', '=', projectId)
    .orderBy('s.first_ms')
    .orderBy('s.session_id')
    .limit(1)
    .executeTakeFirst();
  if (session)
    return {
      received_at: iso(Number(session.last_received_ms)),
      session: { session_id: session.session_id, app: session.app },
    };
  for (const table of ['spans', 'logs', 'metric_points'] as const) {
    const row = await db
      .selectFrom(table)
      .select('received_ms')
      .where('project_id', '=', projectId)
      .limit(1)
      .executeTakeFirst();
    if (row) return { received_at: iso(Number(row.received_ms)), session: null };
  }
  return null;
}

/** `GET /control-plane/setup`, behind the control plane's key check: the console's set-up of an empty project. */
export function setupRoutes(services: Services) {
  return createRouter().openapi(route, async (c) => {
    const { projectId } = c.get('caller');
    const [project, keys, apps, first] = await Promise.all([
      services.db.selectFrom('projects').select(['id', 'name']).where('id', '=', projectId).executeTakeFirstOrThrow(),
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
