/**
 * SDK builds (docs/sdk-build.md): one rollup run produces every format users install.
 *
 *   dist/esm/*.js            ES modules for bundlers; code-split, so the recorder (rrweb) is its own lazy chunk
 *   dist/cjs/*.cjs           CommonJS for `require` (Node SSR, Jest, older tooling)
 *   dist/types/*.d.ts|.d.cts bundled declarations, one self-contained file per entry and module system
 *   dist/cdn/svc.min.js      minified IIFE for a <script> tag: global `Svc`, every dependency but rrweb inlined
 *   dist/cdn/svc-recorder.min.js   minified IIFE with the recorder and rrweb, injected by svc.min.js when replay starts
 *   dist/cdn/svc-replay-worker.js  the replay compression worker, for `replay.workerUrl` under a strict CSP
 *
 * ESM and CJS keep dependencies external so that applications deduplicate them; only the CDN files bundle them.
 */
import { readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import commonjs from '@rollup/plugin-commonjs';
import nodeResolve from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import typescript from '@rollup/plugin-typescript';
import { dts } from 'rollup-plugin-dts';
import { internalNames } from './build/internal-names.mjs';
import { trimRrweb } from './build/rrweb-trim.mjs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

/** Module entries: each is a subpath of the `exports` map (`.`, `./auto`, `./react`, `./otel`). */
const entries = { index: 'src/index.ts', auto: 'src/auto.ts', react: 'src/react.ts', otel: 'src/otel.ts' };

/**
 * Syntax level of our own emitted code. ES2018 keeps optional chaining and `??` out of it (older webpack 4 based
 * toolchains cannot parse them) while async/await and object spread stay native. Dependencies keep their syntax.
 */
const TARGET = 'ES2018';

const dependencies = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})];
const isDependency = (id) => dependencies.some((name) => id === name || id.startsWith(`${name}/`));

/**
 * Bundled into every build instead of being a dependency, trimmed of what the SDK never records (build/rrweb-trim.mjs
 * says what and why): a dependency would be bundled by the application as published, canvas worker and all.
 */
const VENDORED = '@rrweb/record';

function compileTypeScript() {
  return typescript({
    tsconfig: './tsconfig.json',
    // Restricts the TypeScript program to the SDK and the shared wire types: the root tsconfig also covers the
    // server and the tests, which are not part of this build and would only slow it down.
    include: ['src/**/*.ts', 'wire/**/*.ts'],
    exclude: ['**/*.test.ts'],
    compilerOptions: { target: TARGET, noEmit: false, declaration: false, declarationMap: false, removeComments: true },
  });
}

/**
 * Writes the package.json version into `SDK_VERSION` (src/version.ts), so the version the SDK reports cannot drift
 * from the one published. Runs after TypeScript, on its JavaScript output, and fails the build if the placeholder
 * moved, rather than silently shipping the source placeholder.
 */
function sdkVersion() {
  const placeholder = "'0.0.0-source'";
  let replaced = false;
  return {
    name: 'sdk-version',
    transform(code, id) {
      if (!/[\\/]src[\\/]version\.ts$/.test(id)) return null;
      if (!code.includes(placeholder)) this.error(`src/version.ts no longer contains ${placeholder}`);
      replaced = true;
      return { code: code.replace(placeholder, JSON.stringify(pkg.version)), map: null };
    },
    buildEnd(error) {
      if (!error && !replaced) this.error('src/version.ts was not part of the build; SDK_VERSION was not set');
    },
  };
}

/**
 * `import.meta` outside ES modules. Only real ES modules have `import.meta`; in CJS it is a syntax error and in an
 * IIFE it is meaningless. src/config/env.ts reads `import.meta.env.VITE_*` (Vite substitutes those literals when it
 * bundles our ESM build), so for every other format this replaces `import.meta.env` with an empty object: the reads
 * then yield `undefined` and the `process.env.*` reads take over. Rollup's own fallback would render
 * `undefined.VITE_*`, which only works because every read is wrapped in try/catch; an empty object does not rely on
 * that, and lets terser drop the reads from the CDN file entirely.
 */
