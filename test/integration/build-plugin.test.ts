/**
 * @svc/build in real builds: a two-module app (the second module loaded on demand, so each build emits two files) built
 * with Vite, Rollup, webpack and esbuild through the plugin, uploading to a real `svc-server start`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import * as esbuild from 'esbuild';
import { rollup } from 'rollup';
import { build as viteBuild } from 'vite';
import webpack, { type Configuration } from 'webpack';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debugIdSnippet } from '../../bundler-plugin/src/core/inject';
import { svcEsbuildPlugin } from '../../bundler-plugin/src/esbuild';
import { withSvc, type NextConfigLike, type WebpackConfigLike } from '../../bundler-plugin/src/next';
import type { SvcBuildOptions } from '../../bundler-plugin/src/plugin';
import { svcRollupPlugin } from '../../bundler-plugin/src/rollup';
import { svcVitePlugin } from '../../bundler-plugin/src/vite';
import { svcWebpackPlugin } from '../../bundler-plugin/src/webpack';
import { childEnv } from '../support/child-env';
import { commitAll } from '../support/git-checkout';
import { withLock } from '../support/lock';
import { controlGet, startCliServer, type CliServer, type TestServer } from '../support/svc-server';

const ROOT = join(__dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'svc-build-plugin-'));
const app = join(work, 'app');
mkdirSync(join(app, 'src'), { recursive: true });
writeFileSync(
  join(app, 'src/main.js'),
  `export async function start() {\n  const { checkout } = await import('./cart.js');\n  return checkout([1, 2]);\n}\nstart();\n`,
);
writeFileSync(
  join(app, 'src/cart.js'),
  `function total(items) {\n  if (items.length > 1) throw new Error('cart total failed');\n  return items[0];\n}\nexport function checkout(items) {\n  return total(items);\n}\n`,
);
const entry = join(app, 'src/main.js');

let server: CliServer;
beforeAll(async () => {
  server = await startCliServer();
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

type Builder = (outDir: string, options: SvcBuildOptions) => Promise<void>;

const BUILDERS: Record<string, Builder> = {
  vite: async (outDir, options) => {
    await viteBuild({
      root: app,
      configFile: false,
      logLevel: 'silent',
      build: { outDir, emptyOutDir: true, sourcemap: true, rollupOptions: { input: entry } },
      plugins: [svcVitePlugin(options)],
    });
  },
  rollup: async (outDir, options) => {
    const bundle = await rollup({ input: entry, plugins: [svcRollupPlugin(options)] });
    await bundle.write({ dir: outDir, format: 'es', sourcemap: true });
    await bundle.close();
  },
  webpack: (outDir, options) =>
    runWebpack({
      mode: 'production',
      entry,
      devtool: 'source-map',
      output: { path: outDir },
      plugins: [svcWebpackPlugin(options)],
    }),
  esbuild: async (outDir, options) => {
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      splitting: true,
      format: 'esm',
      minify: true,
      sourcemap: true,
      outdir: outDir,
      logLevel: 'silent',
      plugins: [svcEsbuildPlugin(options)],
    });
  },
};

function runWebpack(config: Configuration): Promise<void> {
  return new Promise((done, fail) => {
    webpack({ context: app, ...config, infrastructureLogging: { level: 'error' } }, (error, stats) => {
      if (error) fail(error);
      else if (stats?.hasErrors()) fail(new Error(stats.toString('errors-only')));
      else done();
    });
  });
}

/** Every file under `dir`, relative to it, sorted. */
const filesIn = (dir: string) =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
const jsFilesIn = (dir: string) => filesIn(dir).filter((f) => /\.(?:js|mjs|cjs)$/.test(f));

/** Each emitted file's debug ID, after checking it carries the snippet and the comment and its map the same id. */
function debugIds(dir: string): Record<string, string> {
  const ids: Record<string, string> = {};
  for (const file of jsFilesIn(dir)) {
    const text = readFileSync(join(dir, file), 'utf8');
    const id = /\/\/# debugId=([0-9a-f-]{36})\n/.exec(text)?.[1];
    expect(id, `${file} has no //# debugId=`).toBeDefined();
    expect(text).toContain(debugIdSnippet(id!));
    if (existsSync(join(dir, `${file}.map`))) {
      expect(
        (JSON.parse(readFileSync(join(dir, `${file}.map`), 'utf8')) as { debugId?: string }).debugId,
        `${file}.map`,
      ).toBe(id);
    }
    ids[file] = id!;
  }
  return ids;
}

