import { assign, type AssignmentServices } from '../assignment/assign';
import { assigneeFilter } from '../assignment/assignee';
import { assigneeRoute } from '../assignment/route';
import { assigneeQuery } from '../assignment/schemas';
import { actorLabel } from '../http/env';
import { createRoute, z } from '@hono/zod-openapi';
import { IncidentAnalysis } from '../ai/schemas';
import { incidentAnalysis } from '../ai/incident-analysis';
import { ApiError } from '../http/errors';
import {
  createRouter,
  errors,
  jsonAnswer,
  jsonBody,
  optionalJsonBody,
  readControlJson,
  readOptionalControlJson,
  needs,
} from '../http/openapi';
import { cursorQuery, idParams, limitQuery, pageOf, strings, text, orderQuery } from '../http/schemas';
import type { NotifyServices } from '../notify/services';
import { issueOfIncident } from '../issues/store';
import { readSortedCursor, sortedPage, type KeysetSort } from '../shared/keyset';
import { Incident, INCIDENT_SORTS } from './schemas';
import { incidentPosition } from './store';
import { INCIDENT_STATUSES, SEVERITIES } from './types';

const notFound = (id: string) => new ApiError(404, 'not_found', `no incident ${id} in this project`);
const PAGE = { default: 50, max: 200 } as const;
const control = { tags: ['incidents'] };

const listRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/',
  summary: 'Incidents, newest first unless `sort` and `order` say otherwise',
  request: {
    query: z.strictObject({
      status: z.enum(INCIDENT_STATUSES).optional(),
      severity: z.enum(SEVERITIES).optional(),
      env: z.string().max(100).optional().openapi({ description: 'Only incidents of this environment' }),
      service: z
        .string()
        .max(200)
        .optional()
        .openapi({ description: 'Only incidents whose services include this one (ignoring case)' }),
      assignee: assigneeQuery,
      sort: z.enum(INCIDENT_SORTS).default('detected').openapi({
        description:
          'Order: detection time (default), severity (critical, high, medium, low, info) or last change (`updated_at`); ties by id',
      }),
      order: orderQuery('desc (default): newest, most severe, most recently changed first'),
      limit: limitQuery(PAGE.default, PAGE.max),
      cursor: cursorQuery.openapi({ description: '`next_cursor` of the previous page of the same sort and order' }),
    }),
  },
  responses: { 200: jsonAnswer('A page', pageOf(Incident)), ...errors(400, 401, 403) },
});

const getRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/{id}',
  summary: 'One incident, with the issue it grew from and the latest analysis of that issue',
  description:
    'Everything the incident page (`dashboard_url`) shows: evidence, cost impact, analysis, and the issue to open for its stack.',
  request: { params: idParams('Incident id') },
  responses: {
    200: jsonAnswer(
      'The incident',
      Incident.extend({
        issue_id: z
          .string()
          .nullable()
          .openapi({ description: 'The issue it grew from (GET /control-plane/issues/{id}), while it exists' }),
        analysis: IncidentAnalysis,
      }),
    ),
    ...errors(400, 401, 403, 404),
  },
});

const openRoute = createRoute({
  ...needs('issues.triage'),
  ...control,
  method: 'post',
  path: '/',
  summary: 'Open an incident (external detectors)',
  middleware: [readControlJson],
  request: {
    body: jsonBody(
      z.strictObject({
        title: text(300).openapi({ example: 'Checkout fails for every user' }),
        severity: z.enum(SEVERITIES),
        env: text(100).default('production'),
        services: strings.default([]),
        root_cause_summary: text(4000).optional(),
      }),
      {
        title: 'Checkout fails for every user',
        severity: 'high',
        env: 'production',
        services: ['checkout'],
        root_cause_summary: 'Payment provider times out',
      },
    ),
  },
  responses: { 201: jsonAnswer('Created', Incident), ...errors(400, 401, 403, 413, 415) },
});

const assignRoute = assigneeRoute('incident', Incident);

