import type { Octokit } from '@octokit/rest';
import { DomainError } from '../shared/domain-errors';
import type { AppAuth, RepositoryConnection } from './connection';

/** Longest wait for one GitHub request, answer included. */
export const GITHUB_TIMEOUT_MS = 20_000;

/**
 * The REST client for a connected repository: with its token, or as a GitHub App installation, whose short-lived token
 * `@octokit/auth-app` mints from the App's key on the first request (against `api_url` too) and sends on the rest.
 */
export async function githubClient(
  connection: RepositoryConnection,
  log: (line: string) => void,
  timeoutMs = GITHUB_TIMEOUT_MS,
): Promise<Octokit> {
  // Loaded on the first pull request: most servers open none, and Octokit costs every start-up its load time.
  const [{ Octokit }, { createAppAuth }] = await Promise.all([import('@octokit/rest'), import('@octokit/auth-app')]);
  const timedFetch: typeof fetch = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  const common = {
    baseUrl: connection.apiUrl,
    userAgent: 'svc-server',
    request: { fetch: timedFetch },
    log: silentLog,
  };
  const octokit =
    connection.auth.kind === 'token'
      ? new Octokit({ ...common, auth: connection.auth.secrets.token })
      : new Octokit({ ...common, authStrategy: createAppAuth, auth: appAuth(connection.auth.secrets) });
  logRequests(octokit, (line) => log(`github ${connection.owner}/${connection.repo}: ${line}`));
  return octokit;
}

const appAuth = ({ app_id, installation_id, private_key }: AppAuth) => ({
  appId: app_id,
  privateKey: private_key,
  installationId: installation_id,
});

/** Every GitHub call in the server log with its answer and duration: the route's template, no values or credentials. */
function logRequests(octokit: Octokit, log: (line: string) => void): void {
  octokit.hook.wrap('request', async (request, options) => {
    const started = Date.now();
    const what = `${options.method} ${options.url}`;
    try {
      const answer = await request(options);
      log(`${what} answered ${answer.status} in ${Date.now() - started} ms`);
      return answer;
    } catch (err) {
      const status = isHttpError(err) ? `answered ${err.status}` : 'failed';
      log(`${what} ${status} in ${Date.now() - started} ms`);
      throw err;
    }
  });
}

const silentLog = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

const isTimeout = (err: unknown): boolean =>
  err instanceof Error &&
  (err.name === 'TimeoutError' || (err.cause instanceof Error && err.cause.name === 'TimeoutError'));

/** Seconds until GitHub takes requests again: `Retry-After`, else the rate limit's reset time, else a minute. */
function retryAfterSeconds(headers: Record<string, string | number | undefined>, nowMs: number): number {
  const retryAfter = Number(headers['retry-after']);
  if (Number.isFinite(retryAfter) && retryAfter >= 0) return Math.ceil(retryAfter);
  const reset = Number(headers['x-ratelimit-reset']);
  if (Number.isFinite(reset) && reset > 0) return Math.max(1, Math.ceil(reset - nowMs / 1000));
  return 60;
}

/** Where `@octokit/auth-app` mints an installation's token; a refusal there is the App's credentials, not the repository's. */
const INSTALLATION_TOKEN_URL = /\/app\/installations\/(\d+)\/access_tokens$/;

/** Octokit's RequestError (name `HttpError`), told by shape: its package is Octokit's, not a dependency of ours. */
interface HttpError extends Error {
  status: number;
  request?: { url?: string };
  response?: { headers: Record<string, string | number | undefined> };
}

const isHttpError = (err: unknown): err is HttpError =>
  err instanceof Error && err.name === 'HttpError' && typeof (err as { status?: unknown }).status === 'number';

function isRateLimit(err: HttpError): boolean {
  const headers = err.response?.headers ?? {};
  return (
    err.status === 429 ||
    (err.status === 403 && (headers['retry-after'] !== undefined || headers['x-ratelimit-remaining'] === '0'))
  );
}

/** GitHub's failure as a refusal of ours: rate limits `upstream_busy` with when to retry, timeouts, refusals. */
export function githubFailure(err: unknown, doing: string, nowMs: number, timeoutMs = GITHUB_TIMEOUT_MS): DomainError {
  if (err instanceof DomainError) return err;
  if (isTimeout(err))
    return new DomainError(
      'upstream_timeout',
      'github_timeout',
      `GitHub did not answer within ${timeoutMs / 1000} s while ${doing}`,
    );
  if (!isHttpError(err))
    return new DomainError(
      'upstream',
      'github_unreachable',
      `GitHub could not be reached while ${doing}: ${err instanceof Error ? err.message : String(err)}`,
    );
  if (isRateLimit(err)) {
    const seconds = retryAfterSeconds(err.response?.headers ?? {}, nowMs);
    return new DomainError(
      'upstream_busy',
      'github_rate_limited',
      `GitHub's rate limit was reached while ${doing}; retry in ${seconds} s`,
      undefined,
      seconds,
    );
  }
  const installation = err.request?.url?.match(INSTALLATION_TOKEN_URL)?.[1];
  if (installation !== undefined && err.response !== undefined) {
    return new DomainError(
      'upstream',
      'github_app_auth_failed',
      `GitHub refused an installation token for installation ${installation} (it answered ${err.status}) while ${doing}: check that the App is installed on the repository, its installation_id and its private_key`,
      { github_status: err.status, installation_id: Number(installation) },
    );
  }
  if (err.status === 401)
    return new DomainError(
      'upstream',
      'github_unauthorized',
      `GitHub refused the repository's credentials while ${doing}: reconnect the repository with a valid token or App installation`,
    );
  // Octokit's answer for a request that got no response (refused connection, DNS).
  if (err.response === undefined) {
    return new DomainError(
      'upstream',
      'github_unreachable',
      `GitHub could not be reached while ${doing}: ${err.message}`,
    );
  }
  return new DomainError('upstream', 'github_refused', `GitHub answered ${err.status} while ${doing}: ${err.message}`, {
    github_status: err.status,
  });
}
