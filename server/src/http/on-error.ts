import type { ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { AppEnv } from './env';
import { ApiError, databaseInputError, errorResponse, refusalOf } from './errors';

/**
 * The app's one `onError`: every failure answered in the one error shape. Refusals (ApiError, DomainError) keep their
 * status; Hono's own exceptions theirs; a value the database turned down is a 400 that is logged, since a check
 * should have caught it first; anything else is a logged 500.
 */
export function answerError(log: (line: string) => void): ErrorHandler<AppEnv> {
  return (err, c) => {
    const refusal = refusalOf(err);
    if (refusal) return errorResponse(c, refusal);
    if (err instanceof HTTPException)
      return errorResponse(c, new ApiError(err.status as 400, 'http_error', err.message || 'request failed'));
    const refused = databaseInputError(err);
    if (refused) {
      log(
        `a value reached the database unchecked on ${c.req.method} ${c.req.path} (answered 400): ${(err as Error).message}`,
      );
      return errorResponse(c, refused);
    }
    log(
      `internal error on ${c.req.method} ${c.req.path}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
    );
    return errorResponse(
      c,
      new ApiError(500, 'internal', 'internal server error; nothing from this request was stored'),
    );
  };
}
