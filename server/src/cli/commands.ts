import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { systemClock } from '../clock';
import { CONFIG_DEFAULTS } from '../config';
import { openDatabase } from '../db/connect';
import { migrateToLatest } from '../db/migrate';
import type { Database, KeyScope } from '../db/schema';
import { ApiError } from '../http/errors';
import { addAlias, listApps, registerApp, removeAlias } from '../tenancy/apps';
import { createKey, KEY_SCOPES, listKeys, revokeKey } from '../tenancy/keys';

export const ADMIN_USAGE = `Administration (works on the database directly; the server may be running):
  svc-server keys create --scope ingest|control [--name NAME] [--expires-in-days N] [--project ID]
  svc-server keys list [--project ID]
  svc-server keys revoke KEY_ID
  svc-server apps create NAME [--project ID]
  svc-server apps list [--project ID]
  svc-server apps alias add APP ALIAS [--project ID]
  svc-server apps alias remove APP ALIAS [--project ID]
Each takes --database-url (or SVC_DATABASE_URL). --project may be left out when the database has one project.`;

export class UsageError extends Error {}

type Out = (line: string) => void;

/** The project a command acts on: the one given, or the only one there is. */
async function projectOf(db: Kysely<Database>, given: string | undefined): Promise<string> {
  const projects = await db.selectFrom('projects').select(['id', 'name']).execute();
  if (given) {
    if (!projects.some((p) => p.id === given)) throw new UsageError(`no project with id ${given}`);
    return given;
  }
  if (projects.length === 1) return projects[0]!.id;
  if (projects.length === 0) throw new UsageError('the database has no project yet: start the server once to create the default one');
  throw new UsageError(`the database has ${projects.length} projects: pass --project with one of ${projects.map((p) => p.id).join(', ')}`);
}

/** Runs `keys …` or `apps …`. Returns the process exit code. */
export async function runAdminCommand(argv: readonly string[], env: NodeJS.ProcessEnv, out: Out): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      'database-url': { type: 'string' },
      project: { type: 'string' },
      scope: { type: 'string' },
      name: { type: 'string' },
      'expires-in-days': { type: 'string' },
    },
  });
  const handle = openDatabase(values['database-url'] ?? (env.SVC_DATABASE_URL || CONFIG_DEFAULTS.databaseUrl));
  try {
    await migrateToLatest(handle);
    const { db } = handle;
    const clock = systemClock;
    const [group, action, ...rest] = positionals;
    const command = `${group ?? ''} ${action ?? ''}`.trim();
    switch (command) {
      case 'keys create': {
        const scope = values.scope as KeyScope | undefined;
        if (!scope || !KEY_SCOPES.includes(scope)) throw new UsageError('--scope must be ingest or control');
        const days = values['expires-in-days'];
        if (days !== undefined && !/^[1-9]\d{0,4}$/.test(days)) throw new UsageError('--expires-in-days must be a whole number of days');
        const key = await createKey(db, clock, {
          projectId: await projectOf(db, values.project),
          scope,
          ...(values.name ? { name: values.name } : {}),
          expiresMs: days ? clock.now() + Number(days) * 86_400_000 : null,
        });
        out(`created ${key.scope} key ${key.id}${key.expiresMs ? ` (expires ${new Date(key.expiresMs).toISOString()})` : ''}`);
        out(key.key);
        out('Store it now: only its hash is kept.');
        return 0;
      }
      case 'keys list': {
        const keys = await listKeys(db, values.project);
        for (const k of keys) {
          const state = k.revokedMs ? 'revoked' : k.expiresMs && k.expiresMs <= clock.now() ? 'expired' : 'active';
          out(`${k.id}  ${k.scope.padEnd(7)}  ${state.padEnd(7)}  ${k.displayPrefix}…  ${k.name}  project=${k.projectId}`);
        }
        if (keys.length === 0) out('no keys');
        return 0;
      }
      case 'keys revoke': {
        const [id] = rest;
        if (!id) throw new UsageError('keys revoke needs the key id (see keys list)');
        if (!(await revokeKey(db, clock, id))) throw new UsageError(`no key with id ${id}`);
        out(`revoked key ${id}`);
        return 0;
      }
      case 'apps create': {
        const [name] = rest;
        if (!name) throw new UsageError('apps create needs the app name');
        const app = await registerApp(db, clock, await projectOf(db, values.project), name);
        out(`created app ${app.name} (${app.id})`);
        return 0;
      }
      case 'apps list': {
        for (const a of await listApps(db, values.project)) {
          out(`${a.name}${a.aliases.length ? `  aliases: ${a.aliases.join(', ')}` : ''}  project=${a.projectId}`);
        }
        return 0;
      }
      case 'apps alias': {
        const [op, app, alias] = rest;
        if ((op !== 'add' && op !== 'remove') || !app || !alias) throw new UsageError('usage: apps alias add|remove APP ALIAS');
        const projectId = await projectOf(db, values.project);
        if (op === 'add') await addAlias(db, clock, projectId, app, alias);
        else await removeAlias(db, projectId, app, alias);
        out(`${op === 'add' ? 'added' : 'removed'} alias ${alias} ${op === 'add' ? 'to' : 'from'} ${app}`);
        return 0;
      }
      default:
        throw new UsageError(`unknown command "${command}"\n${ADMIN_USAGE}`);
    }
  } catch (err) {
    if (err instanceof ApiError) throw new UsageError(err.message);
    throw err;
  } finally {
    await handle.close();
  }
}
