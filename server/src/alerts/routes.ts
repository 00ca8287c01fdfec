import { randomBytes } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { readCursor } from '../http/cursor';
import type { Services } from '../http/env';
import {
  changesNothing,
  createRouter,
  errors,
  jsonAnswer,
  jsonBody,
  needs,
  readControlJson,
  validationError,
} from '../http/openapi';
import { cursorQuery, idParams, limitQuery, pageOf } from '../http/schemas';
import { keysetPage } from '../shared/keyset';
import { iso } from '../shared/time';
import type { IncidentCommands } from '../incidents/types';
import { ruleDeleted } from './evaluate/lifecycle';
import { MAX_PREVIEW_DAYS, preview } from './preview';
import type { AlertRule } from './rule';
import {
  AlertRuleSchema,
  CREATE_EXAMPLE,
  PREVIEW_EXAMPLE,
  PreviewSchema,
  ruleBodies,
  type RuleBodies,
} from './schemas';
import { deleteRule, insertRule, listRules, loadRule, ruleFromRow, updateRule, type RuleChanges } from './store';

/** A rule as the API shows it (docs/alerts.md). */
export const ruleJson = (rule: AlertRule) => ({
  id: rule.id,
  name: rule.name,
  signal: rule.signal,
  query: rule.query,
  window_seconds: rule.windowSeconds,
  condition: rule.condition,
  recovery: rule.recovery,
  for_seconds: rule.forSeconds,
  severity: rule.severity,
  no_data: rule.noData,
  enabled: rule.enabled,
  state: rule.state,
  last_value: rule.lastValue,
  last_evaluated_at: rule.lastEvaluatedMs === null ? null : iso(rule.lastEvaluatedMs),
  incident_id: rule.incidentId,
  created_at: iso(rule.createdMs),
  updated_at: iso(rule.updatedMs),
});

type Fields = z.infer<RuleBodies['MergedRule']>;

/** The definition columns of a checked rule (each named as its field). */
const definition = (f: Fields): Required<RuleChanges> => ({
  name: f.name,
  signal: f.signal,
  query: JSON.stringify(f.query),
  condition: JSON.stringify(f.condition),
  recovery: f.recovery === null ? null : JSON.stringify(f.recovery),
  window_seconds: f.window_seconds,
  for_seconds: f.for_seconds,
  severity: f.severity,
  no_data: f.no_data,
  enabled: f.enabled ? 1 : 0,
});

const tags = { tags: ['alerts'] };
const ruleId = idParams('Alert rule id');

const listRoute = createRoute({
  ...needs('project.view'),
  ...tags,
  method: 'get',
  path: '/',
  summary: 'Alert rules, newest first',
  request: { query: z.strictObject({ limit: limitQuery(50, 500), cursor: cursorQuery }) },
  responses: { 200: jsonAnswer('A page of rules', pageOf(AlertRuleSchema)), ...errors(400, 401, 403) },
});

const getRoute = createRoute({
  ...needs('project.view'),
  ...tags,
  method: 'get',
  path: '/{id}',
  summary: 'One alert rule, with its state',
  request: { params: ruleId },
  responses: { 200: jsonAnswer('The rule', AlertRuleSchema), ...errors(401, 403, 404) },
});

const deleteRoute = createRoute({
  ...needs('project.configure'),
  ...tags,
  method: 'delete',
  path: '/{id}',
  summary: 'Delete an alert rule',
  description: 'An incident it opened stays open, to be resolved as any other.',
  request: { params: ruleId },
  responses: { 204: { description: 'Deleted' }, ...errors(401, 403, 404) },
});

