import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database, KeyScope } from '../db/schema';
import { checkName } from './names';

export const KEY_SCOPES: readonly KeyScope[] = ['ingest', 'control', 'read', 'admin'];
/**
 * The scopes that act on one project; an `admin` key acts on its whole tenant. A `read` key views everything a control
 * key does in its project and changes nothing, so looking at the data does not need a key that can change it.
 */
export const PROJECT_KEY_SCOPES = ['ingest', 'control', 'read'] as const satisfies readonly KeyScope[];

/** Key text starts with a scope marker so a leaked key is recognisable (and secret scanners can match it). */
const SCOPE_PREFIX: Record<KeyScope, string> = {
  ingest: 'svc_ingest_',
  control: 'svc_control_',
  read: 'svc_read_',
  admin: 'svc_admin_',
};

export interface KeyInfo {
  id: string;
  projectId: string;
  scope: KeyScope;
  name: string;
  displayPrefix: string;
  createdMs: number;
  expiresMs: number | null;
  revokedMs: number | null;
}

export interface CreatedKey extends KeyInfo {
  /** The key itself. Shown once: only its hash is stored. */
  key: string;
}

export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export async function createKey(
  db: Kysely<Database>,
  clock: Clock,
  input: { projectId: string; scope: KeyScope; name?: string; expiresMs?: number | null; createdBy?: string },
): Promise<CreatedKey> {
  if (input.name !== undefined) checkName('key name', input.name, 'name');
  const key = SCOPE_PREFIX[input.scope] + randomBytes(24).toString('base64url');
  const row = {
    id: randomUUID(),
    project_id: input.projectId,
    scope: input.scope,
    name: input.name ?? `${input.scope} key`,
    display_prefix: key.slice(0, SCOPE_PREFIX[input.scope].length + 6),
    hash: hashKey(key),
    created_ms: clock.now(),
    expires_ms: input.expiresMs ?? null,
    revoked_ms: null,
    // Ingest keys are public (shipped in every page that sends telemetry), so the console may show them again.
    key_text: input.scope === 'ingest' ? key : null,
    created_by: input.createdBy ?? null,
    last_used_ms: null,
  };
  await db.insertInto('api_keys').values(row).execute();
  return { ...toInfo(row), key };
}

/** A key as listings show it: who made it (a person; null for keys made by the CLI or by another key) and its last use. */
export interface KeyListing extends KeyInfo {
  createdBy: { id: string; email: string } | null;
  /** Its last accepted request, to the minute; null when never used. */
  lastUsedMs: number | null;
}

/** Which keys: a project's, and with `tenantId` also the tenant's admin keys (which act on all its projects). */
export interface KeyReach {
  projectId: string;
  tenantId?: string;
}

/** Keys within `reach`, or all of them. */
function keysWithin(db: Kysely<Database>, reach: KeyReach | undefined) {
  const q = db.selectFrom('api_keys').innerJoin('projects', 'projects.id', 'api_keys.project_id');
  if (reach === undefined) return q;
  const { projectId, tenantId } = reach;
  return q.where((eb) =>
    eb.or([
      eb('api_keys.project_id', '=', projectId),
      ...(tenantId === undefined
        ? []
        : [eb.and([eb('api_keys.scope', '=', 'admin'), eb('projects.tenant_id', '=', tenantId)])]),
    ]),
  );
}

/** Keys, oldest first; all of them, or those a project's `reach` names. */
export async function listKeys(db: Kysely<Database>, reach?: string | KeyReach): Promise<KeyListing[]> {
  const q = keysWithin(db, typeof reach === 'string' ? { projectId: reach } : reach)
    .leftJoin('users', 'users.id', 'api_keys.created_by')
    .selectAll('api_keys')
    .select(['users.id as creator_id', 'users.email as creator_email'])
    .orderBy('api_keys.created_ms')
    .orderBy('api_keys.id');
  return (await q.execute()).map((row) => ({
    ...toInfo(row),
    createdBy:
      row.creator_id !== null && row.creator_email !== null ? { id: row.creator_id, email: row.creator_email } : null,
    lastUsedMs: row.last_used_ms,
  }));
}

