import type { MiddlewareHandler } from 'hono';
import { API_KEY_HEADER, API_KEY_QUERY_PARAM } from '../../../wire/paths';
import type { KeyScope } from '../db/schema';
import { checkKey, type KeyCheck } from '../tenancy/keys';
import type { AppEnv, Services } from './env';
import { ApiError } from './errors';

type Failure = Extract<KeyCheck, { ok: false }>['reason'];

const HOW: Record<KeyScope, string> = {
  ingest: `send the ingest key in the X-API-Key header (or the ${API_KEY_QUERY_PARAM} query parameter for beacons)`,
  control: 'send a control key (or a read key, to view) as "Authorization: Bearer <key>"',
  read: 'send a read or control key as "Authorization: Bearer <key>"',
  admin: 'send a tenant-wide admin key (made with: svc-server keys create --scope admin) as "Authorization: Bearer <key>"',
};

function failure(scope: KeyScope, reason: Failure): ApiError {
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
      // An admin key is the likely mistake on the control plane: say what it is for.
      return new ApiError(403, 'forbidden', `this key cannot be used here: ${HOW[scope]}${scope === 'control' ? '; an admin key only manages projects (/control-plane/projects)' : ''}`);
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
  presented: (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => string | undefined,
  accepted: readonly KeyScope[] = [scope],
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const result = await checkKey(services.db, services.clock, presented(c), accepted);
    if (!result.ok) {
      const err = failure(scope, result.reason);
      if (scope !== 'ingest' && err.status === 401) c.header('WWW-Authenticate', 'Bearer realm="svc"');
      throw err;
    }
    if (result.key.scope === 'read' && !READ_METHODS.includes(c.req.method)) {
      throw new ApiError(403, 'forbidden', `a read key can only view (GET); ${c.req.method} needs a control key`);
    }
    c.set('caller', { tenantId: result.tenantId, projectId: result.key.projectId, key: result.key });
    await next();
  };
}

/** Ingest: `X-API-Key`, or `?api_key=` for `sendBeacon`, which cannot set headers. Needs an `ingest` key. */
export const ingestAuth = (services: Services) =>
  authenticate(services, 'ingest', (c) => c.req.header(API_KEY_HEADER) || c.req.query(API_KEY_QUERY_PARAM) || undefined);

const bearer = (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => /^Bearer\s+(\S+)\s*$/i.exec(c.req.header('authorization') ?? '')?.[1];

/** Control plane: `Authorization: Bearer <key>` with a `control` key, or a `read` key to view (GET) only. */
export const controlAuth = (services: Services) => authenticate(services, 'control', bearer, ['control', 'read']);

/** Project management (`/control-plane/projects`): `Authorization: Bearer <key>` with an `admin` key. */
export const adminAuth = (services: Services) => authenticate(services, 'admin', bearer);
