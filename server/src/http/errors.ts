import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { DomainError, type DomainErrorKind } from '../shared/domain-errors';

/** The one error body every 4xx and 5xx answer carries: `{"error": {"code", "message", "details"?}}`. */
export interface ErrorBody {
  error: { code: string; message: string; details?: unknown };
}

/** An error that becomes an HTTP answer. `code` is stable for programs; `message` names the field for people. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** Headers the answer carries, e.g. `Retry-After` on a 503. */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: unknown) =>
  new ApiError(400, 'invalid_request', message, details);

/** The HTTP status of each kind of domain refusal: the one place domain code meets HTTP. */
const DOMAIN_STATUS: Record<DomainErrorKind, ContentfulStatusCode> = {
  not_found: 404,
  invalid: 400,
  too_large: 413,
  unsupported: 415,
  unprocessable: 422,
  conflict: 409,
  forbidden: 403,
  upstream: 502,
  upstream_busy: 503,
  upstream_timeout: 504,
  busy: 429,
  unavailable: 503,
};

/** A domain error as the answer it becomes (`Retry-After` where it says when to retry). */
export function fromDomainError(err: DomainError): ApiError {
  const headers =
    err.retryAfterSeconds === undefined ? undefined : { 'Retry-After': String(Math.ceil(err.retryAfterSeconds)) };
  return new ApiError(DOMAIN_STATUS[err.kind], err.code, err.message, err.details, headers);
}

/** Any thrown value that is a refusal (an ApiError or a DomainError) as its answer; undefined for anything else. */
export function refusalOf(err: unknown): ApiError | undefined {
  if (err instanceof ApiError) return err;
  if (err instanceof DomainError) return fromDomainError(err);
  return undefined;
}

export function errorResponse(c: Context, err: ApiError): Response {
  const body: ErrorBody = { error: { code: err.code, message: err.message } };
  if (err.details !== undefined) body.error.details = err.details;
  return c.json(body, err.status, err.headers);
}

/**
 * PostgreSQL errors (SQLSTATE) that mean the request carried a value the database cannot take: the caller's fault, so
 * a 400 rather than a 500. Validation refuses such values before any query (U+0000, out-of-range numbers); this is the
 * safety net for a value it missed. SQLite takes all of these values, so only PostgreSQL raises them.
 */
const DATABASE_INPUT_ERRORS = new Map([
  ['22021', 'the request holds a character the database cannot store (such as U+0000)'],
  ['22P05', 'the request holds a character the database cannot store'],
  ['22003', 'a number in the request is out of range'],
  ['22P02', 'a value in the request is not valid for its type'],
]);

/** The 400 for a database error caused by a value in the request, or undefined for any other error. */
export function databaseInputError(err: unknown): ApiError | undefined {
  const code = err instanceof Error ? (err as { code?: unknown }).code : undefined;
  const message = typeof code === 'string' ? DATABASE_INPUT_ERRORS.get(code) : undefined;
  return message === undefined ? undefined : badRequest(message);
}
