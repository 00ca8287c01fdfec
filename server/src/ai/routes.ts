import { createRoute } from '@hono/zod-openapi';
import type { Services } from '../http/env';
import { ApiError } from '../http/errors';
import { CONTROL_SECURITY, createRouter, errors, jsonAnswer } from '../http/openapi';
import { idParams } from '../http/schemas';
import { findIssueRow } from '../issues/find';
import { latestAnalysis } from './analyses';
import { createAnalyzer } from './analyze';
import { Analysis } from './schemas';
import type { AiSettings } from './settings';

const common = { path: '/{id}/analysis', tags: ['issues'], security: CONTROL_SECURITY, request: { params: idParams('Issue id') } };

const startRoute = createRoute({
  ...common,
  method: 'post',
  summary: 'Start a root-cause analysis of an issue (asynchronous); an analysis already under way is returned, not repeated',
  responses: { 202: jsonAnswer('The analysis, queued or under way: follow it with GET', Analysis), ...errors(400, 401, 403, 404) },
});

const latestRoute = createRoute({
  ...common,
  method: 'get',
  summary: "The issue's latest analysis: state, result, what was sent, token usage",
  responses: { 200: jsonAnswer('The analysis', Analysis), ...errors(400, 401, 403, 404) },
});

/** `/control-plane/issues/{id}/analysis`: ask for a root-cause analysis and read the latest (docs/ai-fixes.md). */
export function analysisRoutes(services: Services, ai: AiSettings | undefined) {
  const { db } = services;
  const analyzer = createAnalyzer({ db, symbolicator: services.symbolicator, publicUrl: () => services.publicUrl, clock: services.clock, log: services.log, ai });
  return createRouter()
    .openapi(startRoute, async (c) => {
      const { projectId, key } = c.get('caller');
      const { id } = c.req.valid('param');
      const row = await findIssueRow(db, projectId, id);
      if (!row) throw new ApiError(404, 'not_found', `no issue ${id} in this project`);
      const { view } = await analyzer.request(row, `key:${key.name}`);
      return c.json(view, 202);
    })
    .openapi(latestRoute, async (c) => {
      const { id } = c.req.valid('param');
      const view = await latestAnalysis(db, c.get('caller').projectId, id);
      if (!view) throw new ApiError(404, 'not_found', `issue ${id} has no analysis in this project; POST to this address to start one`);
      return c.json(view, 200);
    });
}
