import { Hono, type Context } from 'hono';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { ISSUE_STATUSES, type IssueStatus } from '../incidents/detect/tables';
import type { AppEnv, Services } from '../http/env';
import { ApiError, badRequest } from '../http/errors';
import { readJsonObject } from '../http/json-object';
import { checkParams, keysetPage, readCursor, readLimit, readTime } from '../query/params';
import { readUserId } from '../query/session-filters';
import { resolveServiceNames } from '../tenancy/apps';
import { issueDetail } from './detail';
import { findIssueRow } from './find';
import { issueJson, type IssueRow } from './json';
import { ISSUE_SORTS, listIssues, type IssueFilter, type IssueSort } from './list';
import { changeStatus, SETTABLE_STATUSES, type SettableStatus } from './status';

const PAGE = { default: 50, max: 200 } as const;
/** Longest `q`, `env` and `release` accepted: longer cannot match anything stored worth finding. */
const MAX_TEXT = 200;

const oneOf = <T extends string>(allowed: readonly T[], value: unknown): value is T => typeof value === 'string' && allowed.includes(value as T);

function textParam(c: Context, field: string): string | undefined {
  const value = c.req.query(field);
  if (value === undefined || value === '') return undefined;
  if (value.length > MAX_TEXT) throw badRequest(`${field} must be at most ${MAX_TEXT} characters`, { field });
  return value;
}

async function readFilter(c: Context<AppEnv>, db: Kysely<Database>): Promise<IssueFilter> {
  const status = c.req.query('status');
  if (status !== undefined && !oneOf(ISSUE_STATUSES, status)) throw badRequest(`status must be one of ${ISSUE_STATUSES.join(', ')}`, { field: 'status' });
  const app = textParam(c, 'app');
  const appId = app === undefined ? undefined : (await resolveServiceNames(db, c.get('caller').projectId, [app])).get(app)?.id;
  if (app !== undefined && appId === undefined) throw badRequest(`app "${app}" is neither an app name nor an alias in this project`, { field: 'app' });
  return {
    appId,
    env: textParam(c, 'env'),
    release: textParam(c, 'release'),
    status: status as IssueStatus | undefined,
    q: textParam(c, 'q'),
    from: readTime(c, 'from'),
    to: readTime(c, 'to'),
    userId: readUserId(c),
  };
}

function readSort(c: Context): IssueSort {
  const sort = c.req.query('sort') || 'last_seen';
  const sorts = Object.keys(ISSUE_SORTS) as IssueSort[];
  if (!oneOf(sorts, sort)) throw badRequest(`sort must be one of ${sorts.join(', ')}`, { field: 'sort' });
  return sort;
}

/** The PATCH body: `{"status", "in_next_release"?}`, nothing else. */
function readStatusChange(body: Record<string, unknown>): { status: SettableStatus; inNextRelease: boolean } {
  const unknown = Object.keys(body).find((key) => key !== 'status' && key !== 'in_next_release');
  if (unknown !== undefined) throw badRequest(`unknown field "${unknown}"; send status and, to resolve, in_next_release`, { field: unknown });
  if (!oneOf(SETTABLE_STATUSES, body.status)) throw badRequest(`status is required: one of ${SETTABLE_STATUSES.join(', ')}`, { field: 'status' });
  const inNext = body.in_next_release;
  if (inNext !== undefined && typeof inNext !== 'boolean') throw badRequest('in_next_release must be true or false', { field: 'in_next_release' });
  if (inNext === true && body.status !== 'resolved') throw badRequest('in_next_release applies only to status resolved', { field: 'in_next_release' });
  return { status: body.status, inNextRelease: inNext === true };
}

/** `/control-plane/issues`: errors grouped by fingerprint, listed, read and given a status (docs/issues.md). */
export function issueRoutes(services: Services) {
  const app = new Hono<AppEnv>();
  const { db } = services;

  const findIssue = async (projectId: string, id: string): Promise<IssueRow> => {
    const row = await findIssueRow(db, projectId, id);
    if (!row) throw new ApiError(404, 'not_found', `no issue ${id} in this project`);
    return row;
  };

  app.get('/', async (c) => {
    checkParams(c, ['app', 'env', 'release', 'status', 'q', 'from', 'to', 'sort', 'limit', 'cursor', 'user_id']);
    const filter = await readFilter(c, db);
    const sort = readSort(c);
    const limit = readLimit(c, PAGE.default, PAGE.max);
    const rows = await listIssues(db, c.get('caller').projectId, filter, { sort, limit, cursor: readCursor(c, 'string') });
    const column = ISSUE_SORTS[sort];
    return c.json(keysetPage(rows, limit, issueJson, (r) => ({ t: Number(r[column]), k: r.fingerprint })));
  });

  app.get('/:id', async (c) => {
    const row = await findIssue(c.get('caller').projectId, c.req.param('id'));
    return c.json(await issueDetail({ db, symbolicator: services.symbolicator, publicUrl: services.publicUrl }, row));
  });

  app.patch('/:id', async (c) => {
    const change = readStatusChange(await readJsonObject(c));
    const { projectId, key } = c.get('caller');
    const row = await findIssue(projectId, c.req.param('id'));
    await changeStatus(db, row, { ...change, by: `key:${key.name}`, atMs: services.clock.now() });
    return c.json(issueJson(await findIssue(projectId, row.fingerprint)));
  });

  return app;
}
