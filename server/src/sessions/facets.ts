import { sql, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../db/schema';

/** Most values one facet lists. */
export const FACETS_LIMIT = 100;

type FacetColumn = 'env' | 'release' | 'browser' | 'app_id';
const COLUMNS: readonly FacetColumn[] = ['env', 'release', 'browser', 'app_id'];

export interface SessionFacets {
  envs: string[];
  releases: string[];
  browsers: string[];
  apps: string[];
}

export interface FacetScope {
  projectId: string;
  appId?: string;
  /** Conditions on `sessions as s` for a time range (session-filters.ts); none: every session of the project. */
  range: RawBuilder<SqlBool>[];
}

/**
 * The distinct environments, releases, browsers and app names among a project's sessions, alphabetical (each
 * database's text order), at most {@link FACETS_LIMIT} each, for the console's filter menus.
 *
 * Without a time range (the console's default view) each facet is read by skipping through its index (project_id,
 * column) from one value to the next, a recursive query of one index seek per value, however many sessions there are.
 * With one, the sessions in range are read once through the last_ms index and their value combinations gathered.
 */
export async function sessionFacets(db: Kysely<Database>, scope: FacetScope): Promise<SessionFacets> {
  const values =
    scope.range.length === 0
      ? await Promise.all(COLUMNS.map((column) => skipScan(db, scope, column)))
      : await inRange(db, scope);
  const [envs, releases, browsers, appIds] = values as [string[], string[], string[], string[]];
  return { envs, releases, browsers, apps: await appNames(db, appIds) };
}

/** A loose index scan: the smallest value, then the smallest above it, and so on, each an index seek. */
async function skipScan(
  db: Kysely<Database>,
  { projectId, appId }: FacetScope,
  column: FacetColumn,
): Promise<string[]> {
  const col = sql.ref(column);
  const app = appId === undefined ? sql`` : sql` and app_id = ${appId}`;
  const { rows } = await sql<{ value: string }>`
    with recursive v(value) as (
      select min(${col}) from sessions where project_id = ${projectId}${app}
      union all
      select (select min(${col}) from sessions where project_id = ${projectId}${app} and ${col} > v.value) from v where v.value is not null
    )
    select value from v where value is not null limit ${FACETS_LIMIT}`.execute(db);
  return rows.map((r) => r.value);
}

async function inRange(db: Kysely<Database>, { projectId, range }: FacetScope): Promise<string[][]> {
  let q = db
    .selectFrom('sessions as s')
    .select(['s.env', 's.release', 's.browser', 's.app_id'])
    .where('s.project_id', '=', projectId);
  for (const condition of range) q = q.where(condition);
  const rows = await q.groupBy(['s.env', 's.release', 's.browser', 's.app_id']).execute();
  return COLUMNS.map((column) => distinctSorted(rows.map((r) => r[column])));
}

const distinctSorted = (values: ReadonlyArray<string | null>): string[] =>
  [...new Set(values.filter((v): v is string => v !== null))]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, FACETS_LIMIT);

async function appNames(db: Kysely<Database>, appIds: string[]): Promise<string[]> {
  if (appIds.length === 0) return [];
  const apps = await db.selectFrom('apps').select('name').where('id', 'in', appIds).execute();
  return distinctSorted(apps.map((a) => a.name));
}
