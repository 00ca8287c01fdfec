import { OpenAPIHono, z, type Hook, type RouteConfig } from '@hono/zod-openapi';
import type { Handler, MiddlewareHandler } from 'hono';
import { formatJsonPath } from '../json/walk';
import type { Permission } from '../auth/roles';
import { SESSION_COOKIE } from './console-auth';
import type { AppEnv } from './env';
import { CHANGES_FIELD, PERMISSION_FIELD } from './permissions';
import { ApiError } from './errors';
import { readJsonObject } from './json-object';

/**
 * Routes are declared once with `@hono/zod-openapi`: the zod schemas of a route's parameters and body validate the
 * request, type the handler and the typed client (`hc`), and become its entry in `/openapi.json`. This module holds
 * what every route shares: the one validation hook, the one error shape, the JSON body reader and the error answers.
 */

type Issue = z.core.$ZodIssue;
type Target = 'json' | 'query' | 'param' | 'header' | 'form' | 'cookie';

/** zod's own messages begin so; a schema's own `error`/`message` (written for people, field named) does not. */
const ZOD_DEFAULT = /^(Invalid|Too (small|big)|Unrecognized|Expected)/;

const WHERE: Record<Target, string> = {
  json: 'field',
  query: 'query parameter',
  param: 'path parameter',
  header: 'header',
  form: 'form field',
  cookie: 'cookie',
};

