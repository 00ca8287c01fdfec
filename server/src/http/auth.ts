import type { Context, MiddlewareHandler } from 'hono';
import { API_KEY_HEADER, API_KEY_QUERY_PARAM } from '../../../wire/paths';
import { READS, recordRequest } from '../audit/record-request';
import { inOneTransaction } from '../db/request-transaction';
import { ROLE_PERMISSIONS, SCOPE_PERMISSIONS, type Permission } from '../auth/roles';
import type { KeyScope } from '../db/schema';
import { checkKey, type KeyCheck } from '../projects/keys-store';
import { findProject, listProjects } from '../projects/store';
import { personOf } from './console-auth';
import type { Actor, AppEnv, Services } from './env';
import { ApiError } from './errors';
import { requirePermission, type RoutePermissions } from './permissions';

type Failure = Extract<KeyCheck, { ok: false }>;

/** The header an admin key names the project it acts on with (the console's project switcher sets it). */
export const PROJECT_HEADER = 'x-svc-project';

type Surface = 'ingest' | 'control';

const HOW: Record<Surface, string> = {
  ingest: `send the ingest key in the X-API-Key header (or the ${API_KEY_QUERY_PARAM} query parameter for beacons)`,
  control:
    'send a control key (or a read key, to view) as "Authorization: Bearer <key>", or sign in to the console as a person',
};

function failure(scope: Surface, { reason, key }: Failure): ApiError {
  const keyScope = key?.scope;
  switch (reason) {
    case 'missing':
      return new ApiError(401, 'unauthorized', `missing API key: ${HOW[scope]}`);
    case 'unknown':
      return new ApiError(401, 'unauthorized', 'API key is not recognised');
    case 'revoked':
      return new ApiError(403, 'forbidden', 'API key has been revoked');
    case 'expired':
      return new ApiError(403, 'forbidden', 'API key has expired');
    case 'wrong_scope':
      // The ingest key is the likely mistake on the control plane (it is the one printed beside the snippet): say so.
      if (keyScope === 'ingest') {
        return new ApiError(403, 'forbidden', `this is an ingest key: it only sends telemetry; ${HOW[scope]}`, {
          key_scope: keyScope,
        });
      }
      return new ApiError(
        403,
        'forbidden',
        `this key cannot be used here: ${HOW[scope]}`,
        keyScope && { key_scope: keyScope },
      );
  }
}

/** Checks an ingest request's key; refusals are counted by ingest/refusals. */
function authenticateIngest(
  services: Services,
  presented: (c: Context<AppEnv>) => string | undefined,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const result = await checkKey(services.db, services.clock, presented(c), ['ingest']);
    if (!result.ok) {
      // For ingest's refusal counts (ingest/refusals): why, and under which project, without the key itself.
      c.set('keyRefusal', { reason: result.reason, key: result.key });
      throw failure('ingest', result);
    }
    c.set('caller', {
      tenantId: result.tenantId,
      projectId: result.key.projectId,
      actor: { kind: 'key', key: result.key },
      permissions: new Set(),
    });
    await next();
  };
}

/** Who a control-plane request comes from, before the project is chosen: a key, or a person's console session. */
interface Identified {
  tenantId: string;
  actor: Actor;
  /** Projects the caller may act on; null for every project of the tenant. */
  projects: readonly string[] | null;
  /** The project of a project key: the only one it acts on. */
  ownProject?: string;
}

const CONTROL_SCOPES: readonly KeyScope[] = ['control', 'read', 'admin'];