/**
 * Revokes a key by id (only one within `reach` when given); returns false when no such key exists. Revoking twice keeps
 * the first time.
 */
export async function revokeKey(db: Kysely<Database>, clock: Clock, id: string, reach?: KeyReach): Promise<boolean> {
  const existing = await keysWithin(db, reach)
    .select(['api_keys.id', 'api_keys.revoked_ms'])
    .where('api_keys.id', '=', id)
    .executeTakeFirst();
  if (!existing) return false;
  if (existing.revoked_ms === null) {
    await db.updateTable('api_keys').set({ revoked_ms: clock.now() }).where('id', '=', id).execute();
  }
  return true;
}

export type KeyCheck =
  | { ok: true; key: KeyInfo; tenantId: string }
  /** `key`: the refused key when it exists (revoked, expired, or of another scope). */
  | { ok: false; reason: 'missing' | 'unknown' | 'revoked' | 'expired' | 'wrong_scope'; key?: KeyInfo };

/** Resolves a presented key for a surface that takes keys of the `scopes` given. */
export async function checkKey(
  db: Kysely<Database>,
  clock: Clock,
  presented: string | undefined,
  scopes: readonly KeyScope[],
): Promise<KeyCheck> {
  if (!presented) return { ok: false, reason: 'missing' };
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('projects', 'projects.id', 'api_keys.project_id')
    .selectAll('api_keys')
    .select('projects.tenant_id')
    .where('api_keys.hash', '=', hashKey(presented))
    .executeTakeFirst();
  if (!row) return { ok: false, reason: 'unknown' };
  const key = toInfo(row);
  if (row.revoked_ms !== null) return { ok: false, reason: 'revoked', key };
  if (row.expires_ms !== null && row.expires_ms <= clock.now()) return { ok: false, reason: 'expired', key };
  if (!scopes.includes(row.scope)) return { ok: false, reason: 'wrong_scope', key };
  await noteUse(db, clock, row);
  return { ok: true, key, tenantId: row.tenant_id };
}

/** Last use, for the key listing: written at most once a minute, so a busy key is not a write per request. */
async function noteUse(db: Kysely<Database>, clock: Clock, row: Database['api_keys']): Promise<void> {
  const now = clock.now();
  if (row.last_used_ms !== null && now - row.last_used_ms < 60_000) return;
  await db.updateTable('api_keys').set({ last_used_ms: now }).where('id', '=', row.id).execute();
}

function toInfo(row: Database['api_keys']): KeyInfo {
  return {
    id: row.id,
    projectId: row.project_id,
    scope: row.scope,
    name: row.name,
    displayPrefix: row.display_prefix,
    createdMs: row.created_ms,
    expiresMs: row.expires_ms,
    revokedMs: row.revoked_ms,
  };
}

/** A key as presented, whatever its state (revoked, expired, any scope); undefined for no such key. */
export async function findKey(db: Kysely<Database>, presented: string): Promise<KeyInfo | undefined> {
  const row = await db.selectFrom('api_keys').selectAll().where('hash', '=', hashKey(presented)).executeTakeFirst();
  return row && toInfo(row);
}

/** The ingest keys of a project that still work, with their text when it was kept (keys made before migration 0020 have none). */
export async function activeIngestKeys(
  db: Kysely<Database>,
  clock: Clock,
  projectId: string,
): Promise<Array<KeyInfo & { key: string | null }>> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('scope', '=', 'ingest')
    .where('revoked_ms', 'is', null)
    .where((eb) => eb.or([eb('expires_ms', 'is', null), eb('expires_ms', '>', clock.now())]))
    .orderBy('created_ms')
    .execute();
  return rows.map((r) => ({ ...toInfo(r), key: r.key_text }));
}
