import { createRoute } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { ApiError, badRequest } from '../http/errors';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer, jsonBody, readControlJson } from '../http/openapi';
import { idParams, pageOf } from '../http/schemas';
import { keysetPage, readCursor } from '../query/params';
import { resolveServiceNames } from '../tenancy/apps';
import { issueDetail } from './detail';
import { findIssueRow } from './find';
import { issueJson, type IssueRow } from './json';
import { ISSUE_SORTS, listIssues } from './list';
import { IssueDetailSchema, IssueSchema, IssuesQuery, StatusChange } from './schemas';
import { changeStatus } from './status';

const control = { tags: ['issues'], security: CONTROL_SECURITY };

const listRoute = createRoute({
  ...control,
  method: 'get',
  path: '/',
  summary: 'Issues: errors grouped by fingerprint',
  description: "Confined to the key's project; largest first in the chosen order, then by id. Unknown query parameters are rejected.",
  request: { query: IssuesQuery },
  responses: { 200: jsonAnswer('A page', pageOf(IssueSchema)), ...errors(400, 401, 403) },
});

const getRoute = createRoute({
  ...control,
  method: 'get',
  path: '/{id}',
  summary: "One issue: its newest error's stack symbolicated now, counts, releases, sessions, breadcrumbs",
  request: { params: idParams('Issue id') },
  responses: { 200: jsonAnswer('The issue', IssueDetailSchema), ...errors(400, 401, 403, 404) },
});

const statusRoute = createRoute({
  ...control,
  method: 'patch',
  path: '/{id}',
  summary: "Set an issue's status",
  middleware: [readControlJson],
  request: { params: idParams('Issue id'), body: jsonBody(StatusChange, { status: 'resolved', in_next_release: true }) },
  responses: { 200: jsonAnswer('The issue', IssueSchema), ...errors(400, 401, 403, 404, 413, 415) },
});

/** `/control-plane/issues`: errors grouped by fingerprint, listed, read and given a status (docs/issues.md). */
export function issueRoutes(services: Services) {
  const { db } = services;

  const findIssue = async (projectId: string, id: string): Promise<IssueRow> => {
    const row = await findIssueRow(db, projectId, id);
    if (!row) throw new ApiError(404, 'not_found', `no issue ${id} in this project`);
    return row;
  };

  return createRouter()
    .openapi(listRoute, async (c) => {
      const { app, sort, limit, user_id: userId, seen_in: seenIn, cursor: _cursor, ...filter } = c.req.valid('query');
      const { projectId } = c.get('caller');
      const appId = app === undefined || app === '' ? undefined : (await resolveServiceNames(db, projectId, [app])).get(app)?.id;
      if (app && appId === undefined) throw badRequest(`app "${app}" is neither an app name nor an alias in this project`, { field: 'app' });
      const rows = await listIssues(db, projectId, { ...filter, appId, userId, seenIn }, { sort, limit, cursor: readCursor(c, 'string') });
      const column = ISSUE_SORTS[sort];
      return c.json(keysetPage(rows, limit, issueJson, (r) => ({ t: Number(r[column]), k: r.fingerprint })), 200);
    })
    .openapi(getRoute, async (c) => {
      const row = await findIssue(c.get('caller').projectId, c.req.valid('param').id);
      return c.json(await issueDetail({ db, symbolicator: services.symbolicator, publicUrl: services.publicUrl }, row), 200);
    })
    .openapi(statusRoute, async (c) => {
      const { status, in_next_release: inNextRelease } = c.req.valid('json');
      const { projectId, key } = c.get('caller');
      const row = await findIssue(projectId, c.req.valid('param').id);
      await changeStatus(db, row, { status, inNextRelease, by: `key:${key.name}`, atMs: services.clock.now() });
      return c.json(issueJson(await findIssue(projectId, row.fingerprint)), 200);
    });
}
