import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/schema';
import { ApiError, badRequest } from '../../http/errors';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer, jsonBody, readControlJson } from '../../http/openapi';
import { idParams, listOf, strings, text } from '../../http/schemas';
import { SEVERITIES } from '../../incidents/types';
import { ISSUE_SEVERITY } from '../kinds/types';
import { Rule } from '../schemas';
import type { NotifyServices } from '../services';
import type { RuleConditions } from './match';

type RuleRow = Selectable<Database['notification_rules']>;

/** A week: an escalation step later than that is a mistake, not a policy. */
const MAX_DELAY_SECONDS = 7 * 24 * 3600;
/** An incident's severities, and the one issue events have (a rule may be for regressions alone). */
const RULE_SEVERITIES = [...SEVERITIES, ISSUE_SEVERITY] as const;

const ruleJson = (row: RuleRow) => ({
  id: row.id,
  name: row.name,
  position: row.position,
  conditions: JSON.parse(row.conditions) as RuleConditions,
  channels: JSON.parse(row.channels) as string[],
  delay_seconds: row.delay_seconds,
  created_at: new Date(row.created_ms).toISOString(),
});

async function lastPosition(services: NotifyServices, projectId: string): Promise<number> {
  const row = await services.db
    .selectFrom('notification_rules')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

const control = { tags: ['notifications'], security: CONTROL_SECURITY };

const Conditions = z.strictObject({
  severity: z.array(z.enum(RULE_SEVERITIES)).optional(),
  env: strings.optional(),
  services: strings.optional(),
});

const createRuleRoute = createRoute({
  ...control,
  method: 'post',
  path: '/',
  summary: 'Create a rule (evaluated after the existing ones)',
  middleware: [readControlJson],
  request: {
    body: jsonBody(
      z.strictObject({
        name: text(),
        conditions: Conditions.default({}),
        channels: strings.min(1).openapi({ description: 'Channel ids of this project' }),
        delay_seconds: z.number().int().min(0).max(MAX_DELAY_SECONDS).default(0),
      }),
      { name: 'page on critical', conditions: { severity: ['critical'], env: ['production'] }, channels: ['ch_0123456789abcdef0123'], delay_seconds: 0 },
    ),
  },
  responses: { 201: jsonAnswer('Created', Rule), ...errors(400, 401, 403, 413, 415) },
});

const listRoute = createRoute({ ...control, method: 'get', path: '/', summary: 'Rules in evaluation order', responses: { 200: jsonAnswer('Rules', listOf(Rule)), ...errors(401, 403) } });

const deleteRoute = createRoute({
  ...control,
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a rule',
  request: { params: idParams('Rule id') },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
});

/**
 * `POST/GET/DELETE /control-plane/notifications/rules` (SPEC 2.5). Rules are evaluated in the order they were
 * created (`position`); every matching rule fires (notify/outbox/schedule.ts).
 */
export function ruleRoutes(services: NotifyServices) {
  return createRouter()
    .openapi(createRuleRoute, async (c) => {
      const { name, conditions, channels, delay_seconds: delay } = c.req.valid('json');
      const { projectId } = c.get('caller');
      const known = new Set(
        (await services.db.selectFrom('notification_channels').select('id').where('project_id', '=', projectId).where('id', 'in', channels).execute()).map((r) => r.id),
      );
      channels.forEach((id, i) => {
        if (!known.has(id)) throw badRequest(`channels[${i}]: no notification channel ${id} in this project`, { field: `channels[${i}]` });
      });
      const row: RuleRow = {
        id: `rule_${randomBytes(10).toString('hex')}`,
        project_id: projectId,
        // After every existing rule: rules are evaluated in the order they were created.
        position: (await lastPosition(services, projectId)) + 1,
        name,
        conditions: JSON.stringify(conditions),
        channels: JSON.stringify([...new Set(channels)]),
        delay_seconds: delay,
        created_ms: services.clock.now(),
      };
      await services.db.insertInto('notification_rules').values(row).execute();
      return c.json(ruleJson(row), 201);
    })
    .openapi(listRoute, async (c) => {
      const rows = await services.db.selectFrom('notification_rules').selectAll().where('project_id', '=', c.get('caller').projectId).orderBy('position').orderBy('created_ms').orderBy('id').execute();
      return c.json({ data: rows.map(ruleJson) }, 200);
    })
    .openapi(deleteRoute, async (c) => {
      const { id } = c.req.valid('param');
      const result = await services.db.deleteFrom('notification_rules').where('project_id', '=', c.get('caller').projectId).where('id', '=', id).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) throw new ApiError(404, 'not_found', `no notification rule ${id} in this project`);
      return c.body(null, 204);
    });
}
