import { boundedPath, boundedText, pathOfUrl } from '../../otlp/session-facts';
import { routePattern } from '../../shared/route-pattern';
import { parseUserAgent } from '../../sessions/user-agent';

/** What an issue's breakdown counts one error under; null where the error did not say. */
export interface ErrorFacets {
  /** Browser family and major version: `Chrome 131`. */
  browser: string | null;
  os: string | null;
  /** Route pattern of the page the error happened on: `/products/:id`. */
  route: string | null;
  userId: string | null;
}

type Json = Record<string, unknown>;

/** The page of an error: `url.path` (the svc SDK's), else the path of `url.full` (an interaction span's). */
function pageOf(attributes: Json): string | null {
  const path = attributes['url.path'];
  return typeof path === 'string' ? boundedPath(path) : pathOfUrl(attributes['url.full']);
}

/**
 * The facets of an error from its record's attributes (`user.id`, the page) and its resource's (the svc SDK puts
 * `user_agent.original` there; OpenTelemetry's document-load instrumentation on the span).
 */
export function errorFacets(attributes: Json, resourceAttributes: Json): ErrorFacets {
  const agent = attributes['user_agent.original'] ?? resourceAttributes['user_agent.original'];
  const client = typeof agent === 'string' ? parseUserAgent(agent) : null;
  const page = pageOf(attributes);
  return {
    browser: client && (client.browserVersion === null ? client.browser : `${client.browser} ${client.browserVersion}`),
    os: client?.os ?? null,
    route: page === null ? null : routePattern(page),
    userId: boundedText(attributes['user.id']),
  };
}
