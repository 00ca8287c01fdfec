import type { InferRequestType } from 'hono/client';
import type { sessionsClient } from '../../api/typed';
import { pick } from '../../ui/url-state';

/** The listing's query; `attr.<key>` filters are read by the server beside the declared ones. */
type SessionsQuery = InferRequestType<typeof sessionsClient.index.$get>['query'] & Record<`attr.${string}`, string>;

/** URL parameters the sessions API takes as they are. */
const PASSED = [
  'app',
  'env',
  'release',
  'browser',
  'user_id',
  'test_run',
  'test_id',
  'url',
  'has_errors',
  'sort',
  'order',
  'limit',
  'cursor',
] as const;

/** `key=value` as typed into the attribute filter; null when it is not of that shape. */
export function parseAttribute(text: string): { key: string; value: string } | null {
  const at = text.indexOf('=');
  if (at <= 0 || at === text.length - 1) return null;
  return { key: text.slice(0, at).trim(), value: text.slice(at + 1).trim() };
}

/** Seconds as typed (the page's unit) into the API's milliseconds; undefined when empty or not a number. */
function secondsToMs(text: string | null): string | undefined {
  if (text === null || text.trim() === '') return undefined;
  const seconds = Number(text);
  return Number.isFinite(seconds) && seconds >= 0 ? String(Math.round(seconds * 1000)) : undefined;
}

/**
 * The API query of the page's URL: filters passed through, `attr=key=value` as `attr.key=value`, durations in seconds
 * as `min_duration_ms`/`max_duration_ms`, and the time window.
 */
export function sessionsQuery(params: URLSearchParams, window: { from?: string; to?: string }): SessionsQuery {
  const query: SessionsQuery = { ...pick(params, PASSED), from: window.from, to: window.to };
  const attribute = parseAttribute(params.get('attr') ?? '');
  if (attribute) query[`attr.${attribute.key}`] = attribute.value;
  query.min_duration_ms = secondsToMs(params.get('min_duration_s'));
  query.max_duration_ms = secondsToMs(params.get('max_duration_s'));
  return query;
}
