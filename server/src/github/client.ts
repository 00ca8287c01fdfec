import { Octokit } from '@octokit/rest';
import { ApiError } from '../http/errors';
import type { RepositoryConnection } from './connection';

/** Longest wait for one GitHub request, answer included. */
export const GITHUB_TIMEOUT_MS = 20_000;

/**
 * The REST client for a connected repository. GitHub App installations need `@octokit/auth-app`, which this server does
 * not ship, so only tokens reach here (the connect route refuses the rest).
 */
export function githubClient(connection: RepositoryConnection, timeoutMs = GITHUB_TIMEOUT_MS): Octokit {
  if (connection.auth.kind !== 'token') throw githubAppUnsupported();
  const timedFetch: typeof fetch = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  return new Octokit({ auth: connection.auth.secrets.token, baseUrl: connection.apiUrl, userAgent: 'svc-server', request: { fetch: timedFetch }, log: silentLog });
}

const silentLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

export const githubAppUnsupported = () =>
  new ApiError(400, 'github_app_unsupported', 'GitHub App installations need the @octokit/auth-app package, which this server does not include; connect with a token', { field: 'app_id' });

const isTimeout = (err: unknown): boolean =>
  err instanceof Error && (err.name === 'TimeoutError' || (err.cause instanceof Error && err.cause.name === 'TimeoutError'));

/** Seconds until GitHub takes requests again: `Retry-After`, else the rate limit's reset time, else a minute. */
function retryAfterSeconds(headers: Record<string, string | number | undefined>, nowMs: number): number {
  const retryAfter = Number(headers['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter >= 0) return Math.ceil(retryAfter);
  const reset = Number(headers['x-ratelimit-reset']);
  if (Number.isFinite(reset) && reset > 0) return Math.max(1, Math.ceil(reset - nowMs / 1000));
  return 60;
}

/** Octokit's RequestError (name `HttpError`), told by shape: its package is Octokit's, not a dependency of ours. */
interface HttpError extends Error {
  status: number;
  response?: { headers: Record<string, string | number | undefined> };
}

const isHttpError = (err: unknown): err is HttpError => err instanceof Error && err.name === 'HttpError' && typeof (err as { status?: unknown }).status === 'number';

function isRateLimit(err: HttpError): boolean {
  const headers = err.response?.headers ?? {};
  return err.status === 429 || (err.status === 403 && (headers['retry-after'] !== undefined || headers['x-ratelimit-remaining'] === '0'));
}

/** GitHub's failure as the API answers it: rate limits 503 with `Retry-After`, timeouts 504, refusals 502. */
export function githubFailure(err: unknown, doing: string, nowMs: number, timeoutMs = GITHUB_TIMEOUT_MS): ApiError {
  if (err instanceof ApiError) return err;
  if (isTimeout(err)) return new ApiError(504, 'github_timeout', `GitHub did not answer within ${timeoutMs / 1000} s while ${doing}`);
  if (!isHttpError(err)) return new ApiError(502, 'github_unreachable', `GitHub could not be reached while ${doing}: ${err instanceof Error ? err.message : String(err)}`);
  if (isRateLimit(err)) {
    const seconds = retryAfterSeconds(err.response?.headers ?? {}, nowMs);
    return new ApiError(503, 'github_rate_limited', `GitHub's rate limit was reached while ${doing}; retry in ${seconds} s`, undefined, { 'Retry-After': String(seconds) });
  }
  if (err.status === 401) return new ApiError(502, 'github_unauthorized', `GitHub refused the repository's token while ${doing}: reconnect the repository with a valid token`);
  // Octokit's answer for a request that got no response (refused connection, DNS).
  if (err.response === undefined) {
    return new ApiError(502, 'github_unreachable', `GitHub could not be reached while ${doing}: ${err.message}`);
  }
  return new ApiError(502, 'github_refused', `GitHub answered ${err.status} while ${doing}: ${err.message}`, { github_status: err.status });
}
