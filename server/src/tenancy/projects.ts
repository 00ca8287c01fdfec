import type { Kysely, Selectable } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { createProject, registerApp } from './apps';
import { createKey, type CreatedKey } from './keys';

/** The app every project starts with: the SDK's default `SVC_SERVICE_NAME`, so a zero-config page is accepted. */
export const DEFAULT_APP_NAME = 'web-app';

export interface ProjectInfo {
  id: string;
  tenantId: string;
  name: string;
  createdMs: number;
}

/** A project as made ready to use: its default app and one key of each project scope (shown once). */
export interface NewProject {
  project: ProjectInfo;
  appName: string;
  ingestKey: CreatedKey;
  controlKey: CreatedKey;
}

/**
 * Creates a project with its default app and an ingest and a control key, as on first start. Run it in a transaction:
 * a failure then leaves nothing behind, and the name check cannot race (see createProject).
 */
export async function provisionProject(
  tx: Kysely<Database>,
  clock: Clock,
  tenantId: string,
  name: string,
): Promise<NewProject> {
  const projectId = await createProject(tx, clock, tenantId, name);
  await registerApp(tx, clock, projectId, DEFAULT_APP_NAME);
  const ingestKey = await createKey(tx, clock, { projectId, scope: 'ingest', name: 'default ingest key' });
  const controlKey = await createKey(tx, clock, { projectId, scope: 'control', name: 'default control key' });
  const project = (await findProject(tx, projectId))!;
  return { project, appName: DEFAULT_APP_NAME, ingestKey, controlKey };
}

/** `provisionProject` in a transaction of its own: what `svc-server projects create` and `POST /control-plane/projects` do. */
export function createProvisionedProject(
  db: Kysely<Database>,
  clock: Clock,
  tenantId: string,
  name: string,
): Promise<NewProject> {
  return db.transaction().execute((tx) => provisionProject(tx, clock, tenantId, name));
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
