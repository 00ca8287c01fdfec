import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { createRouter, errors, jsonAnswer, jsonBody, readControlJson, needs } from '../../http/openapi';
import { idParams, listOf, strings, text } from '../../http/schemas';
import { SEVERITIES } from '../../incidents/types';
import { Rule } from '../schemas';
import type { NotifyServices } from '../services';
import type { RuleConditions } from './match';
import {
  checkAssignees,
  checkedChannels,
  deleteRule,
  insertRule,
  loadRule,
  nextPosition,
  reorderRules,
  rulesInOrder,
  updateRule,
  type RuleChanges,
  type RuleRow,
} from './store';

/** A week: an escalation step later than that is a mistake, not a policy. */
const MAX_DELAY_SECONDS = 7 * 24 * 3600;

const ruleJson = (row: RuleRow) => ({
  id: row.id,
  name: row.name,
  position: row.position,
  conditions: JSON.parse(row.conditions) as RuleConditions,
  channels: JSON.parse(row.channels) as string[],
  delay_seconds: row.delay_seconds,
  created_at: new Date(row.created_ms).toISOString(),
});

const control = { tags: ['notifications'] };

const Conditions = z.strictObject({
  // The incident severities include `warning`, the one issue events have (a rule may be for regressions alone).
  severity: z.array(z.enum(SEVERITIES)).optional(),
  env: strings.optional(),
  services: strings.optional(),
  assignees: strings.optional().openapi({
    description: 'User ids of members, or `unassigned`: the incident or issue must be assigned to one of them',
  }),
});

/** A rule's fields, each as creation and edits check it; creation fills `conditions` and `delay_seconds` when left out. */
const RuleFields = {
  name: text(),
  conditions: Conditions,
  channels: strings.min(1).openapi({ description: 'Channel ids of this project' }),
  delay_seconds: z.number().int().min(0).max(MAX_DELAY_SECONDS),
};
const EXAMPLE = {
  name: 'page on critical',
  conditions: { severity: ['critical' as const], env: ['production'] },
  channels: ['ch_0123456789abcdef0123'],
  delay_seconds: 0,
};

const createRuleRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'post',
  path: '/',
  summary: 'Create a rule (evaluated after the existing ones)',
  middleware: [readControlJson],
  request: {
    body: jsonBody(
      z.strictObject({
        ...RuleFields,
        conditions: RuleFields.conditions.default({}),
        delay_seconds: RuleFields.delay_seconds.default(0),
      }),
      EXAMPLE,
    ),
  },
  responses: { 201: jsonAnswer('Created', Rule), ...errors(400, 401, 403, 413, 415) },
});

const editRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'patch',
  path: '/{id}',
  summary: "Edit a rule's name, conditions, channels or delay (its place in the order stays)",
  description: 'Each field given replaces the stored one, checked as on creation; fields left out stay.',
  middleware: [readControlJson],
  request: {
    params: idParams('Rule id'),
    body: jsonBody(z.strictObject(RuleFields).partial(), { channels: EXAMPLE.channels, delay_seconds: 300 }),
  },
  responses: { 200: jsonAnswer('The rule', Rule), ...errors(400, 401, 403, 404, 413, 415) },
});

const orderRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'put',
  path: '/order',
  summary: 'Set the evaluation order of all rules',
  description:
    "`ids` must name each of the project's rules exactly once; the first is evaluated first. Every matching rule still fires.",
  middleware: [readControlJson],
  request: {
    body: jsonBody(z.strictObject({ ids: z.array(z.string()) }), {
      ids: ['rule_0123456789abcdef0123', 'rule_3210fedcba9876543210'],
    }),
  },
  responses: { 200: jsonAnswer('Rules in the new order', listOf(Rule)), ...errors(400, 401, 403, 413, 415) },
});

const listRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/',
  summary: 'Rules in evaluation order',
  responses: { 200: jsonAnswer('Rules', listOf(Rule)), ...errors(401, 403) },
});

const deleteRoute = createRoute({
  ...needs('project.configure'),
  ...control,
  method: 'delete',
  path: '/{id}',
  summary: 'Delete a rule',
  request: { params: idParams('Rule id') },
  responses: { 204: { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
});

/**
 * `POST/GET/PATCH/DELETE /control-plane/notifications/rules` and `PUT .../order` (SPEC 2.5). Rules are evaluated by
 * `position`: the order they were created in until `PUT .../order` sets another; every matching rule fires
 * (notify/outbox/schedule.ts).
 */
export function ruleRoutes(services: NotifyServices) {
  return createRouter()
    .openapi(createRuleRoute, async (c) => {
      const { name, conditions, channels, delay_seconds: delay } = c.req.valid('json');
      const { projectId, tenantId } = c.get('caller');
      await checkAssignees(services.db, tenantId, conditions.assignees ?? []);
      const checked = await checkedChannels(services.db, projectId, channels);
      const row: RuleRow = {
        id: `rule_${randomBytes(10).toString('hex')}`,
        project_id: projectId,
        position: await nextPosition(services.db, projectId),
        name,
        conditions: JSON.stringify(conditions),
        channels: checked,
        delay_seconds: delay,
        created_ms: services.clock.now(),
      };
      await insertRule(services.db, row);
      return c.json(ruleJson(row), 201);
    })
    .openapi(listRoute, async (c) =>
      c.json({ data: (await rulesInOrder(services.db, c.get('caller').projectId)).map(ruleJson) }, 200),
    )
    .openapi(orderRoute, async (c) => {
      const { ids } = c.req.valid('json');
      const { projectId } = c.get('caller');
      const rules = await reorderRules(services.db, projectId, ids);
      return c.json({ data: rules.map(ruleJson) }, 200);
    })
    .openapi(editRoute, async (c) => {
      const { id } = c.req.valid('param');
      const { projectId, tenantId } = c.get('caller');
      const row = await loadRule(services.db, projectId, id);
      const { name, conditions, channels, delay_seconds: delay } = c.req.valid('json');
      await checkAssignees(services.db, tenantId, conditions?.assignees ?? []);
      const changes: RuleChanges = {
        ...(name !== undefined ? { name } : {}),
        ...(conditions !== undefined ? { conditions: JSON.stringify(conditions) } : {}),
        ...(channels !== undefined ? { channels: await checkedChannels(services.db, projectId, channels) } : {}),
        ...(delay !== undefined ? { delay_seconds: delay } : {}),
      };
      if (Object.keys(changes).length > 0) await updateRule(services.db, projectId, id, changes);
      return c.json(ruleJson({ ...row, ...changes }), 200);
    })
    .openapi(deleteRoute, async (c) => {
      const { id } = c.req.valid('param');
      await deleteRule(services.db, c.get('caller').projectId, id);
      return c.body(null, 204);
    });
}
