import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

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
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: unknown) => new ApiError(400, 'invalid_request', message, details);

export function errorResponse(c: Context, err: ApiError): Response {
  const body: ErrorBody = { error: { code: err.code, message: err.message } };
  if (err.details !== undefined) body.error.details = err.details;
  return c.json(body, err.status);
}
