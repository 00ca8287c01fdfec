import type { Context, MiddlewareHandler } from 'hono';
import { API_KEY_HEADER, API_KEY_QUERY_PARAM } from '../../../wire/paths';
import type { KeyScope } from '../db/schema';
import { checkKey, type KeyCheck, type KeyInfo } from '../projects/keys-store';
import { findProject, listProjects } from '../projects/store';
import type { AppEnv, Services } from './env';
import { ApiError } from './errors';

type Failure = Extract<KeyCheck, { ok: false }>;

/** The header an admin key names the project it acts on with (the console's project switcher sets it). */
export const PROJECT_HEADER = 'x-svc-project';

const HOW: Record<KeyScope, string> = {
  ingest: `send the ingest key in the X-API-Key header (or the ${API_KEY_QUERY_PARAM} query parameter for beacons)`,
  control: 'send a control key (or a read key, to view) as "Authorization: Bearer <key>"',
  read: 'send a read or control key as "Authorization: Bearer <key>"',
  admin:
    'send a tenant-wide admin key (made with: svc-server keys create --scope admin) as "Authorization: Bearer <key>"',
};

function failure(scope: KeyScope, { reason, key }: Failure): ApiError {
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

/** Methods a `read` key may use: they change nothing. */
const READ_METHODS = ['GET', 'HEAD'];

/**
 * Checks the presented key against the scopes a surface takes; `scope` names the surface in errors. A `read` key
 * passes only for methods that change nothing.
 */
function authenticate(
  services: Services,
  scope: KeyScope,
  presented: (c: Context<AppEnv>) => string | undefined,
  accepted: readonly KeyScope[] = [scope],
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const result = await checkKey(services.db, services.clock, presented(c), accepted);
    if (!result.ok) {
      // For ingest's refusal counts (ingest/refusals): why, and under which project, without the key itself.
      c.set('keyRefusal', { reason: result.reason, key: result.key });
      const err = failure(scope, result);
      if (scope !== 'ingest' && err.status === 401) c.header('WWW-Authenticate', 'Bearer realm="svc"');
      throw err;
    }
    if (result.key.scope === 'read' && !READ_METHODS.includes(c.req.method)) {
      throw new ApiError(403, 'forbidden', `a read key can only view (GET); ${c.req.method} needs a control key`);
    }
    const projectId = await projectActedOn(services, c, result.key, result.tenantId);
    c.set('caller', { tenantId: result.tenantId, projectId, key: result.key });
    await next();
  };
}

/**
 * The project a request acts on. A project key acts on its own; an admin key, tenant-wide, on the project of its tenant
 * that `X-Svc-Project` names, else on the tenant's oldest project (on a server with one project, no header is needed).
 */
async function projectActedOn(services: Services, c: Context<AppEnv>, key: KeyInfo, tenantId: string): Promise<string> {
  const named = c.req.header(PROJECT_HEADER)?.trim() || undefined;
  if (key.scope !== 'admin') {
    if (named !== undefined && named !== key.projectId) {
      throw new ApiError(
        403,
        'forbidden',
        `this key belongs to project ${key.projectId}; only an admin key chooses its project with X-Svc-Project`,
        { field: 'X-Svc-Project' },
      );
    }
    return key.projectId;
  }
  if (named === undefined) return (await listProjects(services.db, tenantId))[0]?.id ?? key.projectId;
  const project = await findProject(services.db, named, tenantId);
  if (!project)
    throw new ApiError(
      404,
      'not_found',
      `no project ${named} in this tenant (X-Svc-Project; GET /control-plane/projects lists them)`,
      { field: 'X-Svc-Project' },
    );
  return project.id;
}

/** Ingest: `X-API-Key`, or `?api_key=` for `sendBeacon`, which cannot set headers. Needs an `ingest` key. */
export const ingestAuth = (services: Services) =>
  authenticate(
    services,
    'ingest',
    (c) => c.req.header(API_KEY_HEADER) || c.req.query(API_KEY_QUERY_PARAM) || undefined,
  );

const bearer = (c: Context<AppEnv>) => /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];

/**
 * Control plane: `Authorization: Bearer <key>` with a `control` key, a `read` key to view (GET) only, or an `admin` key
 * acting as a control key on a project of its tenant (`X-Svc-Project`).
 */
export const controlAuth = (services: Services) =>
  authenticate(services, 'control', bearer, ['control', 'read', 'admin']);

/** Project management (`/control-plane/projects`): `Authorization: Bearer <key>` with an `admin` key. */
export const adminAuth = (services: Services) => authenticate(services, 'admin', bearer);
