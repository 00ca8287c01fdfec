import { Hono } from 'hono';
import type { AppEnv } from '../../http/env';
import { readJsonObject } from '../../http/json-object';
import { parseMappingRules } from '../mapping/rules';
import { loadRules, saveRules } from '../mappings-store';
import type { CostServices } from '../services';

/**
 * `POST /control-plane/cost/mappings` replaces the project's rule list (SPEC 2.2) and re-attributes the cost already
 * stored; `GET` returns the rules in force.
 */
export function mappingRoutes(services: CostServices) {
  const { db, clock } = services;
  const app = new Hono<AppEnv>();

  app.post('/', async (c) => {
    const rules = parseMappingRules(await readJsonObject(c));
    const now = clock.now();
    const resources = await saveRules(db, c.get('caller').projectId, rules, now);
    return c.json({ rules, updated_at: new Date(now).toISOString(), resources_reattributed: resources });
  });

  app.get('/', async (c) => {
    const { projectId } = c.get('caller');
    const row = await db.selectFrom('cost_mappings').select('updated_ms').where('project_id', '=', projectId).executeTakeFirst();
    return c.json({ rules: await loadRules(db, projectId), updated_at: row ? new Date(row.updated_ms).toISOString() : null });
  });

  return app;
}
