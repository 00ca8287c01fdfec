import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import { ROLE_PERMISSIONS, ROLES, SCOPE_PERMISSIONS, type Permission } from '../auth/roles';
import type { KeyScope } from '../db/schema';
import type { AppEnv, Caller } from './env';
import { ApiError } from './errors';

/** The OpenAPI extension an operation declares its permission with (docs/teams.md, "Roles"). */
export const PERMISSION_FIELD = 'x-svc-permission';
/**
 * The OpenAPI extension of an operation that changes nothing whatever its method (a preview that posts its body):
 * `false` spares it the change's transaction and audit entry.
 */
export const CHANGES_FIELD = 'x-svc-changes';

/** How keys of a scope are made, for refusals that send the caller to one. */
const MADE_WITH: Partial<Record<KeyScope, string>> = {
  admin: 'svc-server keys create --scope admin',
  control: "svc-server keys create --scope control, or the console's Keys page",
};

/** Who may hold a permission, for the sentence a refusal says: "a control key (…) or a person with the member, … role". */
function holders(permission: Permission): string {
  const roles = ROLES.filter((r) => ROLE_PERMISSIONS[r].includes(permission));
  // The narrowest key that has it is the one to suggest.
  const scope = (['read', 'control', 'admin'] as const).find((s) => SCOPE_PERMISSIONS[s].includes(permission));
  const key = scope
    ? `${scope === 'admin' ? 'an' : 'a'} ${scope} key (made with: ${MADE_WITH[scope] ?? 'the CLI'}) or `
    : '';
  return `${key}a person with the ${roles.join(' or ')} role`;
}

/** An operation of the document: the permission it declares and how the document names it. */
export interface DeclaredOperation {
  permission: Permission | null;
  /** `PATCH /control-plane/issues/{id}`: the method and the OpenAPI path template. */
  operation: string;
  /** False for an operation declared with {@link CHANGES_FIELD} `false`. */
  changes: boolean;
}

/**
 * The permission of each control-plane operation, read from the OpenAPI registry once every route is registered, so
 * the document and the check cannot disagree. A request whose route declares none is refused: new routes are closed
 * until they say who may use them.
 */
export class RoutePermissions {
  private readonly byRoute = new Map<string, DeclaredOperation>();

  /** Reads every route `app` registered; call after the last route. */
  load(app: OpenAPIHono<AppEnv>): void {
    for (const def of app.openAPIRegistry.definitions) {
      if (def.type !== 'route') continue;
      const fields = def.route as unknown as Record<string, unknown>;
      const declared = fields[PERMISSION_FIELD];
      const method = def.route.method.toUpperCase();
      const path = def.route.path.replace(/\{([^}]+)\}/g, ':$1');
      this.byRoute.set(`${method} ${path}`, {
        permission: (declared as Permission | undefined) ?? null,
        operation: `${method} ${def.route.path}`,
        changes: fields[CHANGES_FIELD] !== false,
      });
    }
  }

  /**
   * The operation a request reached, as the document declares it: `undefined` when it reached none (it will be a
   * 404); its permission is `null` when the operation declares none.
   */
  operationOf(c: Context): DeclaredOperation | undefined {
    for (const route of matchedRoutes(c)) {
      const key = `${route.method} ${route.path}`;
      if (route.method !== 'ALL' && this.byRoute.has(key)) return this.byRoute.get(key);
    }
    return undefined;
  }
}

/** Refuses a caller whose key or role lacks the operation's permission, in words that say who has it. */
export function requirePermission(c: Context<AppEnv>, caller: Caller, needed: Permission | null): void {
  const operation = `${c.req.method} ${c.req.path}`;
  if (needed === null) {
    throw new ApiError(403, 'forbidden', `${operation} declares no permission, so nobody may use it`);
  }
  if (caller.permissions.has(needed)) return;
  const { actor } = caller;
  if (actor.kind === 'key' && actor.key.scope === 'read') {
    throw new ApiError(403, 'forbidden', `a read key can only view (GET); ${c.req.method} needs a control key`, {
      permission: needed,
    });
  }
  const who = actor.kind === 'key' ? `this ${actor.key.scope} key` : `your role (${actor.person.role})`;
  throw new ApiError(
    403,
    'forbidden',
    `${who} cannot do this: it needs the ${needed} permission, held by ${holders(needed)}`,
    { permission: needed },
  );
}
