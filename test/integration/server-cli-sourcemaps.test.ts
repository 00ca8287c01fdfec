/**
 * `svc-server sourcemaps inject|upload` as a CI job runs it: the built CLI on a build's output directory (made by
 * esbuild without the plugin, laid out like Create React App's), uploading to a real `svc-server start`.
 */
import { execFile, spawnSync, type ExecFileException } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { buildSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../support/child-env';
import { commitAll } from '../support/git-checkout';
import { SERVER_CLI } from '../support/server-process';
import { controlGet, startCliServer, type CliServer, type TestServer } from '../support/svc-server';

const work = mkdtempSync(join(tmpdir(), 'svc-cli-sourcemaps-'));
const src = join(work, 'src');
mkdirSync(src);
writeFileSync(join(src, 'index.js'), `import('./cart.js').then((m) => m.checkout([1, 2]));\n`);
writeFileSync(
  join(src, 'cart.js'),
  `function total(items) {\n  throw new Error('cart total failed ' + items.length);\n}\nexport function checkout(items) {\n  return total(items);\n}\n`,
);

/** A fresh build output: static/js/ with two chunks and their maps, plus a file with no JavaScript in it. */
function buildOutput(name: string): string {
  const out = join(work, name);
  buildSync({
    entryPoints: [join(src, 'index.js')],
    bundle: true,
    splitting: true,
    format: 'esm',
    minify: true,
    sourcemap: true,
    outdir: join(out, 'static/js'),
    logLevel: 'silent',
  });
  writeFileSync(join(out, 'index.html'), '<script type="module" src="/static/js/index.js"></script>');
  return out;
}
const jsFiles = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.js'))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
const mapFiles = (dir: string) => readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.map'));
const idOf = (dir: string, file: string) => /\/\/# debugId=(\S+)/.exec(readFileSync(join(dir, file), 'utf8'))?.[1];

const execFileAsync = promisify(execFile);

/**
 * Runs the built CLI. Not with spawnSync: a test's event loop blocked for seconds misses the moment its idle keep-alive
 * connections to the server expire, and its next request goes out on a socket the server has closed.
 */
async function cli(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [SERVER_CLI, 'sourcemaps', ...args], {
      encoding: 'utf8',
      env: childEnv(env),
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (error) {
    const failed = error as ExecFileException & { stdout: string; stderr: string };
    return { code: typeof failed.code === 'number' ? failed.code : null, out: failed.stdout, err: failed.stderr };
  }
}

let server: CliServer;
let project: TestServer;
beforeAll(async () => {
  server = await startCliServer();
  project = await server.newProject();
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

const stored = async (release: string) => {
  const res = await controlGet<{ data: { debug_id: string; url: string; release: string | null }[] }>(
    project,
    `/sourcemaps?release=${release}`,
  );
  expect(res.status).toBe(200);
  return res.body.data;
};

describe('svc-server sourcemaps', () => {
  it('inject gives every JavaScript file a debug ID, prints each, and changes nothing the second time', async () => {
    const dir = buildOutput('inject');
    const first = await cli(['inject', dir]);
    expect(first.code, first.err).toBe(0);
    const files = jsFiles(dir);
    expect(files).toHaveLength(2);
    for (const file of files) {
      const id = idOf(dir, file)!;
      expect(first.out).toContain(`${id}  ${file}\n`);
      expect((JSON.parse(readFileSync(join(dir, `${file}.map`), 'utf8')) as { debugId: string }).debugId).toBe(id);
    }
    expect(first.out).toContain('debug IDs in 2 files (2 new)');
    const before = files.map((f) => readFileSync(join(dir, f), 'utf8'));
    const second = await cli(['inject', dir]);
    expect(second.code, second.err).toBe(0);
    expect(second.out).toContain('(had its id)');
    expect(second.out).toContain('debug IDs in 2 files (0 new)');
    expect(files.map((f) => readFileSync(join(dir, f), 'utf8'))).toEqual(before);
  });

  it('upload injects, uploads the maps with the release and URL prefix, and the server lists them', async () => {
    const dir = buildOutput('upload');
    const res = await cli([
      'upload',
      dir,
      '--release',
      'shop@1.4.0',
      '--url-prefix',
      '~/app',
      '--url',
      project.url,
      '--control-key',
      project.controlKey,
    ]);
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain('2 maps uploaded');
    const maps = await stored('shop@1.4.0');
    expect(maps.map((m) => [m.debug_id, m.url]).sort()).toEqual(
      jsFiles(dir)
        .map((f) => [idOf(dir, f), `~/app/${f}`])
        .sort(),
    );
    expect(mapFiles(dir)).toHaveLength(2);
  });

  it('takes the server and key from SVC_URL and SVC_CONTROL_KEY, and --delete-after-upload leaves no map and no sourceMappingURL', async () => {
    const dir = buildOutput('private');
    const res = await cli(['upload', dir, '--release', 'shop@1.5.0', '--delete-after-upload'], {
      SVC_URL: project.url,
      SVC_CONTROL_KEY: project.controlKey,
    });
    expect(res.code, res.err).toBe(0);
    expect(res.out).toContain('2 maps deleted');
    expect(mapFiles(dir)).toEqual([]);
    for (const file of jsFiles(dir)) expect(readFileSync(join(dir, file), 'utf8')).not.toContain('sourceMappingURL');
    expect((await stored('shop@1.5.0')).map((m) => m.url).sort()).toEqual(jsFiles(dir).map((f) => `~/${f}`));
  });

  it("exits 1 with the server's answer when it refuses the key, and keeps the maps", async () => {
    const dir = buildOutput('refused');
    const res = await cli([
      'upload',
      dir,
      '--delete-after-upload',
      '--url',
      project.url,
      '--control-key',
      project.ingestKey,
    ]);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/^svc-server: svc refused the source maps \(static\/js\/.*\): 40[13] \w+: /);
    expect(mapFiles(dir)).toHaveLength(2);
  });

  it('exits 1 naming the server when it cannot be reached', async () => {
    const res = await cli([
      'upload',
      buildOutput('unreachable'),
      '--url',
      'http://127.0.0.1:9',
      '--control-key',
      project.controlKey,
    ]);
    expect(res.code).toBe(1);
    expect(res.err).toContain('svc-server: could not reach svc at http://127.0.0.1:9/control-plane/sourcemaps');
  });

  it('exits 2 on usage mistakes, and 1 on a directory without JavaScript', async () => {
    const dir = buildOutput('mistakes');
    const cases: [string[], Record<string, string>, number, string][] = [
      [
        ['upload', dir, '--url', project.url],
        {},
        2,
        'sourcemaps upload needs a control key: --control-key KEY (or SVC_CONTROL_KEY)',
      ],
      [
        ['upload', dir],
        { SVC_CONTROL_KEY: project.controlKey },
        2,
        'sourcemaps upload needs the server: --url URL (or SVC_URL)',
      ],
      [['inject', dir, '--release', 'x'], {}, 2, '--release is an option of sourcemaps upload, not inject'],
      [['inject', join(work, 'missing')], {}, 2, `${join(work, 'missing')} is not a directory`],
      [['inject'], {}, 2, 'usage: sourcemaps inject DIR | sourcemaps upload DIR [options]'],
      [['inject', dir, '--colour'], {}, 2, "Unknown option '--colour'"],
      [['inject', src, 'extra'], {}, 2, 'usage: sourcemaps inject DIR'],
    ];
    mkdirSync(join(work, 'empty'));
    cases.push([['inject', join(work, 'empty')], {}, 1, `no .js, .mjs or .cjs files under ${join(work, 'empty')}`]);
    for (const [args, env, code, message] of cases) {
      const res = await cli(args, env);
      expect({ args, code: res.code }).toEqual({ args, code });
      expect(res.err).toContain(message);
    }
    expect(existsSync(join(dir, 'static/js/index.js.map'))).toBe(true);
    expect(jsFiles(dir).every((f) => idOf(dir, f) === undefined)).toBe(true);
  });

  it('is in the help', () => {
    const res = spawnSync(process.execPath, [SERVER_CLI, '--help'], { encoding: 'utf8', env: childEnv() });
    expect(res.stdout).toContain('svc-server sourcemaps upload DIR [--release NAME] [--url-prefix ~/assets]');
  });
});

describe('svc-server sourcemaps upload: the release', () => {
  /** A build's output inside a git checkout of the app, as a CI job has it; returns the output and the commit. */
  function builtInCheckout(name: string): { dir: string; sha: string } {
    const checkout = join(work, name);
    mkdirSync(checkout);
    writeFileSync(join(checkout, 'package.json'), '{"name": "shop"}\n');
    const sha = commitAll(checkout);
    return { dir: buildOutput(join(name, 'build')), sha };
  }
  const upload = (dir: string, args: string[] = [], env: Record<string, string> = {}) =>
    cli(['upload', dir, ...args], { SVC_URL: project.url, SVC_CONTROL_KEY: project.controlKey, ...env });
  const idsOf = (dir: string) => jsFiles(dir).map((f) => idOf(dir, f));

  it('defaults to the commit SHA of the checkout the output is in, wherever it is run', async () => {
    const { dir, sha } = builtInCheckout('checkout-sha');
    const res = await upload(dir);
    expect(res.code, res.err).toBe(0);
    expect((await stored(sha)).map((m) => m.debug_id).sort()).toEqual(idsOf(dir).sort());
  });

  it('--release, else SVC_RELEASE, wins over the commit; outside a checkout there is none', async () => {
    const { dir } = builtInCheckout('checkout-flag');
    expect((await upload(dir, ['--release', 'shop@2.0.0'], { SVC_RELEASE: 'shop@env' })).code).toBe(0);
    expect((await stored('shop@2.0.0')).map((m) => m.debug_id).sort()).toEqual(idsOf(dir).sort());
    const fromEnv = builtInCheckout('checkout-env');
    expect((await upload(fromEnv.dir, [], { SVC_RELEASE: 'shop@env' })).code).toBe(0);
    expect((await stored('shop@env')).map((m) => m.debug_id).sort()).toEqual(idsOf(fromEnv.dir).sort());

    const outside = buildOutput('no-checkout');
    expect((await upload(outside)).code).toBe(0);
    const all = await controlGet<{ data: { debug_id: string; release: string | null }[] }>(
      project,
      '/sourcemaps?limit=1000',
    );
    for (const id of idsOf(outside)) expect(all.body.data.find((m) => m.debug_id === id)?.release).toBeNull();
  });
});
