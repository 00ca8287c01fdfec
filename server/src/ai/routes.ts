import { Hono } from 'hono';
import type { AppEnv, Services } from '../http/env';
import { ApiError } from '../http/errors';
import { findIssueRow } from '../issues/find';
import { latestAnalysis } from './analyses';
import { createAnalyzer } from './analyze';
import type { AiSettings } from './settings';

/** `/control-plane/issues/{id}/analysis`: ask for a root-cause analysis and read the latest (docs/ai-fixes.md). */
export function analysisRoutes(services: Services, ai: AiSettings | undefined) {
  const app = new Hono<AppEnv>();
  const { db } = services;
  const analyzer = createAnalyzer({ db, symbolicator: services.symbolicator, publicUrl: () => services.publicUrl, clock: services.clock, log: services.log, ai });

  app.post('/:id/analysis', async (c) => {
    const { projectId, key } = c.get('caller');
    const id = c.req.param('id');
    const row = await findIssueRow(db, projectId, id);
    if (!row) throw new ApiError(404, 'not_found', `no issue ${id} in this project`);
    const { view } = await analyzer.request(row, `key:${key.name}`);
    return c.json(view, 202);
  });

  app.get('/:id/analysis', async (c) => {
    const id = c.req.param('id');
    const view = await latestAnalysis(db, c.get('caller').projectId, id);
    if (!view) throw new ApiError(404, 'not_found', `issue ${id} has no analysis in this project; POST to this address to start one`);
    return c.json(view);
  });

  return app;
}
