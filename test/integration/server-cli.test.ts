import { spawn, spawnSync } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { needsMemoryRelaunch } from '../../server/src/runtime/memory-relaunch';
import { traceBody } from '../support/otlp';

// The shipped bin (built by the global setup, test/support/build-server.ts): what `npm start` runs.
const CLI = resolve(__dirname, '../../server/dist/cli.js');
const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
const databaseUrl = join(dir, 'data', 'svc.db');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}) {
  const res = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { ...process.env, SVC_DATABASE_URL: databaseUrl, ...env } });
  return { code: res.status, out: res.stdout, err: res.stderr };
}

/** Starts `svc-server start` and resolves with its banner once it is listening. */
function start(env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [CLI, 'start', '--port', '0'], { env: { ...process.env, SVC_DATABASE_URL: databaseUrl, ...env } });
  let out = '';
  const banner = new Promise<string>((ok, fail) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (/control key:|keys: /.test(out)) ok(out);
    });
    child.once('exit', (code) => fail(new Error(`exited ${code}: ${out}`)));
  });
  const stop = () => new Promise<void>((ok) => (child.exitCode !== null ? ok() : (child.once('exit', () => ok()), child.kill('SIGTERM'))));
  return { banner, stop, child };
}

const field = (banner: string, label: string) => new RegExp(`${label}:\\s+(\\S+)`).exec(banner)?.[1];

describe('svc-server CLI', () => {
  let ingestKey = '';

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
    [['keys', 'create', '--scope', 'admin'], {}, '--scope must be ingest or control'],
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

  it.runIf(needsMemoryRelaunch({}))('on glibc, start runs the server in a child with MALLOC_ARENA_MAX=2 and a 4 MiB semi-space; the launcher passes signals on, and its death stops the server', async () => {
    const launch = async () => {
      const server = start();
      const banner = await server.banner;
      const launcher = server.child.pid!;
      const [childPid] = readFileSync(`/proc/${launcher}/task/${launcher}/children`, 'utf8').trim().split(/\s+/).map(Number);
      const environ = readFileSync(`/proc/${childPid}/environ`, 'utf8').split('\0');
      const cmdline = readFileSync(`/proc/${childPid}/cmdline`, 'utf8').split('\0');
      return { server, banner, launcher, childPid: childPid!, environ, cmdline };
    };
    const gone = async (pid: number) => {
      for (let i = 0; i < 100 && existsSync(`/proc/${pid}`); i++) await new Promise((done) => setTimeout(done, 100));
      return !existsSync(`/proc/${pid}`);
    };

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
  });

  it('prints usage with every option and its environment variable', () => {
    const res = run(['--help']);
    for (const name of ['SVC_HOST', 'SVC_PORT', 'SVC_DATABASE_URL', 'SVC_PUBLIC_URL', 'SVC_CORS_ORIGINS', 'SVC_BODY_LIMIT', 'SVC_RETENTION_DAYS']) {
      expect(res.out).toContain(name);
    }
  });
});
