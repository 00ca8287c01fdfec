import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import {
  accessSync,
  constants,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { needsMemoryRelaunch } from '../../server/src/runtime/memory-relaunch';
import { childEnv } from '../support/child-env';
import { esmGraph } from '../support/dist-graph';
import { eventually } from '../support/until';
import { traceBody } from '../support/otlp';

// The shipped bin (built by the global setup, test/support/build-server.ts): what `npm start` runs.
const ROOT = resolve(__dirname, '../..');
const CLI = resolve(ROOT, 'server/dist/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
const databaseUrl = join(dir, 'data', 'svc.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}, cwd = ROOT) {
  const res = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, SVC_DATABASE_URL: databaseUrl, ...env },
  });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

/** Starts `svc-server start` and resolves with its banner once it is listening. */
function start(env: Record<string, string> = {}, cwd = ROOT) {
  const child = spawn(process.execPath, [CLI, 'start', '--port', '0'], {
    cwd,
    env: { ...process.env, SVC_DATABASE_URL: databaseUrl, ...env },
  });
  let out = '';
  const banner = new Promise<string>((ok, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/control key:|keys: /.test(out)) ok(out);
    });
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${out}`)));
  });
  const stop = () =>
    new Promise<void>((ok) =>
      child.exitCode !== null ? ok() : (child.once('exit', () => ok()), child.kill('SIGTERM')),
    );
  return { banner, stop, child };
}

const field = (banner: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(banner)?.[1];

describe('svc-server CLI', () => {
  let ingestKey = '';

  it("loads the server (Hono, its routes, protobufjs) only to start it: a command's start-up is not the server's", () => {
    const graph = esmGraph(resolve(ROOT, 'server/dist'), 'cli.js');
    const eager = graph.eagerPackages.filter((name) => /^(hono|@hono\/node-server|protobufjs)(\/|$)/.test(name));
    expect(eager, 'packages the bin loads before it knows the command').toEqual([]);
    expect(
      graph.lazy.some((file) => file.startsWith('server-')),
      `lazy: ${graph.lazy.join(', ')}`,
    ).toBe(true);
  });

  it('bootstraps an empty database and prints the URLs and one key of each scope; the keys work', async () => {
    const s = start();
    try {
      const banner = await s.banner;
      const url = field(banner, 'ingest URL')!;
      ingestKey = field(banner, 'ingest key')!;
      const controlKey = field(banner, 'control key')!;
      expect(banner).toContain('/control-plane');
      // The built server writes a file database on its writer thread.
      expect(banner).toContain('(sqlite, writer thread)');
      expect(ingestKey).toMatch(/^svc_ingest_/);
      expect(controlKey).toMatch(/^svc_control_/);
      const res = await fetch(`${url}/otlp/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': ingestKey },
        body: JSON.stringify(traceBody()),
      });
      expect(res.status).toBe(200);
      const spans = await fetch(`${url}/control-plane/spans`, { headers: { authorization: `Bearer ${controlKey}` } });
      expect(((await spans.json()) as { data: unknown[] }).data).toHaveLength(1);
    } finally {
      await s.stop();
    }
  });

  it('prints the same keys after a restart, and the data is still there', async () => {
    const s = start();
    try {
      const banner = await s.banner;
      expect(field(banner, 'ingest key')).toBe(ingestKey);
    } finally {
      await s.stop();
    }
  });

  it('creates, lists and revokes keys', () => {
    const created = run(['keys', 'create', '--scope', 'control', '--name', 'ci', '--expires-in-days', '7']);
    expect(created.code, created.err).toBe(0);
    const [header, key] = created.out.trim().split('\n');
    const id = /key (\S+)/.exec(header!)![1]!;
    expect(key).toMatch(/^svc_control_/);
    expect(run(['keys', 'list']).out).toMatch(new RegExp(`${id}\\s+control\\s+active\\s+svc_control_`));
    expect(run(['keys', 'revoke', id]).code).toBe(0);
    expect(run(['keys', 'list']).out).toMatch(new RegExp(`${id}\\s+control\\s+revoked`));
  });

  it('runs as `npx svc-server` from the repository root, through the committed launcher that npm links', () => {
    // What `npm install` linked: the launcher in the repository, which exists before any build (server/bin/svc-server.js).
    const launcher = resolve(ROOT, 'server/bin/svc-server.js');
    expect(realpathSync(resolve(ROOT, 'node_modules/.bin/svc-server'))).toBe(launcher);
    accessSync(launcher, constants.X_OK);
    expect(readFileSync(launcher, 'utf8')).toMatch(/^#!\/usr\/bin\/env node\n/);

    // A missing link must fail here, not fetch whatever the registry has under that name.
    const npx = (args: string[]) =>
      spawnSync('npx', args, {
        cwd: ROOT,
        encoding: 'utf8',
        env: childEnv({ SVC_DATABASE_URL: databaseUrl, npm_config_yes: 'false', npm_config_offline: 'true' }),
      });
    const help = npx(['svc-server', '--help']);
    expect(help.status, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: svc-server');
    expect(help.stdout).toContain('svc-server projects create NAME');
    const startHelp = npx(['svc-server', 'start', '--help']);
    expect(startHelp.status, startHelp.stderr).toBe(0);
    expect(startHelp.stdout).toBe(help.stdout);
    const list = npx(['svc-server', 'keys', 'list']);
    expect(list.status, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/\sactive\s+svc_ingest_\S*\s+default ingest key\s+project=/);
  });

  it('the launcher says to build first when the build is missing', () => {
    // A copy of the launcher with no dist/ beside it: the state of a fresh clone before `npm run build`.
    mkdirSync(join(dir, 'unbuilt', 'bin'), { recursive: true });
    const copy = join(dir, 'unbuilt', 'bin', 'svc-server.js');
    copyFileSync(resolve(ROOT, 'server/bin/svc-server.js'), copy);
    const res = spawnSync(process.execPath, [copy, '--help'], { encoding: 'utf8' });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain('the server is not built');
    expect(res.stderr).toContain('npm run build');
  });

  it('manages apps and aliases', () => {
    expect(run(['apps', 'create', 'checkout']).code).toBe(0);
    expect(run(['apps', 'alias', 'add', 'checkout', 'checkout-web']).code).toBe(0);
    expect(run(['apps', 'list']).out).toContain('checkout  aliases: checkout-web');
    const taken = run(['apps', 'alias', 'add', 'web-app', 'checkout-web']);
    expect(taken.code).toBe(2);
    expect(taken.err).toContain('already an app name or alias');
    expect(run(['apps', 'alias', 'remove', 'checkout', 'checkout-web']).code).toBe(0);
    expect(run(['apps', 'list']).out).not.toContain('checkout-web');
  });

  it.each([
    [['keys', 'create', '--scope', 'owner'], {}, '--scope must be one of ingest, control, read, admin'],
    [
      ['keys', 'create', '--scope', 'ingest', '--name', ' padded'],
      {},
      'key name must not have leading or trailing spaces',
    ],
    [['keys', 'create', '--scope', 'ingest', '--project', 'nope'], {}, 'no project with id or name "nope"'],
    [['keys', 'create', '--scope', 'admin', '--project', 'default'], {}, 'an admin key is tenant-wide: pass --tenant'],
    [['projects', 'create'], {}, 'projects create needs the project name'],
    [['projects', 'create', 'default'], {}, 'a project named "default" already exists'],
    [
      ['projects', 'create', 'a\u0007b'],
      {},
      'project name must not have leading or trailing spaces or control characters',
    ],
    [['projects', 'create', 'x'.repeat(129)], {}, 'project name must be at most 128 characters'],
    [['projects', 'rename'], {}, 'unknown command "projects rename"'],
    [['keys', 'revoke', 'nope'], {}, 'no key with id nope'],
    [['apps', 'alias', 'remove', 'checkout', 'nope'], {}, 'is not an alias'],
    [['start', '--port', 'abc'], {}, '--port must be an integer'],
    [['start'], { SVC_BODY_LIMIT: 'lots' }, 'SVC_BODY_LIMIT must be a size'],
    [['start'], { SVC_CORS_ORIGINS: 'example.com' }, 'is not an origin'],
    [['start', '--bogus'], {}, 'bogus'],
  ])('fails clearly with exit code 2 for %j', (args, env, message) => {
    const res = run(args, env);
    expect(res.code).toBe(2);
    expect(res.err).toContain(message);
  });

  it('fails with exit code 1 and the reason when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((ok) => blocker.listen(0, '127.0.0.1', () => ok()));
    try {
      const port = String((blocker.address() as AddressInfo).port);
      const res = spawnSync(process.execPath, [CLI, 'start', '--port', port], {
        encoding: 'utf8',
        timeout: 20_000,
        env: { ...process.env, SVC_DATABASE_URL: databaseUrl },
      });
      expect(res.status).toBe(1);
      expect(res.stderr).toContain('EADDRINUSE');
    } finally {
      blocker.close();
    }
  });

  it.runIf(needsMemoryRelaunch({}))(
    'on glibc, start runs the server in a child with MALLOC_ARENA_MAX=2 and a 4 MiB semi-space; the launcher passes signals on, and its death stops the server',
    async () => {
      const launch = async () => {
        const server = start();
        const banner = await server.banner;
        const launcher = server.child.pid!;
        const [childPid] = readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8')
          .trim()
          .split(/\s+/)
          .map(Number);
        const environ = readFileSync(`/proc/${childPid}/environ`, 'utf8').split('\0');
        const cmdline = readFileSync(`/proc/${childPid}/cmdline`, 'utf8').split('\0');
        return { server, banner, launcher, childPid: childPid!, environ, cmdline };
      };
      // Not a child of this process, so there is no exit event to wait for: polled, with no deadline but the test's.
      const gone = (pid: number) =>
        eventually(`process ${pid} to end`, async () => !existsSync(`/proc/${pid}`) || undefined);

      const first = await launch();
      expect(first.environ).toContain('MALLOC_ARENA_MAX=2');
      expect(first.cmdline).toContain('--max-semi-space-size=4');
      expect((await fetch(`${/listening on (\S+)/.exec(first.banner)![1]}/healthz`)).status).toBe(200);
      const exit = new Promise<number | null>((done) => first.server.child.once('exit', (code) => done(code)));
      first.server.child.kill('SIGTERM');
      expect(await exit).toBe(0);
      expect(await gone(first.childPid)).toBe(true);

      // Killed without a chance to pass anything on: the server notices its launcher is gone and stops.
      const second = await launch();
      second.server.child.kill('SIGKILL');
      expect(await gone(second.childPid)).toBe(true);
    },
  );

  it('prints usage with every option and its environment variable', () => {
    const res = run(['--help']);
    for (const name of [
      'SVC_HOST',
      'SVC_PORT',
      'SVC_DATABASE_URL',
      'SVC_PUBLIC_URL',
      'SVC_CORS_ORIGINS',
      'SVC_BODY_LIMIT',
      'SVC_RETENTION_DAYS',
    ]) {
      expect(res.out).toContain(name);
    }
  });
});

