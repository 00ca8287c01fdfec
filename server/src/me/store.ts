import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { repositoryDb } from '../github/tables';
import { listApps } from '../projects/apps-store';
import { listProjects, projectNamed, tenantNamed, type Named } from '../projects/store';

/** What `GET /control-plane/me` tells about a key's project: names, apps, the projects it may switch to. */
export interface Whereabouts {
  project: Named;
  tenant: Named;
  apps: Named[];
  /** An app of the project has a GitHub repository connected. */
  github: boolean;
  /** The projects an admin key or a person may switch to; null for a project key (it acts on its own only). */
  projects: Named[] | null;
}

/** Reads a caller's project, tenant and apps at once. */
export async function whereabouts(
  db: Kysely<Database>,
  caller: { projectId: string; tenantId: string; switches: boolean; limitedTo: readonly string[] | null },
): Promise<Whereabouts> {
  const { projectId, tenantId } = caller;
  const [project, tenant, apps, repository, projects] = await Promise.all([
    projectNamed(db, projectId),
    tenantNamed(db, tenantId),
    listApps(db, projectId),
    repositoryDb(db)
      .selectFrom('repositories')
      .select('app_id')
      .where('project_id', '=', projectId)
      .limit(1)
      .executeTakeFirst(),
    caller.switches ? listProjects(db, tenantId) : null,
  ]);
  const named = (x: Named): Named => ({ id: x.id, name: x.name });
  return {
    project,
    tenant,
    apps: apps.map(named),
    github: repository !== undefined,
    projects: projects && projects.filter((p) => caller.limitedTo?.includes(p.id) ?? true).map(named),
  };
}
