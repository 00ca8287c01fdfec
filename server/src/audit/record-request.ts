import type { Context } from 'hono';
import { clientAddress } from '../http/client-address';
import { actorLabel, type Actor, type AppEnv, type Services } from '../http/env';
import { redactForAudit } from './redact';
import { recordAudit, type AuditActor, type AuditEntry } from './store';
import { targetOf } from './target';

/** Methods that change nothing: no transaction, no audit entry. */
export const READS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);
/**
 * Bodies longer than this are summed up rather than kept (a test run's results, a bulk change of many issues): the
 * audit log records who changed what, not a copy of every upload.
 */
const MAX_BODY_CHARS = 16_384;

/** How the audit log names a key or a person: by id, with `key:<name>` or the e-mail as they were at the time. */
export const auditActor = (actor: Actor): AuditActor =>
  actor.kind === 'key'
    ? { kind: 'key', id: actor.key.id, label: actorLabel(actor) }
    : { kind: 'person', id: actor.person.userId, label: actorLabel(actor) };

type Change = Omit<AuditEntry, 'address'>;

/** Appends `change` with the request's address, its before and after redacted. */
async function append(services: Services, c: Context, change: Change): Promise<void> {
  const { before, after } = change.changes ?? {};
  const changes = {
    ...(before !== undefined && { before: redactForAudit(before) }),
    ...(after !== undefined && { after: redactForAudit(after) }),
  };
  await recordAudit(services.db, services.clock, { ...change, changes, address: clientAddress(c) });
}

/**
 * The control plane's record of every change (`controlAuth` calls it after the route, in the change's transaction): a
 * state-changing request to a declared operation that answered 2xx appends one entry naming the caller, the operation
 * as the document names it (`PATCH /control-plane/issues/{id}`), its target, the request's JSON body as `after`
 * (redacted) unless the route said better (`c.set('audit', …)`, with `before`), the address and the status.
 * Resolves whether the change stands: true once its entry is appended, false for an answer that is not a success.
 */
export async function recordRequest(services: Services, c: Context<AppEnv>, operation: string): Promise<boolean> {
  const { status } = c.res;
  if (status < 200 || status > 299) return false;
  const caller = c.get('caller');
  const refined = c.get('audit') ?? {};
  const params = templateParams(operation, c.req.path);
  const target = refined.target !== undefined ? refined.target : targetOf(operation, params, await createdId(c));
  const after = refined.after !== undefined ? refined.after : await requestJson(c);
  await append(services, c, {
    tenantId: caller.tenantId,
    projectId: caller.projectId,
    actor: auditActor(caller.actor),
    operation,
    target,
    changes: { before: refined.before, after },
    status,
  });
  return true;
}

/** The values of a template's `{params}` in the request's path (decoded), by matching the two segment by segment. */
function templateParams(operation: string, path: string): Record<string, string> {
  const template = operation.slice(operation.indexOf(' ') + 1).split('/');
  const actual = path.split('/');
  const params: Record<string, string> = {};
  template.forEach((segment, i) => {
    const name = /^\{(.+)\}$/.exec(segment)?.[1];
    const value = actual[i];
    if (name && value !== undefined) params[name] = safeDecode(value);
  });
  return params;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The JSON body the route read (never one it left unread, which reading now would consume), or a note of its size. */
async function requestJson(c: Context): Promise<unknown> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const text = (c.req.bodyCache as { text?: Promise<string> }).text;
  if (type !== 'application/json' || text === undefined) return undefined;
  const body = await text;
  if (body.length > MAX_BODY_CHARS) return { omitted: `a body of ${body.length} characters` };
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

/** The `id` of the object a `201 Created` answer returns: the target of a creation. Nothing else of it is read. */
async function createdId(c: Context): Promise<string | undefined> {
  if (c.res.status !== 201 || !(c.res.headers.get('content-type') ?? '').includes('application/json')) return undefined;
  try {
    const { id } = (await c.res.clone().json()) as { id?: unknown };
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
