import type { MiddlewareHandler } from 'hono';
import { matchedRoutes } from 'hono/route';
import { badRequest } from './errors';

/**
 * `X-Content-Type-Options: nosniff` on every answer, errors included (set after the handler and onError ran): a
 * browser must not guess that a JSON or text answer holding markup is a page or a script.
 */
export const noSniff: MiddlewareHandler = async (c, next) => {
  await next();
  c.res.headers.set('X-Content-Type-Options', 'nosniff');
};

const NUL = '\u0000';

/**
 * Refuses U+0000 in the query (names and values) and in the path of a request, naming the parameter, before any
 * handler reads them: PostgreSQL text cannot hold it, and no stored id or name does. Path parameters are named from the
 * route the request matched (`/sessions/:id` names `id`).
 */
export const refuseNul: MiddlewareHandler = async (c, next) => {
  const url = new URL(c.req.url);
  for (const [name, value] of url.searchParams) {
    if (name.includes(NUL) || value.includes(NUL))
      throw badRequest(`query parameter ${JSON.stringify(name)} must not contain U+0000`, { field: name });
  }
  const segments = url.pathname.split('/');
  const at = segments.findIndex((segment) => decodeSegment(segment).includes(NUL));
  if (at >= 0) {
    const names = matchedRoutes(c).map((route) => /^:(\w+)/.exec(route.path.split('/')[at] ?? '')?.[1]);
    const param = names.filter((name) => name !== undefined).pop();
    throw badRequest(`${param ? `path parameter ${param}` : 'the path'} must not contain U+0000`, {
      field: param ?? 'path',
    });
  }
  await next();
};

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // Not valid percent-encoding: the router will not decode it either.
    return segment;
  }
}