type Move = 'acknowledge' | 'resolve';
const moveRoute = <A extends Move>(action: A) =>
  createRoute({
    ...needs('issues.triage'),
    ...control,
    method: 'post',
    path: `/{id}/${action}` as const,
    summary: `${action === 'acknowledge' ? 'Acknowledge' : 'Resolve'} an incident (no-op when it already is)`,
    middleware: [readOptionalControlJson],
    request: {
      params: idParams('Incident id'),
      body: optionalJsonBody(
        z.strictObject({ by: text().optional().openapi({ description: "Who; default: the key's name" }) }),
        { by: 'alice' },
      ),
    },
    responses: { 200: jsonAnswer('The incident', Incident), ...errors(400, 401, 403, 404, 413, 415) },
  });

/**
 * `/control-plane/incidents`: list (newest first or by `sort`, filters `status`, `severity`, `env`, `service`,
 * `assignee`), get, create (for external detectors), acknowledge, resolve and assign (`mail`: the server's own mail,
 * which tells an assignee).
 */
export function incidentRoutes(services: NotifyServices, mail: AssignmentServices) {
  const { incidents } = services;
  return createRouter()
    .openapi(listRoute, async (c) => {
      const { limit, cursor, sort, order, assignee, ...filter } = c.req.valid('query');
      // Cursors from before the listing could be sorted were by detection, newest first.
      const ks: KeysetSort = { sort, order, value: 'integer', defaultSort: 'detected' };
      const after = readSortedCursor(cursor, ks);
      const caller = c.get('caller');
      const rows = await incidents.list(caller.projectId, {
        ...filter,
        ...(assignee !== undefined && { assignee: assigneeFilter(caller, assignee) }),
        limit: limit + 1,
        sort,
        order,
        after,
      });
      return c.json(
        sortedPage(
          rows,
          limit,
          ks,
          (incident) => incident,
          (incident) => incidentPosition(sort, incident),
        ),
        200,
      );
    })
    .openapi(getRoute, async (c) => {
      const { id } = c.req.valid('param');
      const { projectId } = c.get('caller');
      const incident = await incidents.get(projectId, id);
      if (!incident) throw notFound(id);
      const issue = await issueOfIncident(services.db, projectId, incident);
      return c.json(
        {
          ...incident,
          issue_id: issue?.fingerprint ?? null,
          analysis: await incidentAnalysis(services.db, projectId, incident),
        },
        200,
      );
    })
    .openapi(openRoute, async (c) => {
      const body = c.req.valid('json');
      const { projectId } = c.get('caller');
      const { id } = await incidents.open({
        projectId,
        title: body.title,
        severity: body.severity,
        env: body.env,
        services: body.services,
        rootCauseSummary: body.root_cause_summary ?? '',
        fingerprint: null,
        evidence: null,
      });
      return c.json((await incidents.get(projectId, id))!, 201);
    })
    .openapi(assignRoute, async (c) => {
      const { id } = c.req.valid('param');
      const { projectId } = c.get('caller');
      const incident = await incidents.get(projectId, id);
      if (!incident) throw notFound(id);
      const after = await assign(
        c,
        mail,
        {
          kind: 'incident',
          title: incident.title,
          path: `/incident/${encodeURIComponent(id)}`,
          assignee: incident.assignee,
          row: incident,
          save: async (change) => (await incidents.assign(projectId, id, change)) ?? incident,
        },
        c.req.valid('json').assignee,
      );
      return c.json(after, 200);
    })
    .route('/', moveRoutes(services, 'acknowledge'))
    .route('/', moveRoutes(services, 'resolve'));
}

/** `POST /{id}/acknowledge` or `/{id}/resolve`, each its own router so the group's type names both. */
function moveRoutes<A extends Move>({ incidents }: NotifyServices, action: A) {
  return createRouter().openapi(moveRoute(action), async (c) => {
    const { id } = c.req.valid('param');
    const by = c.req.valid('json').by ?? actorLabel(c.get('caller').actor);
    const incident = await incidents[action](c.get('caller').projectId, id, by);
    if (!incident) throw notFound(id);
    return c.json(incident, 200);
  });
}
