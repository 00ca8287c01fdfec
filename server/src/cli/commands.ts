import { parseArgs } from 'node:util';
import type { Kysely } from 'kysely';
import { systemClock } from '../clock';
import type { Database, KeyScope } from '../db/schema';
import { addAlias, listApps, registerApp, removeAlias } from '../projects/apps-store';
import { createKey, KEY_SCOPES, listKeys, revokeKey } from '../projects/keys-store';
import { createProvisionedProject } from '../projects/provision';
import { listProjects } from '../projects/store';
import { DomainError } from '../shared/domain-errors';
import { expectedPublicUrl } from './console-link';
import { openServerDatabase } from './database';
import { projectOf, tenantOf, UsageError } from './resolve';

export const ADMIN_USAGE = `Administration (works on the database directly; the server may be running):
  svc-server projects create NAME [--tenant ID|NAME]    prints its id, an ingest key and a control key
  svc-server projects list [--tenant ID|NAME]
  svc-server keys create --scope ingest|control|read [--name NAME] [--expires-in-days N] [--project ID|NAME]
  svc-server keys create --scope admin [--name NAME] [--expires-in-days N] [--tenant ID|NAME]
  svc-server keys list [--project ID|NAME]
  svc-server keys revoke KEY_ID
  svc-server apps create NAME [--project ID|NAME]
  svc-server apps list [--project ID|NAME]
  svc-server apps alias add APP ALIAS [--project ID|NAME]
  svc-server apps alias remove APP ALIAS [--project ID|NAME]
Each works on the server's database: --database-url, else SVC_DATABASE_URL, else the nearest .svc-data/svc.db in this
folder or one above it (where \`npm start\` keeps it); it says which on stderr, and never makes one.
--project and --tenant may be left out when the database has one.
An admin key is tenant-wide: it manages projects over HTTP (/control-plane/projects) and signs in to the console, where
it switches between the tenant's projects.`;

/** The first word of every administration command. */
export const ADMIN_GROUPS: readonly string[] = ['projects', 'keys', 'apps'];

type Out = (line: string) => void;
type Values = Partial<Record<'project' | 'tenant' | 'scope' | 'name' | 'expires-in-days', string>>;
interface Context {
  db: Kysely<Database>;
  values: Values;
  /** The words after the command, e.g. the app name of `apps create NAME`. */
  rest: string[];
  out: Out;
  /** The server's address, for the links commands print. */
  publicUrl: string;
}

const clock = systemClock;

async function createKeyCommand({ db, values, out }: Context): Promise<void> {
  const scope = values.scope as KeyScope | undefined;
  if (!scope || !KEY_SCOPES.includes(scope)) throw new UsageError(`--scope must be one of ${KEY_SCOPES.join(', ')}`);
  const days = values['expires-in-days'];
  if (days !== undefined && !/^[1-9]\d{0,4}$/.test(days))
    throw new UsageError('--expires-in-days must be a whole number of days');
  let projectId: string;
  if (scope === 'admin') {
    if (values.project !== undefined) throw new UsageError('an admin key is tenant-wide: pass --tenant, not --project');
    // The key row needs a project; any of the tenant's will do, and the oldest one lasts.
    const tenant = await tenantOf(db, values.tenant);
    const [anchor] = await listProjects(db, tenant.id);
    if (!anchor)
      throw new UsageError(`tenant ${tenant.name} has no project yet: create one with svc-server projects create NAME`);
    projectId = anchor.id;
  } else {
    if (values.tenant !== undefined)
      throw new UsageError(`a ${scope} key belongs to a project: pass --project, not --tenant`);
    projectId = (await projectOf(db, values.project)).id;
  }
  const key = await createKey(db, clock, {
    projectId,
    scope,
    ...(values.name !== undefined ? { name: values.name } : {}),
    expiresMs: days ? clock.now() + Number(days) * 86_400_000 : null,
  });
  const reach = scope === 'admin' ? 'tenant-wide' : `project ${projectId}`;
  out(
    `created ${key.scope} key ${key.id} (${reach})${key.expiresMs ? ` (expires ${new Date(key.expiresMs).toISOString()})` : ''}`,
  );
  out(key.key);
  out('Store it now: only its hash is kept.');
}

async function listKeysCommand({ db, values, out }: Context): Promise<void> {
  const keys = await listKeys(db, values.project === undefined ? undefined : (await projectOf(db, values.project)).id);
  for (const k of keys) {
    const state = k.revokedMs ? 'revoked' : k.expiresMs && k.expiresMs <= clock.now() ? 'expired' : 'active';
    const reach = k.scope === 'admin' ? 'tenant-wide' : `project=${k.projectId}`;
    out(`${k.id}  ${k.scope.padEnd(7)}  ${state.padEnd(7)}  ${k.displayPrefix}…  ${k.name}  ${reach}`);
  }
  if (keys.length === 0) out('no keys');
}

