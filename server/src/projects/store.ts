import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { conflict, DomainError } from '../shared/domain-errors';
import { checkName } from './names';

export interface ProjectInfo {
  id: string;
  tenantId: string;
  name: string;
  createdMs: number;
}

/** A project or tenant as the API names it. */
export interface Named {
  id: string;
  name: string;
}

export async function createTenant(db: Kysely<Database>, clock: Clock, name: string): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('tenants')
    .values({ id, name: checkName('tenant name', name), created_ms: clock.now() })
    .execute();
  return id;
}

/** Whether any tenant exists: a database without one is bootstrapped (bootstrap.ts). */
export async function anyTenant(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('tenants').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** The tenant with this id, which a key's check has found (so it exists). */
export function tenantNamed(db: Kysely<Database>, id: string): Promise<Named> {
  return db.selectFrom('tenants').select(['id', 'name']).where('id', '=', id).executeTakeFirstOrThrow();
}

/** The project with this id, which a key's check has found (so it exists). */
export function projectNamed(db: Kysely<Database>, id: string): Promise<Named> {
  return db.selectFrom('projects').select(['id', 'name']).where('id', '=', id).executeTakeFirstOrThrow();
}

/**
 * Creates a project; its name must be free in the tenant (409), since the CLI picks projects by name. There is no
 * unique index to lean on, so the tenant's row is updated first: inside a transaction that serializes creations in one
 * tenant, on PostgreSQL (the row lock) and on SQLite (the write lock, taken before anything is read).
 */
export async function createProject(
  db: Kysely<Database>,
  clock: Clock,
  tenantId: string,
  name: string,
): Promise<string> {
  checkName('project name', name, 'name');
  await db
    .updateTable('tenants')
    .set((eb) => ({ name: eb.ref('name') }))
    .where('id', '=', tenantId)
    .execute();
  const taken = await db
    .selectFrom('projects')
    .select('id')
    .where('tenant_id', '=', tenantId)
    .where('name', '=', name)
    .executeTakeFirst();
  if (taken) throw conflict('name_taken', `a project named "${name}" already exists`, { field: 'name' });
  const id = randomUUID();
  await db.insertInto('projects').values({ id, tenant_id: tenantId, name, created_ms: clock.now() }).execute();
  return id;
}

const toInfo = (p: Selectable<Database['projects']>): ProjectInfo => ({
  id: p.id,
  tenantId: p.tenant_id,
  name: p.name,
  createdMs: p.created_ms,
});

/** Projects, oldest first; those of one tenant when `tenantId` is given. */
export async function listProjects(db: Kysely<Database>, tenantId?: string): Promise<ProjectInfo[]> {
  let q = db.selectFrom('projects').selectAll().orderBy('created_ms').orderBy('id');
  if (tenantId) q = q.where('tenant_id', '=', tenantId);
  return (await q.execute()).map(toInfo);
}

/** The project with this id; when `tenantId` is given, only if it belongs to that tenant. */
export async function findProject(
  db: Kysely<Database>,
  id: string,
  tenantId?: string,
): Promise<ProjectInfo | undefined> {
  let q = db.selectFrom('projects').selectAll().where('id', '=', id);
  if (tenantId) q = q.where('tenant_id', '=', tenantId);
  const row = await q.executeTakeFirst();
  return row && toInfo(row);
}

/** The tenant's project `id`; not_found naming `id` when it has none (another tenant's is as absent as none at all). */
export async function tenantProject(db: Kysely<Database>, id: string, tenantId: string): Promise<ProjectInfo> {
  const project = await findProject(db, id, tenantId);
  if (!project) throw new DomainError('not_found', 'not_found', `no project ${id} in this tenant`, { field: 'id' });
  return project;
}
