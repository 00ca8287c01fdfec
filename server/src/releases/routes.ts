import { createRoute } from '@hono/zod-openapi';
import { appIdFilter } from '../apps/filter';
import type { Services } from '../http/env';
import { createRouter, errors, jsonAnswer, needs } from '../http/openapi';
import { listOf } from '../http/schemas';
import { notFound } from '../shared/domain-errors';
import { iso } from '../shared/time';
import { releaseChanges, releaseFigures } from './compare';
import { compareQuery, CompareSchema, ReleaseSchema, releasesQuery } from './schemas';
import {
  findRelease,
  listReleases,
  MAX_RELEASE_SESSIONS,
  MAX_RELEASES,
  releaseBefore,
  type ReleaseScope,
} from './store';

const listRoute = createRoute({
  ...needs('project.view'),
  tags: ['releases'],
  method: 'get',
  path: '/',
  summary: "An app's releases, newest first",
  description:
    "The `service.version` values the app's sessions reported, each with its earliest session's start (first seen) " +
    `and its sessions, newest first, at most ${MAX_RELEASES}. Test runs' sessions are left out.`,
  request: { query: releasesQuery },
  responses: { 200: jsonAnswer('Releases', listOf(ReleaseSchema)), ...errors(400, 401, 403) },
});

const compareRoute = createRoute({
  ...needs('project.view'),
  tags: ['releases'],
  method: 'get',
  path: '/compare',
  summary: 'A release against the previous one: Web Vitals p75, span error rate and error-free sessions',
  description:
    `Figures of each release over its newest ${MAX_RELEASE_SESSIONS} sessions (all when fewer) and their records: p75 of ` +
    'each Web Vital by nearest rank, spans with status ERROR among spans, sessions without an error log among ' +
    'sessions, and how each changed. The previous release is the one first seen last before `release`, unless ' +
    '`previous` names one. 404 when the app has no session of a named release.',
  request: { query: compareQuery },
  responses: { 200: jsonAnswer('The comparison', CompareSchema), ...errors(400, 401, 403, 404) },
});

/** The app's release named `release`, or 404. */
async function releaseOf(services: Services, scope: ReleaseScope, app: string, release: string) {
  const found = await findRelease(services.db, scope, release);
  if (!found) throw notFound(`app "${app}" has no session of release "${release}"`);
  return found;
}

/** `GET /control-plane/releases` and `/releases/compare`, confined to the caller's project. */
export function releaseRoutes(services: Services) {
  const scopeOf = async (projectId: string, app: string, env: string | undefined): Promise<ReleaseScope> => ({
    projectId,
    appId: await appIdFilter(services.db, projectId, app),
    env,
  });
  return createRouter()
    .openapi(listRoute, async (c) => {
      const q = c.req.valid('query');
      const releases = await listReleases(services.db, await scopeOf(c.get('caller').projectId, q.app, q.env));
      const data = releases.map((r) => ({ release: r.release, first_seen: iso(r.firstSeenMs), sessions: r.sessions }));
      return c.json({ data }, 200);
    })
    .openapi(compareRoute, async (c) => {
      const q = c.req.valid('query');
      const scope = await scopeOf(c.get('caller').projectId, q.app, q.env);
      const current = await releaseOf(services, scope, q.app, q.release);
      const before =
        q.previous === undefined
          ? await releaseBefore(services.db, scope, current)
          : await releaseOf(services, scope, q.app, q.previous);
      const figures = await releaseFigures(services.db, scope, current);
      const previous = before ? await releaseFigures(services.db, scope, before) : null;
      const changes = previous ? releaseChanges(figures, previous) : null;
      return c.json({ app: q.app, current: figures, previous, changes }, 200);
    });
}
