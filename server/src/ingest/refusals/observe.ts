import type { Context, MiddlewareHandler } from 'hono';
import { presentedIngestKey } from '../../http/auth';
import { refusalOf } from '../../http/errors';
import type { AppEnv, Caller, KeyRefusal, Services } from '../../http/env';
import { findKey, type KeyInfo } from '../../projects/keys-store';
import type { Refusal } from './counter';
import { NO_PROJECT, type RefusalExample, type RefusalKey } from './tables';

/** Longest message, path, origin or user agent kept in an example. */
const MAX_TEXT = 300;
/** Scope markers of svc keys: an unknown key starting with one is a kind of key this server does not (or no longer) have. */
const KEY_MARKERS = ['svc_ingest_', 'svc_control_', 'svc_read_', 'svc_admin_'];

const clip = (text: string | undefined): string | null =>
  text === undefined ? null : text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text;
const described = (key: KeyInfo) => ({ id: key.id, name: key.name, scope: key.scope });

/**
 * Watches ingest answers and hands every refusal (a 4xx) to `note`, with the project it is counted under and an
 * example: accepted requests pay one status check. A refusal before the key was checked (a disallowed origin, a
 * mistyped path) is counted under the key's project when the key exists, whatever its state.
 */
export function observeRefusals(services: Services, note: (refusal: Refusal) => void): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const { status } = c.res;
    if (status < 400 || status >= 500 || c.req.method === 'OPTIONS') return;
    const error = refusalOf(c.error);
    const code = error?.code ?? (status === 404 ? 'not_found' : `http_${status}`);
    const refused = c.get('keyRefusal') as KeyRefusal | undefined;
    const key = await keyOf(services, c, c.get('caller') as Caller | undefined, refused);
    const atMs = services.clock.now();
    note({
      projectId: key.project ?? NO_PROJECT,
      reason: refused ? `key_${refused.reason}` : code,
      status,
      atMs,
      example: exampleOf(c, { atMs, status, code, message: error?.message ?? '', key: key.described }),
    });
  };
}

/** The request's key as an example may name it, and its project; never the key itself. */
async function keyOf(
  services: Services,
  c: Context<AppEnv>,
  caller: Caller | undefined,
  refused: KeyRefusal | undefined,
): Promise<{ project?: string; described: RefusalKey }> {
  if (caller?.actor.kind === 'key')
    return { project: caller.projectId, described: { state: 'valid', ...described(caller.actor.key) } };
  if (refused?.key)
    return {
      project: refused.key.projectId,
      described: { state: refused.reason as 'revoked' | 'expired' | 'wrong_scope', ...described(refused.key) },
    };
  const presented = presentedIngestKey(c);
  if (!presented) return { described: { state: 'missing' } };
  // Refused before the key check (which would have set `refused`), or by it as unknown: look it up once.
  const known = refused ? undefined : await findKey(services.db, presented);
  if (known) return { project: known.projectId, described: { state: 'unchecked', ...described(known) } };
  return { described: { state: 'unknown', marker: KEY_MARKERS.find((m) => presented.startsWith(m)) ?? null } };
}

function exampleOf(
  c: Context<AppEnv>,
  answer: { atMs: number; status: number; code: string; message: string; key: RefusalKey },
): RefusalExample {
  const declared = c.req.header('content-length');
  const length = Number(declared);
  return {
    at: new Date(answer.atMs).toISOString(),
    status: answer.status,
    code: answer.code,
    message: clip(answer.message) ?? '',
    method: c.req.method,
    // The path only: a beacon's query carries the key (api_key).
    path: clip(c.req.path)!,
    origin: clip(c.req.header('origin')),
    user_agent: clip(c.req.header('user-agent')),
    content_type: clip(c.req.header('content-type')),
    content_encoding: clip(c.req.header('content-encoding')),
    content_length: declared !== undefined && Number.isFinite(length) ? length : null,
    key: answer.key,
  };
}
