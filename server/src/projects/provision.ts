import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { registerApp } from './apps-store';
import { createKey, type CreatedKey } from './keys-store';
import { createProject, findProject, type ProjectInfo } from './store';

/** The app every project starts with: the SDK's default `SVC_SERVICE_NAME`, so a zero-config page is accepted. */
export const DEFAULT_APP_NAME = 'web-app';

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
