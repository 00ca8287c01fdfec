import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { Selectable } from 'kysely';
import type { Database } from '../../db/schema';
import type { AppEnv } from '../../http/env';
import { ApiError, badRequest } from '../../http/errors';
import { readJsonObject, requiredString, stringList } from '../../http/json-object';
import { SEVERITIES } from '../../incidents/types';
import { ISSUE_SEVERITY } from '../kinds/types';
import type { NotifyServices } from '../services';
import type { RuleConditions } from './match';

type RuleRow = Selectable<Database['notification_rules']>;

/** A week: an escalation step later than that is a mistake, not a policy. */
const MAX_DELAY_SECONDS = 7 * 24 * 3600;
const CONDITION_KEYS = ['severity', 'env', 'services'];
/** An incident's severities, and the one issue events have (a rule may be for regressions alone). */
const RULE_SEVERITIES = [...SEVERITIES, ISSUE_SEVERITY];

const ruleJson = (row: RuleRow) => ({
  id: row.id,
  name: row.name,
  position: row.position,
  conditions: JSON.parse(row.conditions) as RuleConditions,
  channels: JSON.parse(row.channels) as string[],
  delay_seconds: row.delay_seconds,
  created_at: new Date(row.created_ms).toISOString(),
});

function parseConditions(value: unknown): RuleConditions {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('conditions must be an object', { field: 'conditions' });
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!CONDITION_KEYS.includes(key)) throw badRequest(`conditions.${key} is not a condition; use ${CONDITION_KEYS.join(', ')}`, { field: `conditions.${key}` });
  }
  const conditions: RuleConditions = {};
  const severity = stringList(input.severity, 'conditions.severity', RULE_SEVERITIES);
  const env = stringList(input.env, 'conditions.env');
  const services = stringList(input.services, 'conditions.services');
  if (severity) conditions.severity = severity;
  if (env) conditions.env = env;
  if (services) conditions.services = services;
  return conditions;
}

async function lastPosition(services: NotifyServices, projectId: string): Promise<number> {
  const row = await services.db
    .selectFrom('notification_rules')
    .select((eb) => eb.fn.max('position').as('last'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.last ?? 0);
}

/**
 * `POST/GET/DELETE /control-plane/notifications/rules` (SPEC 2.5). Rules are evaluated in the order they were
 * created (`position`); every matching rule fires (notify/outbox/schedule.ts).
 */
export function ruleRoutes(services: NotifyServices) {
  const app = new Hono<AppEnv>();

  app.post('/', async (c) => {
    const body = await readJsonObject(c);
    const { projectId } = c.get('caller');
    const name = requiredString(body, 'name');
    const conditions = parseConditions(body.conditions);
    const channels = stringList(body.channels, 'channels');
    if (!channels || channels.length === 0) throw badRequest('channels is required: a non-empty array of channel ids', { field: 'channels' });
    const known = new Set(
      (await services.db.selectFrom('notification_channels').select('id').where('project_id', '=', projectId).where('id', 'in', channels).execute()).map((r) => r.id),
    );
    channels.forEach((id, i) => {
      if (!known.has(id)) throw badRequest(`channels[${i}]: no notification channel ${id} in this project`, { field: `channels[${i}]` });
    });
    const delay = body.delay_seconds ?? 0;
    if (typeof delay !== 'number' || !Number.isInteger(delay) || delay < 0 || delay > MAX_DELAY_SECONDS) {
      throw badRequest(`delay_seconds must be an integer from 0 to ${MAX_DELAY_SECONDS}`, { field: 'delay_seconds' });
    }
    const now = services.clock.now();
    const row: RuleRow = {
      id: `rule_${randomBytes(10).toString('hex')}`,
      project_id: projectId,
      // After every existing rule: rules are evaluated in the order they were created.
      position: (await lastPosition(services, projectId)) + 1,
      name,
      conditions: JSON.stringify(conditions),
      channels: JSON.stringify([...new Set(channels)]),
      delay_seconds: delay,
      created_ms: now,
    };
    await services.db.insertInto('notification_rules').values(row).execute();
    return c.json(ruleJson(row), 201);
  });

  app.get('/', async (c) => {
    const rows = await services.db.selectFrom('notification_rules').selectAll().where('project_id', '=', c.get('caller').projectId).orderBy('position').orderBy('created_ms').orderBy('id').execute();
    return c.json({ data: rows.map(ruleJson) });
  });

  app.delete('/:id', async (c) => {
    const result = await services.db
      .deleteFrom('notification_rules')
      .where('project_id', '=', c.get('caller').projectId)
      .where('id', '=', c.req.param('id'))
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new ApiError(404, 'not_found', `no notification rule ${c.req.param('id')} in this project`);
    return c.body(null, 204);
  });

  return app;
}
