import { createRoute } from '@hono/zod-openapi';
import { actorLabel, type Services } from '../http/env';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { idParams } from '../http/schemas';
import { requireIssueRow } from '../issues/store';
import { latestAnalysis } from './store';
import { createAnalyzer } from './analyze';
import { Analysis } from './schemas';
import type { AiSettings } from './settings';

const common = {
  path: '/{id}/analysis' as const,
  tags: ['issues'],
  request: { params: idParams('Issue id') },
};

const startRoute = createRoute({
  ...needs('issues.triage'),
  ...common,
  method: 'post',
  summary:
    'Start a root-cause analysis of an issue (asynchronous); an analysis already under way is returned, not repeated',
  responses: {
    202: jsonAnswer('The analysis, queued or under way: follow it with GET', Analysis),
    ...errors(400, 401, 403, 404),
  },
});

const latestRoute = createRoute({
  ...needs('project.view'),
  ...common,
  method: 'get',
  summary: "The issue's latest analysis: state, result, what was sent, token usage; null when none was asked for yet",
  responses: {
    200: jsonAnswer(
      'The analysis, or null when the issue has none yet (POST to this address starts one)',
      Analysis.nullable(),
    ),
    ...errors(400, 401, 403, 404),
  },
});

/** `/control-plane/issues/{id}/analysis`: ask for a root-cause analysis and read the latest (docs/ai-fixes.md). */
export function analysisRoutes(services: Services, ai: AiSettings | undefined) {
  const { db } = services;
  const analyzer = createAnalyzer({
    db,
    symbolicator: services.symbolicator,
    publicUrl: () => services.publicUrl,
    clock: services.clock,
    log: services.log,
    ai,
  });
  return createRouter()
    .openapi(startRoute, async (c) => {
      const { projectId, actor } = c.get('caller');
      const { id } = c.req.valid('param');
      const row = await requireIssueRow(db, projectId, id);
      const { view } = await analyzer.request(row, actorLabel(actor));
      return c.json(view, 202);
    })
    .openapi(latestRoute, async (c) => {
      const { id } = c.req.valid('param');
      const { projectId } = c.get('caller');
      const view = await latestAnalysis(db, projectId, id);
      // None yet is an answer, not an error: null, once the issue is known to exist.
      if (!view) await requireIssueRow(db, projectId, id);
      return c.json(view ?? null, 200);
    });
}
