import { Hono, type Context } from 'hono';
import { incidentAnalysis } from '../ai/incident-analysis';
import type { AppEnv } from '../http/env';
import { ApiError, badRequest } from '../http/errors';
import { readJsonObject, requiredString, stringList } from '../http/json-object';
import type { NotifyServices } from '../notify/services';
import { checkParams, keysetPage, readCursor, readLimit } from '../query/params';
import { INCIDENT_STATUSES, SEVERITIES, type Severity } from './types';

const notFound = (id: string) => new ApiError(404, 'not_found', `no incident ${id} in this project`);
const PAGE = { default: 50, max: 200 } as const;

/** Who acted, for `acknowledged_by` / `resolved_by`: the body's `by`, else the control key's name. */
async function actor(c: Context<AppEnv>): Promise<string> {
  const hasBody = (c.req.header('content-length') ?? '0') !== '0' || c.req.header('transfer-encoding') !== undefined;
  if (!hasBody) return `key:${c.get('caller').key.name}`;
  const body = await readJsonObject(c);
  return body.by === undefined ? `key:${c.get('caller').key.name}` : requiredString(body, 'by');
}

/**
 * `/control-plane/incidents`: list (newest first, filters `status`, `severity`), get, create (for external
 * detectors), acknowledge and resolve.
 */
export function incidentRoutes(services: NotifyServices) {
  const app = new Hono<AppEnv>();
  const { incidents } = services;

  app.get('/', async (c) => {
    checkParams(c, ['status', 'severity', 'limit', 'cursor']);
    const status = c.req.query('status');
    const severity = c.req.query('severity');
    if (status && !INCIDENT_STATUSES.includes(status as never)) throw badRequest(`status must be one of ${INCIDENT_STATUSES.join(', ')}`, { field: 'status' });
    if (severity && !SEVERITIES.includes(severity as never)) throw badRequest(`severity must be one of ${SEVERITIES.join(', ')}`, { field: 'severity' });
    const cursor = readCursor(c, 'string');
    const limit = readLimit(c, PAGE.default, PAGE.max);
    const before = cursor && { t: cursor.t, k: String(cursor.k) };
    const rows = await incidents.list(c.get('caller').projectId, { status, severity, limit: limit + 1, before });
    return c.json(keysetPage(rows, limit, (incident) => incident, (incident) => ({ t: Date.parse(incident.detected_at), k: incident.id })));
  });

  app.get('/:id', async (c) => {
    const incident = await incidents.get(c.get('caller').projectId, c.req.param('id'));
    if (!incident) throw notFound(c.req.param('id'));
    return c.json({ ...incident, analysis: await incidentAnalysis(services.db, c.get('caller').projectId, incident) });
  });

  app.post('/', async (c) => {
    const body = await readJsonObject(c);
    const severity = body.severity;
    if (typeof severity !== 'string' || !SEVERITIES.includes(severity as Severity)) {
      throw badRequest(`severity is required: one of ${SEVERITIES.join(', ')}`, { field: 'severity' });
    }
    const serviceNames = stringList(body.services, 'services') ?? [];
    const summary = body.root_cause_summary === undefined ? '' : requiredString(body, 'root_cause_summary', 4000);
    const { projectId } = c.get('caller');
    const { id } = await incidents.open({
      projectId,
      title: requiredString(body, 'title', 300),
      severity: severity as Severity,
      env: body.env === undefined ? 'production' : requiredString(body, 'env', 100),
      services: serviceNames,
      rootCauseSummary: summary,
      fingerprint: null,
      evidence: null,
    });
    return c.json(await incidents.get(projectId, id), 201);
  });

  for (const action of ['acknowledge', 'resolve'] as const) {
    app.post(`/:id/${action}`, async (c) => {
      const by = await actor(c);
      const incident = await incidents[action](c.get('caller').projectId, c.req.param('id'), by);
      if (!incident) throw notFound(c.req.param('id'));
      return c.json(incident);
    });
  }

  return app;
}