describe("the server's database, found as the server finds it", () => {
  // A checkout of its own, where `npm start` (svc-server start at its root, no database named) made .svc-data/.
  const checkout = realpathSync(mkdtempSync(join(dir, 'checkout-')));
  const below = join(checkout, 'server');
  mkdirSync(below);
  // An empty SVC_DATABASE_URL counts as unset, for start and the commands alike.
  const unnamed = { SVC_DATABASE_URL: '' };
  const dataDb = join(checkout, '.svc-data', 'svc.db');
  let ingestKey = '';

  it('start with no database named makes ./.svc-data/svc.db; started from a folder below, it uses that one', async () => {
    const first = start(unnamed, checkout);
    try {
      const banner = await first.banner;
      expect(banner).toContain('database:     ./.svc-data/svc.db (sqlite');
      ingestKey = field(banner, 'ingest key')!;
    } finally {
      await first.stop();
    }
    const again = start(unnamed, below);
    try {
      const banner = await again.banner;
      expect(banner).toContain(`database:     ${dataDb} (sqlite`);
      expect(field(banner, 'ingest key')).toBe(ingestKey);
    } finally {
      await again.stop();
    }
    expect(existsSync(join(below, '.svc-data'))).toBe(false);
  });

  it('commands run in a folder below use it too, and say on stderr which database they use', () => {
    const list = run(['keys', 'list'], unnamed, below);
    expect(list.code, list.err).toBe(0);
    expect(list.err).toBe(`database: ${dataDb} (sqlite; the nearest .svc-data to ${below})\n`);
    const listed = /(svc_ingest_\S+)… {2}default ingest key/.exec(list.out)?.[1];
    expect(listed && ingestKey.startsWith(listed), list.out).toBe(true);
    const created = run(['apps', 'create', 'checkout'], unnamed, below);
    expect(created.code, created.err).toBe(0);
    expect(run(['apps', 'list'], { SVC_DATABASE_URL: dataDb }).out).toContain('checkout  project=');
    expect(run(['keys', 'list'], { SVC_DATABASE_URL: dataDb }).err).toBe(
      `database: ${dataDb} (sqlite; SVC_DATABASE_URL)\n`,
    );
    expect(existsSync(join(below, '.svc-data'))).toBe(false);
  });

  it('never makes a database: none found, a missing file named, or one no server started on is an error that says how to name the right one', () => {
    const elsewhere = realpathSync(mkdtempSync(join(tmpdir(), 'svc-cli-elsewhere-')));
    try {
      const none = run(['keys', 'list'], unnamed, elsewhere);
      expect(none.code).toBe(2);
      expect(none.err).toContain(
        `no database at ${join(elsewhere, '.svc-data', 'svc.db')} (there is no .svc-data/svc.db in ${elsewhere} or a folder above it)`,
      );
      expect(none.err).toContain(
        'Start the server first (`npm start` in the svc checkout, or `svc-server start`), or, if the server runs on another database, name that with --database-url or SVC_DATABASE_URL',
      );
      expect(existsSync(join(elsewhere, '.svc-data'))).toBe(false);

      const missing = join(elsewhere, 'gone', 'svc.db');
      for (const [args, env] of [
        [['apps', 'create', 'x', '--database-url', missing], unnamed],
        [['keys', 'create', '--scope', 'ingest'], { SVC_DATABASE_URL: missing }],
        [['projects', 'create', 'shop'], { SVC_DATABASE_URL: missing }],
      ] as const) {
        const res = run([...args], env, elsewhere);
        expect([args, res.code]).toEqual([args, 2]);
        expect(res.err).toContain(
          `no database at ${missing} (${'SVC_DATABASE_URL' in env && env.SVC_DATABASE_URL ? 'SVC_DATABASE_URL' : '--database-url'})`,
        );
      }
      expect(existsSync(join(elsewhere, 'gone'))).toBe(false);

      // A file no server has started on (here: empty) is not the server's database.
      const empty = join(elsewhere, 'empty.db');
      writeFileSync(empty, '');
      const notStarted = run(['keys', 'list'], { SVC_DATABASE_URL: empty }, elsewhere);
      expect(notStarted.code).toBe(2);
      expect(notStarted.err).toContain(`${empty} holds no svc data: no server has started on it`);
      expect(readFileSync(empty, 'utf8')).toBe('');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe('svc-server projects', () => {
  const projectsDb = join(dir, 'projects', 'svc.db');
  const cli = (args: string[]) => run(args, { SVC_DATABASE_URL: projectsDb });
  const keyOf = (out: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(out)?.[1];
  const send = (url: string, ingestKey: string, name: string) =>
    fetch(`${url}/otlp/v1/traces`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': ingestKey },
      body: JSON.stringify(traceBody([{ name }])),
    });
  const spanNames = async (url: string, controlKey: string) => {
    const res = await fetch(`${url}/control-plane/spans`, { headers: { authorization: `Bearer ${controlKey}` } });
    expect(res.status).toBe(200);
    return ((await res.json()) as { data: { name: string }[] }).data.map((s) => s.name).sort();
  };

  it("creates a second project with its app and keys; each project's keys see only its own data", async () => {
    const first = start({ SVC_DATABASE_URL: projectsDb });
    let a: { url: string; ingestKey: string; controlKey: string };
    try {
      const banner = await first.banner;
      a = {
        url: field(banner, 'ingest URL')!,
        ingestKey: field(banner, 'ingest key')!,
        controlKey: field(banner, 'control key')!,
      };
    } finally {
      await first.stop();
    }

    // The console link of the new project, to the address the server is reached at (SVC_PUBLIC_URL).
    const created = run(['projects', 'create', 'shop'], {
      SVC_DATABASE_URL: projectsDb,
      SVC_PUBLIC_URL: 'https://svc.example.test/',
    });
    expect(created.code, created.err).toBe(0);
    const projectId = keyOf(created.out, 'project id')!;
    const b = { ingestKey: keyOf(created.out, 'ingest key')!, controlKey: keyOf(created.out, 'control key')! };
    expect(created.out).toContain('app:          web-app');
    expect(created.out).toContain('console:      https://svc.example.test/setup  (sign in with the control key');
    // No key rides in a printed URL.
    expect(created.out).not.toMatch(/https?:\S*svc_control_/);
    expect(b.ingestKey).toMatch(/^svc_ingest_/);
    expect(b.controlKey).toMatch(/^svc_control_/);
    expect(cli(['projects', 'list']).out).toMatch(new RegExp(`${projectId}  shop  created `));
    expect(cli(['apps', 'list', '--project', 'shop']).out).toBe(`web-app  project=${projectId}\n`);

    // Two projects now: a project-scoped command must say which (by id or name).
    const ambiguous = cli(['keys', 'create', '--scope', 'ingest']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.err).toContain('the database has 2 projects: pass --project');
    const extra = cli(['keys', 'create', '--scope', 'ingest', '--project', 'shop', '--name', 'storefront']);
    expect(extra.code, extra.err).toBe(0);
    expect(extra.out).toContain(`(project ${projectId})`);
    const extraKey = extra.out.split('\n')[1]!;

    const again = start({ SVC_DATABASE_URL: projectsDb });
    try {
      const url = field(await again.banner, 'ingest URL')!;
      expect((await send(url, a.ingestKey, 'from-a')).status).toBe(200);
      expect((await send(url, b.ingestKey, 'from-b')).status).toBe(200);
      expect((await send(url, extraKey, 'from-b-storefront')).status).toBe(200);
      expect(await spanNames(url, a.controlKey)).toEqual(['from-a']);
      expect(await spanNames(url, b.controlKey)).toEqual(['from-b', 'from-b-storefront']);
    } finally {
      await again.stop();
    }
  });

  it('makes a tenant-wide admin key, listed as such; a taken name changes nothing', () => {
    const admin = cli(['keys', 'create', '--scope', 'admin', '--name', 'ops']);
    expect(admin.code, admin.err).toBe(0);
    expect(admin.out).toMatch(/^created admin key \S+ \(tenant-wide\)\nsvc_admin_\S+\n/);
    expect(cli(['keys', 'list']).out).toMatch(/\sadmin\s+active\s+svc_admin_\S*\s+ops\s+tenant-wide\n/);

    const before = cli(['projects', 'list']).out;
    const taken = cli(['projects', 'create', 'shop']);
    expect(taken.code).toBe(2);
    expect(taken.err).toContain('a project named "shop" already exists');
    expect(cli(['projects', 'list']).out).toBe(before);
  });
});
