import type { Kysely } from 'kysely';
import type { Database } from '../db/schema';
import { resolveServiceNames } from '../projects/apps-store';
import { invalid } from '../shared/domain-errors';

/** The id of the app a listing's `app` parameter names (an app name or an alias); undefined when none is given. */
export async function appIdFilter(
  db: Kysely<Database>,
  projectId: string,
  name: string | undefined,
): Promise<string | undefined> {
  if (name === undefined || name === '') return undefined;
  const found = (await resolveServiceNames(db, projectId, [name])).get(name);
  if (!found) {
    throw invalid(`app "${name}" is neither an app name nor an alias in this project`, 'invalid_request', {
      field: 'app',
    });
  }
  return found.id;
}
