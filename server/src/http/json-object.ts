import type { Context } from 'hono';
import { readBody, parseJson } from './body';
import { ApiError, badRequest } from './errors';

/** Control-plane request bodies are small: 1 MiB is far above any channel, rule or incident. */
const CONTROL_BODY_LIMIT = 1024 * 1024;

/** The JSON object a control-plane POST or PUT sends (SPEC 4: `Content-Type: application/json`). */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as JSON with Content-Type: application/json', { field: 'Content-Type' });
  }
  const value = parseJson(await readBody(c, CONTROL_BODY_LIMIT));
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest('body must be a JSON object');
  return value as Record<string, unknown>;
}

/** A required non-empty string field of at most `max` characters. */
export function requiredString(body: Record<string, unknown>, field: string, max = 200): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') throw badRequest(`${field} is required: a non-empty string`, { field });
  if (value.length > max) throw badRequest(`${field} must be at most ${max} characters`, { field });
  return value.trim();
}

/** An optional array of non-empty strings (`field[3]` is named when one item is wrong). */
export function stringList(value: unknown, field: string, allowed?: readonly string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) throw badRequest(`${field} must be an array of strings`, { field });
  return value.map((item, i) => {
    if (typeof item !== 'string' || item.trim() === '') throw badRequest(`${field}[${i}] must be a non-empty string`, { field: `${field}[${i}]` });
    if (allowed && !allowed.includes(item)) throw badRequest(`${field}[${i}] must be one of ${allowed.join(', ')}`, { field: `${field}[${i}]` });
    return item;
  });
}
