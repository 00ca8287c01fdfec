import { createRoute, z } from '@hono/zod-openapi';
import { actorLabel, type Services } from '../http/env';
import { createRouter, errors, jsonAnswer, jsonBody, needs, readControlJson } from '../http/openapi';
import { limitQuery, listOf, Time, TimeOrNull } from '../http/schemas';
import { ERASURE_STATUSES, findErasure, jobOf, listErasures, queueErasure } from './store';
import { MAX_TARGET_CHARS, parseTarget, TARGET_KINDS } from './target';

const tags = ['erasures'];

const JobSchema = z
  .object({
    id: z.string(),
    status: z.enum(ERASURE_STATUSES),
    target: z.object({
      kind: z.enum(TARGET_KINDS),
      key: z.string().optional().openapi({ description: "The attribute's key, for an attribute" }),
      digest: z.string().openapi({
        description: 'sha256: and 16 hex digits of SHA-256 over the job id, a line feed and the value: never the value',
      }),
    }),
    counts: z.record(z.string(), z.number().int()).openapi({ description: 'Rows deleted or scrubbed per table' }),
    error: z.string().nullable(),
    requested_by: z.string().openapi({ description: '`key:<name>`, the e-mail of the person, or `cli`' }),
    created_at: Time,
    started_at: TimeOrNull,
    finished_at: TimeOrNull,
  })
  .openapi('Erasure', {
    example: {
      id: 'era_3kJ9x0aQ2mZ7',
      status: 'done',
      target: { kind: 'user_id', digest: 'sha256:9f86d081884c7d65' },
      counts: { spans: 120, logs: 40, replay_chunks: 12, recipes: 3, sessions: 2, issue_sessions: 1 },
      error: null,
      requested_by: 'privacy@example.com',
      created_at: '2026-01-01T10:00:00.000Z',
      started_at: '2026-01-01T10:00:00.050Z',
      finished_at: '2026-01-01T10:00:02.300Z',
    },
  });

const value = z.string().openapi({ description: `Non-empty, at most ${MAX_TARGET_CHARS} characters` });
const RequestSchema = z.strictObject({
  user_id: value.optional().openapi({ description: 'Everything of the user: `user.id`/`enduser.id`, their sessions' }),
  session_id: value.optional().openapi({ description: 'One session whole' }),
  attribute: z
    .strictObject({ key: z.string(), value })
    .optional()
    .openapi({ description: 'Records whose attribute has this value, and their sessions whole' }),
});

const queueRoute = createRoute({
  ...needs('project.configure'),
  tags,
  middleware: [readControlJson],
  method: 'post',
  path: '/',
  summary: "Erase a person's data from the project",
  description:
    'Queues a job deleting everything of one user id, session or attribute value from the project (X-Svc-Project ' +
    'chooses it): the records naming it, its sessions whole (telemetry, replays, recipes, issue and incident links), ' +
    "the issue breakdown's user values, its identifiers in incidents, issues and analyses; then the database is " +
    'compacted so no file keeps the old bytes (docs/governance.md, "Deletion on request"). Name exactly one of ' +
    '`user_id`, `session_id`, `attribute`. Answers, logs and the audit entry show a digest of the value, never the value.',
  request: { body: jsonBody(RequestSchema, { user_id: 'u-123' }) },
  responses: {
    202: jsonAnswer('The job, queued: follow it with GET /control-plane/erasures/{id}', JobSchema),
    ...errors(400, 401, 403, 413, 415),
  },
});

const listRoute = createRoute({
  ...needs('project.view'),
  tags,
  method: 'get',
  path: '/',
  summary: "The project's deletion jobs, newest first",
  description: 'Each with its status and counts; targets are shown as digests only.',
  request: { query: z.strictObject({ limit: limitQuery(50, 500) }) },
  responses: { 200: jsonAnswer('The jobs', listOf(JobSchema)), ...errors(400, 401, 403) },
});

const getRoute = createRoute({
  ...needs('project.view'),
  tags,
  method: 'get',
  path: '/{id}',
  summary: 'One deletion job',
  request: { params: z.object({ id: z.string() }) },
  responses: { 200: jsonAnswer('The job', JobSchema), ...errors(401, 403, 404) },
});

/**
 * `/control-plane/erasures`: deletion on request. `wake` starts this process's worker once the job is committed (other
 * replicas find it at their next poll).
 */
export function erasureRoutes(services: Services, worker: { wake(): void } | undefined) {
  const { db } = services;
  return createRouter()
    .openapi(queueRoute, async (c) => {
      const { tenantId, projectId, actor } = c.get('caller');
      const target = parseTarget(c.req.valid('json'));
      const row = await queueErasure(db, services.clock, { tenantId, projectId }, target, actorLabel(actor));
      const job = jobOf(row);
      // The request's body names the person: the audit entry keeps the masked target instead.
      c.set('audit', { after: { target: job.target }, target: { type: 'erasure', id: row.id } });
      worker?.wake();
      return c.json(job, 202);
    })
    .openapi(listRoute, async (c) => {
      const rows = await listErasures(db, c.get('caller').projectId, c.req.valid('query').limit);
      return c.json({ data: rows.map(jobOf) }, 200);
    })
    .openapi(getRoute, async (c) => {
      const row = await findErasure(db, c.get('caller').projectId, c.req.valid('param').id);
      return c.json(jobOf(row), 200);
    });
}