function importMetaEnvOutsideEsm() {
  return {
    name: 'import-meta-env-outside-esm',
    resolveImportMeta(property, { format }) {
      if (format === 'es') return null;
      if (property === 'env') return '({})';
      return null;
    },
  };
}

/** Fails the build on any warning: a warning here is a packaging bug (a missing export, a circular chunk, a bad map). */
function onwarn(warning) {
  throw new Error(`rollup warning (${warning.code ?? 'unknown'}): ${warning.message}`);
}

/**
 * Empties the output folders before the first build: chunk names carry a content hash, so chunks of an earlier
 * build would otherwise linger in dist/ and be published. `rollup -c` runs the configs in order, so this first.
 */
function cleanDist() {
  return {
    name: 'clean-dist',
    buildStart() {
      for (const dir of ['dist/esm', 'dist/cjs', 'dist/types', 'dist/cdn'])
        rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One output file per source module, mirroring src/ (and wire/ for the shared constants). Entries then never import
 * one another (plain chunking made `index.js` import `react.js` just to share the version constant, which would drag
 * React into non-React apps once the React entry imports it), every module tree-shakes on its own, and the
 * recorder's dynamic import is naturally a separate file: `replay/recorder.js`.
 */
function oneFilePerModule(extension) {
  return {
    preserveModules: true,
    preserveModulesRoot: 'src',
    // The vendored rrweb would otherwise land in dist/*/node_modules/, a folder npm leaves out of the package.
    entryFileNames: (chunk) =>
      chunk.name.includes('node_modules/') ? `vendor/rrweb-record.${extension}` : `[name].${extension}`,
  };
}

/** ESM and CJS: one module graph, two outputs; dependencies stay external. */
const modules = {
  input: entries,
  external: isDependency,
  plugins: [
    cleanDist(),
    nodeResolve({ browser: true, resolveOnly: [VENDORED] }),
    trimRrweb(),
    compileTypeScript(),
    internalNames(),
    sdkVersion(),
    importMetaEnvOutsideEsm(),
  ],
  treeshake: { moduleSideEffects: false },
  onwarn,
  output: [
    {
      dir: 'dist/esm',
      format: 'es',
      ...oneFilePerModule('js'),
      sourcemap: true,
    },
    {
      dir: 'dist/cjs',
      format: 'cjs',
      ...oneFilePerModule('cjs'),
      exports: 'named',
      // Keeps `require()` lazy for the recorder chunk, like `import()` is in the ESM build.
      dynamicImportInCjs: false,
      sourcemap: true,
    },
  ],
};

/**
 * The CDN build's recorder loader. A script file has no loader for extra chunks, so src/replay/load-recorder.ts's
 * `import('./recorder')` would inline rrweb into svc.min.js. In the CDN build every import of that module resolves
 * to src/cdn/load-recorder.ts instead, which injects svc-recorder.min.js with a <script> tag when replay starts. The
 * recipe body module (src/replay/load-bodies.ts's `import('./bodies')`) is swapped the same way: it lives in
 * svc-recorder.min.js, which a page recording recipes loads anyway. The swap is a resolve step rather than a second
 * entry that re-exports everything, so the core keeps importing one module name; src/cdn/load-recorder.ts types its
 * exports as `typeof` the originals, so they cannot drift apart. If a dynamic import were left anyway, the IIFE
 * output would inline it, so the build fails when a swap is missed.
 */
function cdnRecorderLoader() {
  const originals = ['load-recorder', 'load-bodies'].map((name) =>
    fileURLToPath(new URL(`./src/replay/${name}.ts`, import.meta.url)),
  );
  const replacement = fileURLToPath(new URL('./src/cdn/load-recorder.ts', import.meta.url));
  const swapped = new Set();
  return {
    name: 'cdn-recorder-loader',
    async resolveId(source, importer, options) {
      if (importer === undefined || importer === replacement) return null;
      const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
      if (resolved === null || !originals.includes(resolve(resolved.id))) return resolved;
      swapped.add(resolve(resolved.id));
      return replacement;
    },
    buildEnd(error) {
      const missed = originals.filter((original) => !swapped.has(original));
      if (!error && missed.length > 0)
        this.error(`${missed.join(', ')} not imported; the CDN recorder loader was not swapped in`);
    },
  };
}

/** The options both `<script>` files share: minified IIFE, dependencies inlined, a source map beside each. */
function scriptBuild({ input, file, banner, extraPlugins = [], ...output }) {
  return {
    input,
    plugins: [
      ...extraPlugins,
      nodeResolve({ browser: true }),
      commonjs(),
      compileTypeScript(),
      internalNames(),
      sdkVersion(),
      importMetaEnvOutsideEsm(),
    ],
    onwarn,
    output: {
      file,
      format: 'iife',
      sourcemap: true,
      // Only the CDN files carry a legal banner: in the module builds, bundlers would keep one `/*!` copy per file.
      banner: `/*! ${pkg.name} v${pkg.version} | ${pkg.license}${banner} */`,
      plugins: [terser({ ecma: 2018, compress: { passes: 2 }, format: { comments: /^!/ } })],
      ...output,
    },
  };
}

/** `<script>` build: svc.min.js exposing the global `Svc`, without rrweb. */
const cdn = scriptBuild({
  input: 'src/cdn.ts',
  file: 'dist/cdn/svc.min.js',
  banner: '',
  extraPlugins: [cdnRecorderLoader()],
  name: 'Svc',
  exports: 'named',
  // The outbox and the misconfiguration warnings (src/pipeline/) are dynamic imports in the module builds; a script
  // file has no chunk loader, so they are inlined here. The recorder and the recipe body module are not: their imports
  // are swapped above, and that swap fails the build if missed.
  inlineDynamicImports: true,
});

/**
 * dist/cdn/svc-replay-worker.js: the replay compression worker as a file of its own, for pages whose
 * Content-Security-Policy does not allow `blob:` workers (`replay.workerUrl`, docs/sdk-replay.md). Its text is
 * `WORKER_SOURCE` of src/replay/compression-worker.ts, the program the SDK otherwise starts from a `blob:` URL, read
 * from there (string literals joined by `+`) so that the two cannot differ; the build fails if it is not found.
 */
function replayWorkerFile() {
  return {
    name: 'replay-worker-file',
    generateBundle() {
      const source = readFileSync(new URL('./src/replay/compression-worker.ts', import.meta.url), 'utf8');
      const literal = /export const WORKER_SOURCE =\s*((?:'[^'\\]*'\s*\+?\s*)+);/.exec(source);
      if (!literal)
        this.error('WORKER_SOURCE (single-quoted literals joined by +) not found in src/replay/compression-worker.ts');
      const text = [...literal[1].matchAll(/'([^'\\]*)'/g)].map((match) => match[1]).join('');
      this.emitFile({ type: 'asset', fileName: 'svc-replay-worker.js', source: text });
    },
  };
}

/** svc-recorder.min.js: the recorder and rrweb; defines no global of its own (src/cdn/recorder-registry.ts). */
const cdnRecorder = scriptBuild({
  input: 'src/cdn/recorder.ts',
  file: 'dist/cdn/svc-recorder.min.js',
  banner: ' | includes rrweb (MIT), trimmed',
  extraPlugins: [trimRrweb(), replayWorkerFile()],
});

/**
 * Declarations: one build per entry so each file is self-contained. A shared declaration chunk would be imported
 * as `./chunk.js` from both `.d.ts` and `.d.cts`; under `moduleResolution: node16` TypeScript would then treat the
 * CommonJS twin as importing an ES module. Self-contained files make the `.d.cts` an exact copy of the `.d.ts`.
 */
const declarations = Object.entries(entries).map(([name, input]) => ({
  input,
  plugins: [dts({ tsconfig: './tsconfig.json' })],
  onwarn,
  output: [
    { file: `dist/types/${name}.d.ts`, format: 'es' },
    { file: `dist/types/${name}.d.cts`, format: 'es' },
  ],
}));

export default [modules, cdn, cdnRecorder, ...declarations];