/** The routes that take a rule in their body, checked with the server's shortest window (schemas.ts). */
const bodyRoutes = ({ CreateRuleBody, EditRuleBody, PreviewBody }: RuleBodies) => ({
  createRuleRoute: createRoute({
    ...needs('project.configure'),
    ...tags,
    method: 'post',
    path: '/',
    summary: 'Create an alert rule',
    description:
      'A query over one signal, a window, a condition, a `for` duration and a severity (docs/alerts.md). Each field is ' +
      'checked, and so is how they fit: the aggregate and the filters must be of the signal, `query.metric` names the ' +
      'vital or the metric.',
    middleware: [readControlJson],
    request: { body: jsonBody(CreateRuleBody, CREATE_EXAMPLE) },
    responses: { 201: jsonAnswer('Created', AlertRuleSchema), ...errors(400, 401, 403, 413, 415) },
  }),
  editRoute: createRoute({
    ...needs('project.configure'),
    ...tags,
    method: 'patch',
    path: '/{id}',
    summary: 'Edit an alert rule',
    description:
      'Each field given replaces the stored one; the rule is then checked whole as on creation. Its evaluation starts ' +
      'again: the state becomes `ok` at the next evaluation unless the condition holds.',
    middleware: [readControlJson],
    request: { params: ruleId, body: jsonBody(EditRuleBody, { enabled: false }) },
    responses: { 200: jsonAnswer('The rule', AlertRuleSchema), ...errors(400, 401, 403, 404, 413, 415) },
  }),
  previewRoute: createRoute({
    ...needs('project.view'),
    ...changesNothing,
    ...tags,
    method: 'post',
    path: '/preview',
    summary: "Draw a rule's query over a range and where it would have fired, before saving it",
    description:
      `The rule's fields (\`name\` may be left out) and the range, by default the last 7 days, at most ` +
      `${MAX_PREVIEW_DAYS}. One value per step (the window, or longer for at most 500 points), each over the window ` +
      'ending there; `firings` where the condition held for `for_seconds`, until it recovered. Stores nothing.',
    middleware: [readControlJson],
    request: { body: jsonBody(PreviewBody, PREVIEW_EXAMPLE) },
    responses: { 200: jsonAnswer('The series', PreviewSchema), ...errors(400, 401, 403, 413, 415) },
  }),
});

/**
 * `/control-plane/alert-rules`: the rules' CRUD and the preview (docs/alerts.md); their evaluation is alerts/evaluate/.
 * `incidents`: the incident commands that resolve a deleted rule's incident (absent when the server has no incidents).
 * `minWindowSeconds`: the shortest window a rule may have (`--alert-min-window-seconds`, for tests).
 */
export function alertRuleRoutes(services: Services, incidents?: IncidentCommands, minWindowSeconds?: number) {
  const { db, clock } = services;
  const bodies = ruleBodies(minWindowSeconds);
  const { createRuleRoute, editRoute, previewRoute } = bodyRoutes(bodies);
  return createRouter()
    .openapi(listRoute, async (c) => {
      const { limit } = c.req.valid('query');
      const rows = await listRules(db, c.get('caller').projectId, { limit, after: readCursor(c, 'string') });
      const page = keysetPage(
        rows,
        limit,
        (row) => ruleJson(ruleFromRow(row)),
        (row) => ({
          t: Number(row.created_ms),
          k: row.id,
        }),
      );
      return c.json(page, 200);
    })
    .openapi(previewRoute, async (c) =>
      c.json(await preview(db, c.get('caller').projectId, c.req.valid('json'), clock.now()), 200),
    )
    .openapi(createRuleRoute, async (c) => {
      const fields = c.req.valid('json');
      const now = clock.now();
      const id = `ar_${randomBytes(10).toString('hex')}`;
      await insertRule(db, {
        id,
        project_id: c.get('caller').projectId,
        ...definition(fields),
        created_ms: now,
        updated_ms: now,
        state: 'ok',
        state_since_ms: now,
        next_eval_ms: 0,
      });
      return c.json(ruleJson(ruleFromRow(await loadRule(db, c.get('caller').projectId, id))), 201);
    })
    .openapi(getRoute, async (c) =>
      c.json(ruleJson(ruleFromRow(await loadRule(db, c.get('caller').projectId, c.req.valid('param').id))), 200),
    )
    .openapi(editRoute, async (c) => {
      const { id } = c.req.valid('param');
      const { projectId } = c.get('caller');
      const stored = ruleJson(ruleFromRow(await loadRule(db, projectId, id)));
      const edit = c.req.valid('json');
      const merged = bodies.MergedRule.safeParse({
        name: stored.name,
        signal: stored.signal,
        query: stored.query,
        window_seconds: stored.window_seconds,
        condition: stored.condition,
        recovery: stored.recovery,
        for_seconds: stored.for_seconds,
        severity: stored.severity,
        no_data: stored.no_data,
        enabled: stored.enabled,
        ...edit,
      });
      if (!merged.success) throw validationError(merged.error, 'json');
      const full = definition(merged.data);
      const changes: RuleChanges = Object.fromEntries(
        Object.keys(edit).map((field) => [field, full[field as keyof RuleChanges]]),
      );
      if (Object.keys(changes).length > 0) await updateRule(db, projectId, id, changes, clock.now());
      c.set('audit', { before: stored, after: edit });
      return c.json(ruleJson(ruleFromRow(await loadRule(db, projectId, id))), 200);
    })
    .openapi(deleteRoute, async (c) => {
      const rule = { id: c.req.valid('param').id, projectId: c.get('caller').projectId };
      await deleteRule(db, rule.projectId, rule.id);
      // The evaluator no longer sees the rule: what it opened is resolved here.
      if (incidents) await ruleDeleted(incidents, rule);
      return c.body(null, 204);
    });
}
