import { createRoute } from '@hono/zod-openapi';
import { assign } from '../assignment/assign';
import { assigneeFilter, assigneeOfRow } from '../assignment/assignee';
import { assigneeRoute } from '../assignment/route';
import { actorLabel, type Services } from '../http/env';
import { createRouter, errors, jsonAnswer, jsonBody, readControlJson, needs } from '../http/openapi';
import { idParams, listOf, pageOf } from '../http/schemas';
import { appIdFilter } from '../apps/filter';
import { readCursor } from '../http/cursor';
import { keysetPage } from '../shared/keyset';
import { issueDetail } from './detail';
import { issueJson } from './json';
import {
  BulkStatusChange,
  IssueDetailSchema,
  IssueListItemSchema,
  IssueSchema,
  IssuesQuery,
  MAX_BULK_ISSUES,
  StatusChange,
} from './schemas';
import {
  breakdownOf,
  ISSUE_SORTS,
  listIssues,
  requireIssueRow,
  setIssueAssignee,
  setStatus,
  setStatuses,
  trendsOf,
  type IssueRow,
} from './store';

const control = { tags: ['issues'] };

/** What the audit log keeps of a status change (docs/teams.md, "Audit log"). */
const statusOf = (r: IssueRow) => ({ id: r.fingerprint, status: r.status, in_next_release: r.in_next_release === 1 });

const listRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/',
  summary: 'Issues: errors grouped by fingerprint',
  description:
    "Confined to the key's project; largest first in the chosen order, then by id. Unknown query parameters are rejected.",
  request: { query: IssuesQuery },
  responses: { 200: jsonAnswer('A page', pageOf(IssueListItemSchema)), ...errors(400, 401, 403) },
});

const getRoute = createRoute({
  ...needs('project.view'),
  ...control,
  method: 'get',
  path: '/{id}',
  summary:
    "One issue: its newest error's stack symbolicated now, counts, trends, breakdown, releases, sessions, breadcrumbs",
  request: { params: idParams('Issue id') },
  responses: { 200: jsonAnswer('The issue', IssueDetailSchema), ...errors(400, 401, 403, 404) },
});

const statusRoute = createRoute({
  ...needs('issues.triage'),
  ...control,
  method: 'patch',
  path: '/{id}',
  summary: "Set an issue's status",
  middleware: [readControlJson],
  request: {
    params: idParams('Issue id'),
    body: jsonBody(StatusChange, { status: 'resolved', in_next_release: true }),
  },
  responses: { 200: jsonAnswer('The issue', IssueSchema), ...errors(400, 401, 403, 404, 413, 415) },
});

const bulkStatusRoute = createRoute({
  ...needs('issues.triage'),
  ...control,
  method: 'patch',
  path: '/',
  summary: 'Set the status of several issues at once',
  description:
    `Up to ${MAX_BULK_ISSUES} issues of the key's project, each changed as \`PATCH /issues/{id}\` changes one (its time and key recorded), ` +
    'in one transaction: when an id is not an issue of the project the answer is 404 naming it, and nothing changed.',
  middleware: [readControlJson],
  request: { body: jsonBody(BulkStatusChange, { ids: ['4f1c2a9be0d3a7c1', '9d2e4b6f1a3c5e70'], status: 'ignored' }) },
  responses: {
    200: jsonAnswer('The issues, in the order of `ids`', listOf(IssueSchema)),
    ...errors(400, 401, 403, 404, 413, 415),
  },
});

const assignRoute = assigneeRoute('issue', IssueSchema);

/** The collection: the listing (with each issue's trend) and the bulk status change. */
function collectionRoutes(services: Services) {
  const { db } = services;
  return createRouter()
    .openapi(listRoute, async (c) => {
      const {
        app,
        sort,
        limit,
        trend,
        user_id: userId,
        seen_in: seenIn,
        assignee,
        cursor: _cursor,
        ...filter
      } = c.req.valid('query');
      const caller = c.get('caller');
      const { projectId } = caller;
      const appId = await appIdFilter(db, projectId, app);
      const rows = await listIssues(
        db,
        projectId,
        {
          ...filter,
          appId,
          userId,
          seenIn,
          ...(assignee !== undefined && { assignee: assigneeFilter(caller, assignee) }),
        },
        { sort, limit, cursor: readCursor(c, 'string') },
      );
      const fingerprints = rows.slice(0, limit).map((r) => r.fingerprint);
      const trends = await trendsOf(db, projectId, fingerprints, trend, services.clock.now());
      const column = ISSUE_SORTS[sort];
      const item = (r: IssueRow) => ({ ...issueJson(r), trend: trends.get(r.fingerprint)! });
      return c.json(
        keysetPage(rows, limit, item, (r) => ({ t: Number(r[column]), k: r.fingerprint })),
        200,
      );
    })
    .openapi(bulkStatusRoute, async (c) => {
      const { ids, status, in_next_release: inNextRelease } = c.req.valid('json');
      const { projectId, actor } = c.get('caller');
      const change = { status, inNextRelease, by: actorLabel(actor), atMs: services.clock.now() };
      const { before, after } = await setStatuses(db, projectId, ids, change);
      c.set('audit', { before: before.map(statusOf), after: after.map(statusOf) });
      return c.json({ data: after.map(issueJson) }, 200);
    });
}

/** One issue: its detail (with both trends and the breakdown), its status change and its assignee. */
function itemRoutes(services: Services) {
  const { db } = services;
  return createRouter()
    .openapi(getRoute, async (c) => {
      const row = await requireIssueRow(db, c.get('caller').projectId, c.req.valid('param').id);
      const detail = await issueDetail({ db, symbolicator: services.symbolicator, publicUrl: services.publicUrl }, row);
      const now = services.clock.now();
      const trend = async (period: '24h' | '14d') =>
        (await trendsOf(db, row.project_id, [row.fingerprint], period, now)).get(row.fingerprint)!;
      return c.json(
        {
          ...detail,
          trend: { hours: await trend('24h'), days: await trend('14d') },
          breakdown: await breakdownOf(db, row),
        },
        200,
      );
    })
    .openapi(statusRoute, async (c) => {
      const { status, in_next_release: inNextRelease } = c.req.valid('json');
      const { projectId, actor } = c.get('caller');
      const change = { status, inNextRelease, by: actorLabel(actor), atMs: services.clock.now() };
      const { before, after } = await setStatus(db, projectId, c.req.valid('param').id, change);
      c.set('audit', { before: statusOf(before), after: statusOf(after) });
      return c.json(issueJson(after), 200);
    })
    .openapi(assignRoute, async (c) => {
      const row = await requireIssueRow(db, c.get('caller').projectId, c.req.valid('param').id);
      const after = await assign(
        c,
        services,
        {
          kind: 'issue',
          title: `${row.error_type}: ${row.sample_message}`,
          path: `/issue/${encodeURIComponent(row.fingerprint)}`,
          assignee: assigneeOfRow(row),
          row,
          save: (change) => setIssueAssignee(db, row, change),
        },
        c.req.valid('json').assignee,
      );
      return c.json(issueJson(after), 200);
    });
}

/** `/control-plane/issues`: errors grouped by fingerprint, listed, read and given a status (docs/issues.md). */
export function issueRoutes(services: Services) {
  return createRouter().route('/', collectionRoutes(services)).route('/', itemRoutes(services));
}
