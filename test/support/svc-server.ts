import { randomBytes } from 'node:crypto';
import { createLastingDatabase, runServerCli, startServerProcess, type ServerProcess } from './server-process';

/**
 * What an end-to-end spec talks to: a project on a reference server run as a user runs it, `svc-server start` from the
 * build (server/dist/cli.js, relaunched with its memory settings) on a SQLite file, hence with the ingest writer thread.
 * Everything a spec does goes over HTTP or through the `svc-server` administration commands, never into the database.
 */
export interface TestServer {
  /** Ingest and control plane, e.g. http://127.0.0.1:41234 */
  url: string;
  ingestKey: string;
  controlKey: string;
  /** The project's app, `web-app`: the SDK's default serviceName. */
  appName: string;
  /** Everything the server process printed so far, stdout and stderr interleaved. */
  output(): string;
  close(): Promise<void>;
}

/** A `svc-server start` process of its own, on a SQLite file of its own; its own fields are its first project's. */
export interface CliServer extends TestServer {
  databaseUrl: string;
  process: ServerProcess;
  /** Runs `svc-server <args> --database-url <this database>` (e.g. `apps alias add web-app shop`); resolves with its stdout. */
  admin(...args: string[]): Promise<string>;
  /**
   * A new project on this server, with its `web-app` and an ingest and a control key, as `POST /control-plane/projects`
   * makes it (with an admin key, made once with `svc-server keys create --scope admin`): a clean slate for one test
   * without a server of its own. It lasts as long as the server's database; its close() does nothing.
   */
  newProject(): Promise<TestServer>;
  /** Stops the server (SIGTERM, its graceful shutdown) and deletes its database. */
  close(): Promise<void>;
}

/** Starts `svc-server start --port 0` on a fresh SQLite file, with `flags` besides (e.g. `{ 'cors-origins': … }`). */
export async function startCliServer(flags: Record<string, string> = {}): Promise<CliServer> {
  const database = await createLastingDatabase('sqlite');
  let server: ServerProcess;
  try {
    server = await startServerProcess({ ...flags, 'database-url': database.url }, { relaunch: true });
  } catch (error) {
    await database.drop();
    throw error;
  }
  const close = async () => {
    await server.stop();
    await database.drop();
  };
  if (!server.ingestKey || !server.controlKey || !/database:.*\(sqlite, writer thread\)/.test(server.output())) {
    await close();
    throw new Error(`svc-server did not start on a SQLite file with its writer thread and keys:\n${server.output()}`);
  }
  const appName = /app:\s+(\S+)/.exec(server.output())?.[1] ?? 'web-app';
  const admin = (...args: string[]) => runServerCli([...args, '--database-url', database.url]);
  let adminKey: Promise<string> | undefined;
  return {
    url: server.url,
    ingestKey: server.ingestKey,
    controlKey: server.controlKey,
    appName,
    output: server.output,
    databaseUrl: database.url,
    process: server,
    admin,
    async newProject() {
      adminKey ??= admin('keys', 'create', '--scope', 'admin', '--name', 'e2e').then((out) => {
        const key = /^svc_admin_\S+$/m.exec(out)?.[0];
        if (!key) throw new Error(`no admin key in the output of svc-server keys create:\n${out}`);
        return key;
      });
      const res = await fetch(`${server.url}/control-plane/projects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `e2e-${randomBytes(6).toString('hex')}` }),
      });
      const text = await res.text();
      if (res.status !== 201) throw new Error(`POST /control-plane/projects answered ${res.status}: ${text}`);
      const project = JSON.parse(text) as { app: string; ingest_key: { key: string }; control_key: { key: string } };
      return {
        url: server.url,
        ingestKey: project.ingest_key.key,
        controlKey: project.control_key.key,
        appName: project.app,
        output: server.output,
        close: async () => undefined,
      };
    },
    close,
  };
}

/** GET a control-plane path with the control key; returns the parsed JSON body and status. */
export async function controlGet<T = { data: Record<string, unknown>[]; next_cursor: string | null }>(
  t: Pick<TestServer, 'url' | 'controlKey'>,
  path: string,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${t.url}/control-plane${path}`, { headers: { authorization: `Bearer ${t.controlKey}` } });
  return { status: res.status, body: (await res.json()) as T };
}