async function storedMaps(project: TestServer): Promise<{ debug_id: string; url: string; release: string | null }[]> {
  const res = await controlGet<{ data: { debug_id: string; url: string; release: string | null }[] }>(
    project,
    '/sourcemaps?limit=1000',
  );
  expect(res.status).toBe(200);
  return res.body.data;
}

describe.each(Object.keys(BUILDERS))('%s through the plugin', (name) => {
  const build = BUILDERS[name]!;
  const out = (label: string) => join(work, name, label);
  let project: TestServer;
  beforeAll(async () => {
    project = await server.newProject();
  });
  const upload = (more: SvcBuildOptions = {}): SvcBuildOptions => ({
    url: project.url,
    authToken: project.controlKey,
    release: `${name}@1`,
    ...more,
  });

  it('gives every emitted file and its map one debug ID, and uploads the maps', async () => {
    await build(out('first'), upload());
    const ids = debugIds(out('first'));
    expect(Object.keys(ids).length, JSON.stringify(filesIn(out('first')))).toBeGreaterThanOrEqual(2);
    expect(filesIn(out('first')).filter((f) => f.endsWith('.js.map'))).toHaveLength(Object.keys(ids).length);
    const stored = await storedMaps(project);
    expect(stored.map((s) => s.debug_id).sort()).toEqual(Object.values(ids).sort());
    expect(stored.map((s) => s.url).sort()).toEqual(
      Object.keys(ids)
        .map((f) => `~/${f}`)
        .sort(),
    );
    expect(new Set(stored.map((s) => s.release))).toEqual(new Set([`${name}@1`]));
  });

  it('gives identical input identical ids', async () => {
    await build(out('again'), { upload: false });
    expect(debugIds(out('again'))).toEqual(debugIds(out('first')));
  });

  it('deletes the maps and their sourceMappingURL comments after the upload when asked', async () => {
    await build(out('private'), upload({ deleteMapsAfterUpload: true, release: `${name}@2` }));
    expect(filesIn(out('private')).filter((f) => f.endsWith('.map'))).toEqual([]);
    for (const file of jsFilesIn(out('private')))
      expect(readFileSync(join(out('private'), file), 'utf8')).not.toContain('sourceMappingURL');
    const ids = Object.values(debugIds(out('private')));
    const stored = await storedMaps(project);
    for (const id of ids) expect(stored.find((s) => s.debug_id === id)?.release).toBe(`${name}@2`);
  });

  it("fails the build with the server's answer when the key is refused", async () => {
    await expect(build(out('refused'), upload({ authToken: project.ingestKey }))).rejects.toThrow(
      /svc refused the source maps .*: 40[13] /,
    );
  });
});

describe('Vite', () => {
  it('without build.sourcemap: makes hidden maps, uploads them and deletes them', async () => {
    const project = await server.newProject();
    const outDir = join(work, 'vite-hidden');
    await viteBuild({
      root: app,
      configFile: false,
      logLevel: 'silent',
      build: { outDir, emptyOutDir: true, rollupOptions: { input: entry } },
      plugins: [svcVitePlugin({ url: project.url, authToken: project.controlKey, urlPrefix: '~/static' })],
    });
    const ids = debugIds(outDir);
    expect(filesIn(outDir).filter((f) => f.endsWith('.map'))).toEqual([]);
    const stored = await storedMaps(project);
    expect(stored.map((s) => s.debug_id).sort()).toEqual(Object.values(ids).sort());
    expect(stored.map((s) => s.url).sort()).toEqual(
      Object.keys(ids)
        .map((f) => `~/static/${f}`)
        .sort(),
    );
  });

  it('leaves a server-side rendering build alone', async () => {
    const outDir = join(work, 'vite-ssr');
    await viteBuild({
      root: app,
      configFile: false,
      logLevel: 'silent',
      build: { outDir, ssr: entry, sourcemap: true },
      plugins: [svcVitePlugin({ upload: false })],
    });
    const files = jsFilesIn(outDir);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(readFileSync(join(outDir, file), 'utf8')).not.toContain('debugId');
  });

  it('refuses to upload without a control key, saying how to inject only', async () => {
    const saved = process.env.SVC_CONTROL_KEY;
    delete process.env.SVC_CONTROL_KEY;
    try {
      await expect(BUILDERS.vite!(join(work, 'vite-nokey'), { url: server.url })).rejects.toThrow(
        'set the `authToken` option or SVC_CONTROL_KEY, or set `upload: false`',
      );
    } finally {
      if (saved !== undefined) process.env.SVC_CONTROL_KEY = saved;
    }
  });
});