async function identify(services: Services, c: Context<AppEnv>): Promise<Identified> {
  const key = bearer(c);
  if (key === undefined) {
    const person = await personOf(services, c);
    if (person) return { tenantId: person.tenantId, actor: { kind: 'person', person }, projects: person.projects };
  }
  const result = await checkKey(services.db, services.clock, key, CONTROL_SCOPES);
  if (!result.ok) {
    const err = failure('control', result);
    if (err.status === 401) c.header('WWW-Authenticate', 'Bearer realm="svc"');
    throw err;
  }
  const actor: Actor = { kind: 'key', key: result.key };
  if (result.key.scope === 'admin') return { tenantId: result.tenantId, actor, projects: null };
  return { tenantId: result.tenantId, actor, projects: [result.key.projectId], ownProject: result.key.projectId };
}

const permissionsOf = (actor: Actor): ReadonlySet<Permission> =>
  new Set(actor.kind === 'key' ? SCOPE_PERMISSIONS[actor.key.scope] : ROLE_PERMISSIONS[actor.person.role]);

/**
 * The control plane's one authentication and authorisation step: a key (`Authorization: Bearer`) or a console
 * session (cookie, with the same-origin proof on changes) identifies the caller, `X-Svc-Project` picks the project
 * among those it may act on, and the operation's declared permission (`x-svc-permission`) must be among the key
 * scope's or the person's role's (auth/roles.ts). A change runs in one transaction with its audit entry
 * (db/request-transaction.ts, audit/record-request.ts): a 2xx answer commits both, any other answer rolls back.
 */
export function controlAuth(services: Services, routes: RoutePermissions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const who = await identify(services, c);
    const projectId = await projectActedOn(services, c, who);
    const caller = { tenantId: who.tenantId, projectId, actor: who.actor, permissions: permissionsOf(who.actor) };
    c.set('caller', caller);
    const declared = routes.operationOf(c);
    if (declared !== undefined) requirePermission(c, caller, declared.permission);
    if (declared === undefined || READS.has(c.req.method) || !declared.changes) return next();
    await inOneTransaction(async () => {
      await next();
      return recordRequest(services, c, declared.operation);
    });
  };
}

/**
 * The project a request acts on. A project key acts on its own; an admin key or a person on the project of their
 * organisation that `X-Svc-Project` names (among those a member is limited to), else on the first they may act on (on
 * a server with one project, no header is needed).
 */
async function projectActedOn(services: Services, c: Context<AppEnv>, who: Identified): Promise<string> {
  const named = c.req.header(PROJECT_HEADER)?.trim() || undefined;
  if (who.ownProject !== undefined) {
    if (named !== undefined && named !== who.ownProject) {
      throw new ApiError(
        403,
        'forbidden',
        `this key belongs to project ${who.ownProject}; only an admin key or a person chooses the project with X-Svc-Project`,
        { field: 'X-Svc-Project' },
      );
    }
    return who.ownProject;
  }
  const allowed = (id: string) => who.projects === null || who.projects.includes(id);
  if (named === undefined) {
    const first = (await listProjects(services.db, who.tenantId)).find((p) => allowed(p.id));
    if (!first) throw new ApiError(403, 'forbidden', 'you may act on no project of this organisation: ask an admin');
    return first.id;
  }
  const project = await findProject(services.db, named, who.tenantId);
  if (!project || !allowed(project.id))
    throw new ApiError(
      404,
      'not_found',
      `no project ${named} you may act on (X-Svc-Project; GET /control-plane/me lists them)`,
      { field: 'X-Svc-Project' },
    );
  return project.id;
}

/** The key an ingest request presents: `X-API-Key`, or `?api_key=` for `sendBeacon`, which cannot set headers. */
export const presentedIngestKey = (c: Context): string | undefined =>
  c.req.header(API_KEY_HEADER) || c.req.query(API_KEY_QUERY_PARAM) || undefined;

/** Ingest: the presented key (presentedIngestKey) must be an `ingest` key. */
export const ingestAuth = (services: Services) => authenticateIngest(services, presentedIngestKey);

function bearer(c: Context<AppEnv>): string | undefined {
  const header = c.req.header('authorization');
  if (header === undefined) return undefined;
  // A malformed header is a missing key, not a reason to look at the cookie.
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] ?? '';
}