async function createProjectCommand({ db, values, rest, out, publicUrl }: Context): Promise<void> {
  const [name] = rest;
  if (name === undefined) throw new UsageError('projects create needs the project name');
  const tenant = await tenantOf(db, values.tenant);
  const created = await createProvisionedProject(db, clock, tenant.id, name);
  const { id } = created.project;
  out(`created project ${name} in tenant ${tenant.name}`);
  out(`  project id:   ${id}`);
  out(
    `  app:          ${created.appName}  (serviceName for the SDK; add more with: svc-server apps create NAME --project ${id})`,
  );
  out(`  ingest key:   ${created.ingestKey.key}`);
  out(`  control key:  ${created.controlKey.key}`);
  // The address alone: a key never rides in a printed URL, which ends up in shell history and chat.
  out(
    `  console:      ${publicUrl}/setup  (sign in with the control key, "Use an API key instead"; it shows how to send the first event)`,
  );
  out('Store the control key now: only its hash is kept (the console shows the ingest key again).');
}

async function listProjectsCommand({ db, values, out }: Context): Promise<void> {
  const projects = await listProjects(
    db,
    values.tenant === undefined ? undefined : (await tenantOf(db, values.tenant)).id,
  );
  for (const p of projects)
    out(`${p.id}  ${p.name}  created ${new Date(p.createdMs).toISOString()}  tenant=${p.tenantId}`);
  if (projects.length === 0) out('no projects');
}

const COMMANDS: Record<string, (context: Context) => Promise<void>> = {
  'projects create': createProjectCommand,
  'projects list': listProjectsCommand,
  'keys create': createKeyCommand,
  'keys list': listKeysCommand,
  'keys revoke': async ({ db, rest: [id], out }) => {
    if (!id) throw new UsageError('keys revoke needs the key id (see keys list)');
    if (!(await revokeKey(db, clock, id))) throw new UsageError(`no key with id ${id}`);
    out(`revoked key ${id}`);
  },
  'apps create': async ({ db, values, rest: [name], out }) => {
    if (!name) throw new UsageError('apps create needs the app name');
    const app = await registerApp(db, clock, (await projectOf(db, values.project)).id, name);
    out(`created app ${app.name} (${app.id})`);
  },
  'apps list': async ({ db, values, out }) => {
    const projectId = values.project === undefined ? undefined : (await projectOf(db, values.project)).id;
    for (const a of await listApps(db, projectId)) {
      out(`${a.name}${a.aliases.length ? `  aliases: ${a.aliases.join(', ')}` : ''}  project=${a.projectId}`);
    }
  },
  'apps alias': async ({ db, values, rest: [op, app, alias], out }) => {
    if ((op !== 'add' && op !== 'remove') || !app || !alias)
      throw new UsageError('usage: apps alias add|remove APP ALIAS');
    const projectId = (await projectOf(db, values.project)).id;
    if (op === 'add') await addAlias(db, clock, projectId, app, alias);
    else await removeAlias(db, projectId, app, alias);
    out(`${op === 'add' ? 'added' : 'removed'} alias ${alias} ${op === 'add' ? 'to' : 'from'} ${app}`);
  },
};

/**
 * Runs `projects …`, `keys …` or `apps …` in `cwd` (where the database is looked for). Prints results on `out`, the
 * database used on `note`. Returns the process exit code.
 */
export async function runAdminCommand(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  out: Out,
  note: Out,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      'database-url': { type: 'string' },
      project: { type: 'string' },
      tenant: { type: 'string' },
      scope: { type: 'string' },
      name: { type: 'string' },
      'expires-in-days': { type: 'string' },
    },
  });
  const [group, action, ...rest] = positionals;
  const command = `${group ?? ''} ${action ?? ''}`.trim();
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined;
  // Checked before the database is opened, so a typo creates no database file.
  if (!run) throw new UsageError(`unknown command "${command}"\n${ADMIN_USAGE}`);
  const handle = await openServerDatabase(values['database-url'], env, cwd, note);
  try {
    await run({ db: handle.db, values, rest, out, publicUrl: expectedPublicUrl(env) });
    return 0;
  } catch (err) {
    if (err instanceof DomainError) throw new UsageError(err.message);
    throw err;
  } finally {
    await handle.close();
  }
}