describe('withSvc for Next.js', () => {
  const base: WebpackConfigLike = { mode: 'production', entry, devtool: false, output: { path: '' }, plugins: [] };
  const nextWebpack = async (config: NextConfigLike, isServer: boolean, path: string) => {
    const webpackConfig = { ...base, output: { path } };
    // Next passes its whole WebpackConfigContext; the hook reads isServer.
    const context = { isServer, dev: false, dir: work, buildId: 'test' };
    return config.webpack!(webpackConfig, context);
  };

  /** Runs `work` as `next build` runs the config with Turbopack (the default since Next.js 16): TURBOPACK set. */
  async function underTurbopack<T>(work: () => T | Promise<T>): Promise<T> {
    const saved = process.env.TURBOPACK;
    process.env.TURBOPACK = 'auto';
    try {
      return await work();
    } finally {
      if (saved === undefined) delete process.env.TURBOPACK;
      else process.env.TURBOPACK = saved;
    }
  }

  it("with Turbopack: after the app's own runAfterProductionCompile, debug IDs in .next/static only, maps uploaded under /_next/ and deleted (a stray one too), the release in env", async () => {
    const project = await server.newProject();
    const hooked: string[] = [];
    const userConfig = {
      env: { OTHER: '1' },
      compiler: { runAfterProductionCompile: async ({ distDir }: { distDir: string }) => void hooked.push(distDir) },
    };
    const wrapped = withSvc(userConfig, { url: project.url, authToken: project.controlKey, release: 'shop@5' });
    const config = await underTurbopack(() => wrapped('phase-production-build', { defaultConfig: {} }));
    expect(config).toMatchObject({
      productionBrowserSourceMaps: true,
      env: { OTHER: '1', NEXT_PUBLIC_SVC_SERVICE_VERSION: 'shop@5' },
    });
    expect(config.webpack).toBeUndefined();
    expect(await underTurbopack(() => wrapped('phase-development-server', { defaultConfig: {} }))).toBe(userConfig);

    // What Turbopack leaves in .next/: browser chunks and their maps under static/, a map no file names, server code.
    const distDir = join(work, 'turbopack/.next');
    await runWebpack({
      mode: 'production',
      entry,
      devtool: 'source-map',
      output: { path: distDir, filename: 'static/chunks/[name].js', chunkFilename: 'static/chunks/[id].js' },
    });
    writeFileSync(
      join(distDir, 'static/chunks/polyfill.js.map'),
      '{"version":3,"sources":[],"names":[],"mappings":""}',
    );
    mkdirSync(join(distDir, 'server'));
    writeFileSync(join(distDir, 'server/page.js'), 'module.exports = 1;\n');
    await config.compiler!.runAfterProductionCompile!({ projectDir: work, distDir });

    expect(hooked).toEqual([distDir]);
    const ids = debugIds(join(distDir, 'static'));
    expect(Object.keys(ids).length).toBeGreaterThan(1);
    expect(filesIn(distDir).filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(readFileSync(join(distDir, 'server/page.js'), 'utf8')).toBe('module.exports = 1;\n');
    const stored = await storedMaps(project);
    expect(stored.map((s) => [s.url, s.debug_id]).sort()).toEqual(
      Object.entries(ids)
        .map(([f, id]) => [`~/_next/static/${f}`, id])
        .sort(),
    );
    expect(new Set(stored.map((s) => s.release))).toEqual(new Set(['shop@5']));
  });

  it('fails a Turbopack build on a Next.js without the runAfterProductionCompile hook, saying what to do', async () => {
    const app = join(work, 'next-15.3');
    mkdirSync(join(app, 'node_modules/next'), { recursive: true });
    writeFileSync(join(app, 'node_modules/next/package.json'), '{"name":"next","version":"15.3.2"}');
    const cwd = process.cwd();
    process.chdir(app);
    try {
      const config = withSvc({}, { upload: false });
      await expect(underTurbopack(() => config('phase-production-build', { defaultConfig: {} }))).rejects.toThrow(
        /Next\.js 15\.3\.2 has no `compiler\.runAfterProductionCompile` hook .* upgrade Next\.js, or build with webpack: `next build --webpack`/,
      );
    } finally {
      process.chdir(cwd);
    }
  });

  it("skips Next.js's server compilers when the webpack plugin is added by hand", async () => {
    const path = join(work, 'next-server');
    await runWebpack({
      name: 'server',
      mode: 'production',
      entry,
      devtool: 'source-map',
      output: { path },
      plugins: [svcWebpackPlugin({ upload: false })],
    });
    expect(jsFilesIn(path).length).toBeGreaterThan(0);
    for (const file of jsFilesIn(path)) expect(readFileSync(join(path, file), 'utf8')).not.toContain('debugId');
  });

  it('turns on browser maps, adds the plugin to the client compilation only (after the user webpack hook), uploads under /_next/ and deletes the maps', async () => {
    const project = await server.newProject();
    const seen: boolean[] = [];
    const config = await withSvc(
      (_phase) => ({
        webpack: (c: WebpackConfigLike, { isServer }: { isServer: boolean }) => (seen.push(isServer), c),
      }),
      { url: project.url, authToken: project.controlKey },
    )('phase-production-build', { defaultConfig: {} });
    expect(config.productionBrowserSourceMaps).toBe(true);

    const server_ = await nextWebpack(config, true, join(work, 'next/server'));
    expect(server_.plugins).toEqual([]);
    const client = await nextWebpack(config, false, join(work, 'next/static'));
    expect(seen).toEqual([true, false]);
    expect(client.plugins).toHaveLength(1);

    // Next's client compilation writes to .next/ with chunks under static/: here the output is .next's stand-in.
    await runWebpack({
      ...(client as Configuration),
      devtool: 'source-map',
      output: { path: join(work, 'next'), filename: 'static/chunks/[name].js', chunkFilename: 'static/chunks/[id].js' },
    });
    const ids = debugIds(join(work, 'next'));
    expect(filesIn(join(work, 'next')).filter((f) => f.endsWith('.map'))).toEqual([]);
    const stored = await storedMaps(project);
    expect(stored.map((s) => s.url).sort()).toEqual(
      Object.keys(ids)
        .map((f) => `~/_next/${f}`)
        .sort(),
    );
  });
});

describe('the package as published', () => {
  it('packs its built entry points, which load as ES modules and CommonJS, and the esbuild one injects', async () => {
    await withLock('bundler-plugin-build', 120_000, async () => {
      const built = spawnSync('npm', ['run', 'build', '-w', 'bundler-plugin'], {
        cwd: ROOT,
        encoding: 'utf8',
        env: childEnv(),
      });
      expect(built.status, built.stdout + built.stderr).toBe(0);
    });
    const packed = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '-w', 'bundler-plugin'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: childEnv(),
    });
    expect(packed.status, packed.stderr).toBe(0);
    const [{ files }] = JSON.parse(packed.stdout) as [{ files: { path: string }[] }];
    const pkg = JSON.parse(readFileSync(join(ROOT, 'bundler-plugin/package.json'), 'utf8')) as {
      exports: Record<string, unknown>;
    };
    const targets = (v: unknown): string[] =>
      typeof v === 'string' ? [v] : typeof v === 'object' && v ? Object.values(v).flatMap(targets) : [];
    const paths = files.map((f) => f.path);
    for (const target of targets(pkg.exports)) expect(paths).toContain(target.replace(/^\.\//, ''));

    const requireFromRoot = createRequire(join(ROOT, 'package.json'));
    const names = {
      vite: 'svcVitePlugin',
      rollup: 'svcRollupPlugin',
      webpack: 'svcWebpackPlugin',
      esbuild: 'svcEsbuildPlugin',
      next: 'withSvc',
    };
    for (const [entryName, exported] of Object.entries(names)) {
      const esm = (await import(pathToFileURL(join(ROOT, `bundler-plugin/dist/${entryName}.js`)).href)) as Record<
        string,
        unknown
      >;
      expect(typeof esm[exported], entryName).toBe('function');
      expect(esm.default).toBe(esm[exported]);
      expect(
        typeof (requireFromRoot(`@svc/build/${entryName}`) as Record<string, unknown>)[exported],
        `require @svc/build/${entryName}`,
      ).toBe('function');
    }
    const { svcEsbuildPlugin: fromDist } = (await import(
      pathToFileURL(join(ROOT, 'bundler-plugin/dist/esbuild.js')).href
    )) as { svcEsbuildPlugin: typeof svcEsbuildPlugin };
    const outdir = join(work, 'dist-esbuild');
    await esbuild.build({
      entryPoints: [entry],
      bundle: true,
      outdir,
      sourcemap: true,
      logLevel: 'silent',
      plugins: [fromDist({ upload: false })],
    });
    expect(Object.keys(debugIds(outdir))).toEqual(['main.js']);
  });
});

describe('the release: the commit SHA of the build by default, for the maps and for the SDK', () => {
  /**
   * An app whose page reads its release with the SDK's own reader (src/config/env.ts and what it imports, bundled as
   * it ships), in `dir`.
   * Its bundle runs in a bare context, as in a page: `svcRelease` is what the SDK would send as `service.version`.
   */
  function releaseApp(dir: string): string {
    mkdirSync(join(dir, 'src'), { recursive: true });
    const reader = esbuild.buildSync({
      entryPoints: [join(ROOT, 'src/config/env.ts')],
      bundle: true,
      format: 'esm',
      write: false,
    }).outputFiles[0]!.text;
    writeFileSync(join(dir, 'src/sdk-env.js'), reader);
    writeFileSync(
      join(dir, 'src/main.js'),
      `import { readEnvConfig } from './sdk-env.js';\nglobalThis.svcRelease = readEnvConfig().serviceVersion;\n`,
    );
    return join(dir, 'src/main.js');
  }
  const repo = join(work, 'release-repo');
  const repoEntry = releaseApp(repo);
  const sha = commitAll(repo);
  const plain = join(work, 'release-plain');
  const plainEntry = releaseApp(plain);

  type RootBuilder = (
    root: string,
    main: string,
    outDir: string,
    options: SvcBuildOptions,
    define?: Record<string, string>,
  ) => Promise<void>;
  const ROOT_BUILDERS: Record<'vite' | 'webpack' | 'esbuild', RootBuilder> = {
    vite: async (root, main, outDir, options, define) => {
      await viteBuild({
        root,
        configFile: false,
        logLevel: 'silent',
        define,
        build: { outDir, emptyOutDir: true, sourcemap: true, rollupOptions: { input: main } },
        plugins: [svcVitePlugin(options)],
      });
    },
    webpack: (root, main, outDir, options, define) => {
      const plugins = [...(define ? [new webpack.DefinePlugin(define)] : []), svcWebpackPlugin(options)];
      return runWebpack({
        context: root,
        mode: 'production',
        entry: main,
        devtool: 'source-map',
        output: { path: outDir },
        plugins,
      });
    },
    esbuild: async (root, main, outDir, options, define) => {
      await esbuild.build({
        absWorkingDir: root,
        entryPoints: [main],
        bundle: true,
        minify: true,
        sourcemap: true,
        outdir: outDir,
        logLevel: 'silent',
        define,
        plugins: [svcEsbuildPlugin(options)],
      });
    },
  };

  /** What the SDK in the built page reads as its release. */
  function releaseInBundle(outDir: string): unknown {
    const context: { svcRelease?: unknown } = {};
    for (const file of jsFilesIn(outDir)) runInNewContext(readFileSync(join(outDir, file), 'utf8'), context);
    return context.svcRelease;
  }

  let project: TestServer;
  let uploadTo: SvcBuildOptions;
  beforeAll(async () => {
    project = await server.newProject();
    uploadTo = { url: project.url, authToken: project.controlKey };
  });
  /** The releases of the maps stored for the debug IDs of `outDir`. */
  async function releasesOf(outDir: string): Promise<(string | null)[]> {
    const stored = await storedMaps(project);
    return Object.values(debugIds(outDir)).map((id) => {
      const map = stored.find((s) => s.debug_id === id);
      expect(map, `the map of ${id}`).toBeDefined();
      return map!.release;
    });
  }

  /** Runs `work` with the variables `vars` in this process's environment (where the plugin and bundlers read them). */
  async function withEnv(vars: Record<string, string>, work: () => Promise<void>): Promise<void> {
    const saved = Object.keys(vars).map((key) => [key, process.env[key]] as const);
    Object.assign(process.env, vars);
    try {
      await work();
    } finally {
      for (const [key, value] of saved) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }

  describe.each(Object.keys(ROOT_BUILDERS) as (keyof typeof ROOT_BUILDERS)[])('%s', (name) => {
    const build = ROOT_BUILDERS[name];
    const out = (label: string) => join(work, 'release', name, label);

    it('in a git checkout: stores the maps under the commit SHA, and the SDK in the bundle sends it', async () => {
      await build(repo, repoEntry, out('sha'), uploadTo);
      expect(await releasesOf(out('sha'))).toEqual([sha]);
      expect(releaseInBundle(out('sha'))).toBe(sha);
    });

    it('the release option, else SVC_RELEASE, wins over the commit', async () => {
      await build(repo, repoEntry, out('option'), { ...uploadTo, release: `${name}@9` });
      expect(await releasesOf(out('option'))).toEqual([`${name}@9`]);
      expect(releaseInBundle(out('option'))).toBe(`${name}@9`);
      await withEnv({ SVC_RELEASE: `${name}@env` }, () => build(repo, repoEntry, out('svc-release'), uploadTo));
      expect(await releasesOf(out('svc-release'))).toEqual([`${name}@env`]);
      expect(releaseInBundle(out('svc-release'))).toBe(`${name}@env`);
    });

    it("never overrides the app's own define of the SDK's variable", async () => {
      const key =
        name === 'vite' ? 'import.meta.env.VITE_SVC_SERVICE_VERSION' : 'process.env.REACT_APP_SVC_SERVICE_VERSION';
      await build(repo, repoEntry, out('app-define'), uploadTo, { [key]: JSON.stringify('app@1') });
      expect(releaseInBundle(out('app-define'))).toBe('app@1');
      expect(await releasesOf(out('app-define'))).toEqual([sha]);
    });

    it('outside a git checkout: no release, and nothing defined', async () => {
      await build(plain, plainEntry, out('plain'), uploadTo);
      expect(await releasesOf(out('plain'))).toEqual([null]);
      expect(releaseInBundle(out('plain'))).toBeUndefined();
    });
  });

  it("never overrides the SDK's variable set in the environment: Vite inlines it (a .env file too), webpack defines nothing", async () => {
    await withEnv({ VITE_SVC_SERVICE_VERSION: 'app@2' }, () =>
      ROOT_BUILDERS.vite(repo, repoEntry, join(work, 'release/vite-env'), uploadTo),
    );
    expect(releaseInBundle(join(work, 'release/vite-env'))).toBe('app@2');

    const envDir = join(work, 'release-env');
    mkdirSync(envDir);
    writeFileSync(join(envDir, '.env.production'), 'VITE_SVC_SERVICE_VERSION=app@3\n');
    await viteBuild({
      root: repo,
      envDir,
      configFile: false,
      logLevel: 'silent',
      build: { outDir: join(work, 'release/vite-dotenv'), rollupOptions: { input: repoEntry } },
      plugins: [svcVitePlugin(uploadTo)],
    });
    expect(releaseInBundle(join(work, 'release/vite-dotenv'))).toBe('app@3');

    // Next.js and Create React App inline the variable themselves; plain webpack does not, so the page reads none.
    await withEnv({ NEXT_PUBLIC_SVC_SERVICE_VERSION: 'app@4' }, () =>
      ROOT_BUILDERS.webpack(repo, repoEntry, join(work, 'release/webpack-env'), uploadTo),
    );
    expect(releaseInBundle(join(work, 'release/webpack-env'))).toBeUndefined();
    expect(await releasesOf(join(work, 'release/webpack-env'))).toEqual([sha]);
  });
});