/** A sentence a person can act on, naming the field: "limit must be at most 1000". */
function describe(issue: Issue, field: string, target: Target): string {
  if (!ZOD_DEFAULT.test(issue.message))
    return issue.message.startsWith(field) ? issue.message : `${field} ${issue.message}`;
  switch (issue.code) {
    case 'unrecognized_keys':
      return `unknown ${WHERE[target]} ${field}`;
    case 'invalid_type':
      // zod leaves the input out of its issues; its message says what it received.
      if (/received undefined$/.test(issue.message)) return `${field} is required: ${article(issue.expected)}`;
      return `${field} must be ${article(issue.expected)}`;
    case 'invalid_value':
      return `${field} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return `${field} must ${bound(issue.origin, 'at least', issue.minimum, issue.inclusive)}`;
    case 'too_big':
      return `${field} must ${bound(issue.origin, 'at most', issue.maximum, issue.inclusive)}`;
    case 'invalid_format':
      return `${field} must be ${issue.format === 'regex' ? `text matching ${issue.pattern}` : `a valid ${issue.format}`}`;
    case 'invalid_union':
      return `${field} does not match any accepted form`;
    default:
      return `${field} is not valid: ${issue.message}`;
  }
}

const article = (type: string) =>
  type === 'object' || type === 'array' || type === 'integer' ? `an ${type}` : `a ${type}`;

function bound(origin: string, word: 'at least' | 'at most', limit: number | bigint, inclusive = true): string {
  const n = Number(limit);
  if (origin === 'string') return n === 1 && word === 'at least' ? 'not be empty' : `be ${word} ${n} characters`;
  if (origin === 'array' || origin === 'set') return `have ${word} ${n} item${n === 1 ? '' : 's'}`;
  const strict = word === 'at least' ? 'greater than' : 'less than';
  return `be ${inclusive ? word : strict} ${n}`;
}

/** The path of the offending value as `details.field`: `rules[0].name`, a query parameter's name, or `body`. */
function fieldOf(issue: Issue): string {
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
  const steps = path.filter((s): s is string | number => typeof s !== 'symbol');
  return steps.length === 0 ? 'body' : formatJsonPath('', steps);
}

/** Turns the first problem zod found into the one 400 every route answers. */
export function validationError(error: z.ZodError, target: Target): ApiError {
  const issue = error.issues[0]!;
  const field = fieldOf(issue);
  return new ApiError(400, 'invalid_request', describe(issue, field, target), { field });
}

/** The one validation hook: every route's invalid parameter, query or body ends here. */
export const validationHook: Hook<unknown, AppEnv, string, unknown> = (result) => {
  if (!result.success) throw validationError(result.error, result.target as Target);
};

/** An app whose routes are declared with schemas, failing validation through `validationHook`. */
export const createRouter = () => new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

/**
 * Reads a control-plane JSON body with the server's own reader (415 for another Content-Type, the 1 MiB limit, no
 * U+0000) before the schema sees it; the validator then reads it from Hono's body cache.
 */
export const readControlJson: MiddlewareHandler<AppEnv> = async (c, next) => {
  const value = await readJsonObject(c);
  // Hono keeps each body reading as a promise, whatever the field's declared type.
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(JSON.stringify(value));
  await next();
};

/** The same for a body that may be left out (`POST .../acknowledge`): no body reads as `{}`. */
export const readOptionalControlJson: MiddlewareHandler<AppEnv> = async (c, next) => {
  const hasBody = (c.req.header('content-length') ?? '0') !== '0' || c.req.header('transfer-encoding') !== undefined;
  if (hasBody) return readControlJson(c, next);
  (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve('{}');
  await next();
};

// ---- The shared parts of route declarations ----

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'invalid_request' }),
      message: z.string().openapi({ example: 'limit must be at most 1000' }),
      details: z
        .object({ field: z.string().optional().openapi({ example: 'limit' }) })
        .passthrough()
        .optional(),
    }),
  })
  .openapi('Error');

const ERROR_TEXT = {
  400: 'Invalid request: the message names the field, `details.field` is its path; nothing changed',
  401: 'Missing or unknown key',
  403: 'Key revoked, expired or of the wrong scope',
  404: "No such endpoint or object in the key's project",
  409: 'Conflicts with what exists (e.g. a name already taken); nothing changed',
  413: 'Body larger than the limit; nothing changed',
  415: 'Unsupported Content-Type or Content-Encoding',
  422: 'Well-formed but not acceptable here (the message says why); nothing stored',
  502: 'An outside service (a cloud provider, GitHub, the model) failed; nothing changed',
  503: 'Not configured on this server, or busy; retry later',
  504: 'An outside service did not answer in time; nothing changed',
} as const;
export type ErrorStatus = keyof typeof ERROR_TEXT;

const EXAMPLE: Record<ErrorStatus, { code: string; message: string }> = {
  400: { code: 'invalid_request', message: 'name is required: a string' },
  401: { code: 'unauthorized', message: 'missing API key: send a control key as "Authorization: Bearer <key>"' },
  403: { code: 'forbidden', message: 'API key has been revoked' },
  404: { code: 'not_found', message: 'no such object in this project' },
  409: { code: 'conflict', message: 'the name is already taken' },
  413: { code: 'payload_too_large', message: 'request body exceeds the limit of 1048576 bytes' },
  415: { code: 'unsupported_media_type', message: 'send the body as JSON with Content-Type: application/json' },
  422: { code: 'unprocessable', message: 'the request cannot be applied as it stands' },
  502: { code: 'upstream_failed', message: 'the provider answered 500' },
  503: { code: 'unavailable', message: 'not configured on this server' },
  504: { code: 'upstream_timeout', message: 'the provider did not answer in time' },
};

type ErrorAnswer = {
  description: string;
  content: { 'application/json': { schema: typeof ErrorSchema; example: unknown } };
};

/** Error answers of a route, each the one error shape with an example. */
export function errors<S extends ErrorStatus>(...statuses: S[]): Record<S, ErrorAnswer> {
  const answer = (s: S): ErrorAnswer => ({
    description: ERROR_TEXT[s],
    content: { 'application/json': { schema: ErrorSchema, example: { error: EXAMPLE[s] } } },
  });
  return Object.fromEntries(statuses.map((s) => [s, answer(s)])) as Record<S, ErrorAnswer>;
}

/**
 * Describes a route whose handler reads the request itself (ingest's hand-tuned readers, multipart uploads): its
 * schemas go into the document, and `handler` is registered as is, without the generated validators.
 */
export function documentedRoute(
  app: OpenAPIHono<AppEnv>,
  route: RouteConfig,
  handler: Handler<AppEnv>,
  middleware: MiddlewareHandler<AppEnv>[] = [],
): void {
  app.openAPIRegistry.registerPath(route);
  const handlers = [...middleware, handler] as [Handler<AppEnv>];
  app.on(route.method, route.path.replaceAll(/\{(\w+)\}/g, ':$1'), ...handlers);
}

/** Every control-plane route can answer these: a bad request, no key, a key of the wrong kind. */
export const CONTROL_ERRORS = [400, 401, 403] as const satisfies readonly ErrorStatus[];

/** A JSON answer. */
export const jsonAnswer = <S extends z.ZodType>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
});

/** A JSON request body, read by `readControlJson` (put it in the route's `middleware`), with an example of its schema's type. */
export const jsonBody = <S extends z.ZodType>(schema: S, example: z.input<S>) => ({
  required: true,
  content: { 'application/json': { schema, example } },
});
/** A JSON body that may be left out, read by `readOptionalControlJson`. */
export const optionalJsonBody = <S extends z.ZodType>(schema: S, example: z.input<S>) => ({
  required: false,
  content: { 'application/json': { schema, example } },
});

/** A control-plane operation takes a key or a console session. */
export const CONTROL_SECURITY: Array<Record<string, string[]>> = [{ controlKey: [] }, { consoleSession: [] }];

/**
 * What a control-plane operation needs: spread into `createRoute`. The permission lands in the OpenAPI document as
 * `x-svc-permission`, where the control plane's one authorisation step reads it (http/permissions.ts).
 */
export const needs = (permission: Permission) => ({ security: CONTROL_SECURITY, [PERMISSION_FIELD]: permission });
/** Spread into a route that changes nothing though it is no GET (a preview): no transaction, no audit entry. */
export const changesNothing = { [CHANGES_FIELD]: false } as const;

/** Registers the key schemes routes refer to (`security`). */
export function registerSecuritySchemes(app: OpenAPIHono<AppEnv>): void {
  const r = app.openAPIRegistry;
  r.registerComponent('securitySchemes', 'ingestKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'Ingest-scope key',
  });
  r.registerComponent('securitySchemes', 'ingestKeyQuery', {
    type: 'apiKey',
    in: 'query',
    name: 'api_key',
    description: 'Ingest-scope key, for sendBeacon',
  });
  r.registerComponent('securitySchemes', 'controlKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'Control-scope key',
  });
  r.registerComponent('securitySchemes', 'consoleSession', {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description:
      'A person signed in to the console (docs/teams.md); changes also need `Origin` and the `X-Svc-Csrf` token',
  });
  r.registerComponent('securitySchemes', 'adminKey', {
    type: 'http',
    scheme: 'bearer',
    description: 'Admin-scope key: tenant-wide, for project management (svc-server keys create --scope admin)',
  });
}
