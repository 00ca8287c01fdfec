import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock';
import type { Database } from '../db/schema';
import { conflict, notFound } from '../shared/domain-errors';
import { checkName } from './names';

export interface AppInfo {
  id: string;
  projectId: string;
  name: string;
  aliases: string[];
}

/** Throws a 409 when `name` is already an app name or an alias in the project: a name must resolve to one app. */
async function assertNameFree(db: Kysely<Database>, projectId: string, name: string): Promise<void> {
  const app = await db
    .selectFrom('apps')
    .select('id')
    .where('project_id', '=', projectId)
    .where('name', '=', name)
    .executeTakeFirst();
  const alias = await db
    .selectFrom('app_aliases')
    .select('app_id')
    .where('project_id', '=', projectId)
    .where('alias', '=', name)
    .executeTakeFirst();
  if (app || alias) throw conflict('name_taken', `"${name}" is already an app name or alias in this project`);
}

export async function registerApp(
  db: Kysely<Database>,
  clock: Clock,
  projectId: string,
  name: string,
): Promise<AppInfo> {
  checkName('app name', name);
  await assertNameFree(db, projectId, name);
  const id = randomUUID();
  await db.insertInto('apps').values({ id, project_id: projectId, name, created_ms: clock.now() }).execute();
  return { id, projectId, name, aliases: [] };
}

async function findApp(db: Kysely<Database>, projectId: string, appName: string) {
  const app = await db
    .selectFrom('apps')
    .selectAll()
    .where('project_id', '=', projectId)
    .where('name', '=', appName)
    .executeTakeFirst();
  if (!app) throw notFound(`no app named "${appName}" in this project`);
  return app;
}

export async function addAlias(
  db: Kysely<Database>,
  clock: Clock,
  projectId: string,
  appName: string,
  alias: string,
): Promise<void> {
  checkName('alias', alias);
  const app = await findApp(db, projectId, appName);
  await assertNameFree(db, projectId, alias);
  await db
    .insertInto('app_aliases')
    .values({ project_id: projectId, app_id: app.id, alias, created_ms: clock.now() })
    .execute();
}

export async function removeAlias(
  db: Kysely<Database>,
  projectId: string,
  appName: string,
  alias: string,
): Promise<void> {
  const app = await findApp(db, projectId, appName);
  const res = await db
    .deleteFrom('app_aliases')
    .where('project_id', '=', projectId)
    .where('app_id', '=', app.id)
    .where('alias', '=', alias)
    .executeTakeFirst();
  if (Number(res.numDeletedRows) === 0) throw notFound(`"${alias}" is not an alias of "${appName}"`);
}

export async function listApps(db: Kysely<Database>, projectId?: string): Promise<AppInfo[]> {
  let apps = db.selectFrom('apps').selectAll().orderBy('created_ms');
  let aliases = db.selectFrom('app_aliases').selectAll().orderBy('alias');
  if (projectId) {
    apps = apps.where('project_id', '=', projectId);
    aliases = aliases.where('project_id', '=', projectId);
  }
  const aliasRows = await aliases.execute();
  return (await apps.execute()).map((a) => ({
    id: a.id,
    projectId: a.project_id,
    name: a.name,
    aliases: aliasRows.filter((r) => r.app_id === a.id).map((r) => r.alias),
  }));
}

/** Maps a `service.name` to its app: the canonical name or one of its aliases. */
export interface ResolvedApp {
  id: string;
  name: string;
}

export async function resolveServiceNames(
  db: Kysely<Database>,
  projectId: string,
  names: readonly string[],
): Promise<Map<string, ResolvedApp>> {
  const found = new Map<string, ResolvedApp>();
  if (names.length === 0) return found;
  const direct = await db
    .selectFrom('apps')
    .select(['id', 'name'])
    .where('project_id', '=', projectId)
    .where('name', 'in', names)
    .execute();
  for (const a of direct) found.set(a.name, a);
  const rest = names.filter((n) => !found.has(n));
  if (rest.length > 0) {
    const viaAlias = await db
      .selectFrom('app_aliases')
      .innerJoin('apps', 'apps.id', 'app_aliases.app_id')
      .select(['app_aliases.alias', 'apps.id', 'apps.name'])
      .where('app_aliases.project_id', '=', projectId)
      .where('app_aliases.alias', 'in', rest)
      .execute();
    for (const a of viaAlias) found.set(a.alias, { id: a.id, name: a.name });
  }
  return found;
}
