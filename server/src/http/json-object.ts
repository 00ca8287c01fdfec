import type { Context } from 'hono';
import { readBody, parseJson } from './body';
import { ApiError, badRequest } from './errors';
import { CONTROL_MAX_DEPTH, nestsDeeperThan } from '../json/nesting';
import { findInJson, formatJsonPath } from '../json/walk';

/**
 * Control-plane request bodies are small: 1 MiB is far above any channel, rule or incident. Fixed: SVC_BODY_LIMIT is
 * the ingest limit, and a 413 from here says so rather than send the user to raise the wrong setting.
 */
const CONTROL_BODY_LIMIT = 1024 * 1024;
const CONTROL_LIMIT_NAME = "the control plane's fixed limit of 1 MiB; SVC_BODY_LIMIT applies to ingest only";

/**
 * The JSON object a control-plane POST or PUT sends (SPEC 4: `Content-Type: application/json`), nested at most
 * CONTROL_MAX_DEPTH levels. No string in it, key or value at any depth, may hold U+0000: PostgreSQL text cannot, and a
 * body refused whole changes nothing.
 */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ApiError(415, 'unsupported_media_type', 'send the body as JSON with Content-Type: application/json', {
      field: 'Content-Type',
    });
  }
  const value = parseControlJson(await readBody(c, CONTROL_BODY_LIMIT, CONTROL_LIMIT_NAME));
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('body must be a JSON object');
  const withNul = findInJson(value, (v, _depth, key) => hasNul(v) || hasNul(key));
  if (withNul) {
    const field = formatJsonPath('', withNul);
    throw badRequest(`${field} must not contain U+0000`, { field });
  }
  return value as Record<string, unknown>;
}

/** A control-plane body parsed as JSON, refused with a 400 naming the limit before parsing when it nests too deep. */
export function parseControlJson(bytes: Uint8Array): unknown {
  if (nestsDeeperThan(bytes, CONTROL_MAX_DEPTH)) {
    throw badRequest(
      `body nests arrays and objects deeper than ${CONTROL_MAX_DEPTH} levels, the control plane's limit`,
      {
        field: 'body',
        limit: CONTROL_MAX_DEPTH,
      },
    );
  }
  return parseJson(bytes);
}

const hasNul = (v: unknown): boolean => typeof v === 'string' && v.includes('\u0000');

/** A required non-empty string field of at most `max` characters. */
export function requiredString(body: Record<string, unknown>, field: string, max = 200): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '')
    throw badRequest(`${field} is required: a non-empty string`, { field });
  if (value.length > max) throw badRequest(`${field} must be at most ${max} characters`, { field });
  return value.trim();
}
