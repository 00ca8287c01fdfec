import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { listProjects, type ProjectInfo } from '../projects/store';

/** A command-line mistake: the CLI prints the message and exits with code 2. */
export class UsageError extends Error {}

interface Named {
  id: string;
  name: string;
}

/**
 * The row `given` names, by id or else by name; with nothing given, the only row there is. Names are unique per tenant
 * only, so a name shared across tenants asks for the id.
 */
function pick<T extends Named>(
  rows: readonly T[],
  given: string | undefined,
  what: { noun: string; flag: string; whenNone: string },
): T {
  const listed = (items: readonly T[]) => items.map((r) => `${r.name} (${r.id})`).join(', ');
  if (given !== undefined) {
    const byId = rows.find((r) => r.id === given);
    if (byId) return byId;
    const byName = rows.filter((r) => r.name === given);
    if (byName.length === 1) return byName[0]!;
    if (byName.length > 1)
      throw new UsageError(
        `${byName.length} ${what.noun}s are named "${given}": pass ${what.flag} with the id of one: ${listed(byName)}`,
      );
    throw new UsageError(
      `no ${what.noun} with id or name "${given}"${rows.length ? `; there are: ${listed(rows)}` : ''}`,
    );
  }
  if (rows.length === 1) return rows[0]!;
  if (rows.length === 0) throw new UsageError(what.whenNone);
  throw new UsageError(
    `the database has ${rows.length} ${what.noun}s: pass ${what.flag} with the id or name of one: ${listed(rows)}`,
  );
}

const FIRST_START = 'start the server once to create the default one';

/** The tenant a command acts on: the one given (id or name), or the only one there is. */
export async function tenantOf(db: Kysely<Database>, given: string | undefined): Promise<Named> {
  const tenants = await db.selectFrom('tenants').select(['id', 'name']).orderBy('created_ms').execute();
  return pick(tenants, given, {
    noun: 'tenant',
    flag: '--tenant',
    whenNone: `the database has no tenant yet: ${FIRST_START}`,
  });
}

/** The project a command acts on: the one given (id or name), or the only one there is. */
export async function projectOf(db: Kysely<Database>, given: string | undefined): Promise<ProjectInfo> {
  return pick(await listProjects(db), given, {
    noun: 'project',
    flag: '--project',
    whenNone: `the database has no project yet: ${FIRST_START}`,
  });
}
