/**
 * What an ingest refusal, or a 429 (over a rate limit or quota of the project), says about the SDK's setup, in words
 * that name the fix. The codes are those of the server's one error shape `{"error":{"code","message","details"}}`
 * (server/src/http/auth.ts, server/src/app.ts, server/src/ingest/store.ts, server/src/ingest/routes.ts). Loaded with a
 * dynamic import on the first such answer, so it is not in the initial bundle.
 */

interface ServerError {
  readonly code?: string;
  readonly message?: string;
  readonly details?: { readonly rejected?: readonly string[] };
}

function serverError(detail: string): ServerError {
  try {
    return (JSON.parse(detail) as { error?: ServerError }).error || {};
  } catch {
    return {};
  }
}

const NEW_KEY = 'run "svc-server keys create --scope ingest" and pass it as apiKey';

/** `[kind, message]` of the warning for a refusal of `url` with `status`, or undefined when it says nothing of setup. */
export function misconfiguration(status: number, detail: string, url: string): [string, string] | undefined {
  const error = serverError(detail);
  const said = `${url} answered HTTP ${status}${error.code ? ` ${error.code}` : ''}${error.message ? `: ${error.message}` : ''}.`;
  if (status === 401) return ['401', `${said} Missing or unknown ingest key: ${NEW_KEY}.`];
  if (status === 403) return ['403', `${said} Revoked, expired or not an ingest key: ${NEW_KEY}.`];
  if (status === 404) return ['404', `${said} ingestUrl must be the base address of svc-server, without /otlp/v1/….`];
  // The server's message names the limit; every page of the site waits as the answer asks (sdk-pipeline.md).
  if (status === 429) return ['429', said];
  if (status !== 422) return undefined;
  const apps = error.code === 'unknown_service' && error.details && error.details.rejected;
  const fix = apps
    ? `Create the app with ${apps.map((app) => `"svc-server apps create ${app}"`).join(', ')}, or set appId/serviceName to an existing app.`
    : 'Fix what the server names.';
  return [`422 ${error.code || ''}`, `${said} ${fix}`];
}
