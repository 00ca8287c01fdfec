import { createRoute, z } from '@hono/zod-openapi';
import { actorLabel, type Services } from '../http/env';
import { createRouter, errors, jsonAnswer, jsonBody, needs, readControlJson } from '../http/openapi';
import { effectiveRetention } from './effective';
import {
  MAX_RETENTION_DAYS,
  PROJECT_SIGNALS,
  RETENTION_SIGNALS,
  type ProjectSignal,
  type RetentionDefaults,
} from './signals';
import { changeProjectRetention, projectRetention, type ProjectRetention, type RetentionChange } from './store';

const tags = ['retention'];

const SignalRetentionSchema = z.object({
  signal: z.enum(RETENTION_SIGNALS),
  days: z.number().int().openapi({ description: 'Days the signal is kept, counted from receipt; 0: for ever' }),
  source: z.enum(['project', 'server']).openapi({ description: "The project's own setting, or the server's default" }),
  server_days: z.number().int().openapi({ description: 'The server default (SVC_RETENTION_<SIGNAL>_DAYS)' }),
  settable: z.boolean().openapi({ description: 'false for audit: kept per organisation by the server setting' }),
});

const RetentionSchema = z
  .object({ project_id: z.string(), signals: z.array(SignalRetentionSchema) })
  .openapi('Retention', {
    example: {
      project_id: 'prj_default',
      signals: [
        { signal: 'replays', days: 14, source: 'project', server_days: 30, settable: true },
        { signal: 'logs', days: 30, source: 'server', server_days: 30, settable: true },
      ],
    },
  });

const days = z
  .number()
  .int()
  .min(0)
  .max(MAX_RETENTION_DAYS)
  .nullable()
  .optional()
  .openapi({ description: 'Days (0: for ever); null: back to the server default' });

const ChangeSchema = z.strictObject({
  ...(Object.fromEntries(PROJECT_SIGNALS.map((s) => [s, days])) as Record<ProjectSignal, typeof days>),
  // Named so that its refusal says why: the audit log is the organisation's, kept by the server's setting.
  audit: z
    .unknown()
    .refine(() => false, {
      error: 'audit is kept per organisation by the server (SVC_RETENTION_AUDIT_DAYS), not per project',
    })
    .optional()
    .openapi({ description: 'Refused: the audit log is kept per organisation (SVC_RETENTION_AUDIT_DAYS)' }),
});

const readRoute = createRoute({
  ...needs('project.view'),
  tags,
  method: 'get',
  path: '/',
  summary: "How long the caller's project keeps each signal",
  description:
    "Every signal with the days it is kept, whether that is the project's own setting or the server's default, and " +
    'the server default. The retention job deletes what is older, counted from receipt (docs/server.md, "Retention").',
  responses: { 200: jsonAnswer('Each signal', RetentionSchema), ...errors(401, 403) },
});

const changeRoute = createRoute({
  ...needs('project.configure'),
  tags,
  middleware: [readControlJson],
  method: 'put',
  path: '/',
  summary: "Set or reset the project's retention of signals",
  description:
    'Each signal named gets its days (0 to 36500; 0 keeps it for ever), or with null goes back to the server default; ' +
    'signals left out keep their setting. `audit` is not set per project. One audit entry, the values before and after.',
  request: { body: jsonBody(ChangeSchema, { replays: 14, logs: 30, metrics: null }) },
  responses: { 200: jsonAnswer('Each signal, after the change', RetentionSchema), ...errors(400, 401, 403, 413, 415) },
});

/** The project's own values of the signals a change names (null: the server default). */
const ownOf = (own: ProjectRetention, change: RetentionChange) =>
  Object.fromEntries(Object.keys(change).map((s) => [s, own[s as ProjectSignal] ?? null]));

/** `/control-plane/retention`: the caller's project's retention per signal (docs/server.md, "Retention"). */
export function retentionRoutes(services: Services, defaults: RetentionDefaults) {
  const { db } = services;
  const answer = (projectId: string, own: ProjectRetention) => ({
    project_id: projectId,
    signals: effectiveRetention(defaults, own),
  });
  return createRouter()
    .openapi(readRoute, async (c) => {
      const { projectId } = c.get('caller');
      return c.json(answer(projectId, await projectRetention(db, projectId)), 200);
    })
    .openapi(changeRoute, async (c) => {
      const { projectId, actor } = c.get('caller');
      const { audit: _audit, ...change } = c.req.valid('json');
      const before = await projectRetention(db, projectId);
      await changeProjectRetention(db, services.clock, projectId, change, actorLabel(actor));
      const after = await projectRetention(db, projectId);
      c.set('audit', {
        before: ownOf(before, change),
        after: ownOf(after, change),
        target: { type: 'project', id: projectId },
      });
      return c.json(answer(projectId, after), 200);
    });
}
