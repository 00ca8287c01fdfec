import { dirname, resolve } from 'node:path';
import { createUnplugin, type UnpluginOptions } from 'unplugin';
import { processOutput, summarize, type ProcessOptions } from './core/process';
import { resolveRelease } from './core/release';
import { JS_FILE } from './core/scan';
import { defineEsbuildRelease, defineWebpackRelease, viteReleaseDefine } from './sdk-release';

export interface SvcBuildOptions {
  /** The svc server's base URL, e.g. `https://svc.example.com`. Default: the `SVC_URL` environment variable. */
  url?: string;
  /** A control key of the project (`svc_control_…`). Default: the `SVC_CONTROL_KEY` environment variable. */
  authToken?: string;
  /**
   * Stored with the maps (the fallback key, release + URL, for files without a debug ID) and defined for the SDK to send
   * as `service.version`, unless the app sets its variable. Default: the `SVC_RELEASE` environment variable, else the
   * commit SHA of the build's directory (`git rev-parse HEAD`), else none.
   */
  release?: string;
  /** Joined to each file's path in the output directory to give its URL; `~/` matches any origin. Default `~/`. */
  urlPrefix?: string;
  /**
   * After a successful upload, deletes the maps and their `//# sourceMappingURL=` comments from the output, so they
   * are never served. Default false, except when the plugin turned maps on itself (Vite without `build.sourcemap`,
   * `withSvc` for Next.js).
   */
  deleteMapsAfterUpload?: boolean;
  /** False injects debug IDs only (e.g. to upload later with `svc-server sourcemaps upload`). Default true. */
  upload?: boolean;
}

const PREFIX = '[@svc/build]';

/** The options of one build, checked; `mapsOurs` says the plugin turned maps on, so they are deleted by default. */
function resolveOptions(options: SvcBuildOptions, env: NodeJS.ProcessEnv, mapsOurs = false): ProcessOptions {
  const upload = options.upload ?? true;
  if (!upload) {
    if (options.deleteMapsAfterUpload)
      throw new Error(`${PREFIX} deleteMapsAfterUpload needs upload: maps deleted without an upload are lost`);
    return { upload: null };
  }
  const url = options.url ?? env.SVC_URL;
  const controlKey = options.authToken ?? env.SVC_CONTROL_KEY;
  const skip = 'or set `upload: false` to inject debug IDs only';
  if (!url) throw new Error(`${PREFIX} no server to upload source maps to: set the \`url\` option or SVC_URL, ${skip}`);
  if (!controlKey)
    throw new Error(
      `${PREFIX} no control key to upload source maps with: set the \`authToken\` option or SVC_CONTROL_KEY, ${skip}`,
    );
  return {
    upload: { url, controlKey, release: options.release, urlPrefix: options.urlPrefix },
    deleteMapsAfterUpload: options.deleteMapsAfterUpload ?? mapsOurs,
  };
}

/**
 * Processes what a build wrote: `files` are paths relative to the output directory `dir` (as the bundler lists them) or
 * absolute; `options.release` is the build's resolved release.
 */
export async function processBuild(
  options: SvcBuildOptions,
  dir: string,
  files: readonly string[],
  mapsOurs = false,
): Promise<void> {
  const resolved = resolveOptions(options, process.env, mapsOurs);
  const js = files.filter((f) => JS_FILE.test(f)).map((f) => resolve(dir, f));
  const result = await processOutput(dir, js, resolved);
  console.info(`${PREFIX} ${summarize(result, resolved.upload !== null)}`);
}

/** Next.js compiles its server and edge code with webpack compilers of these names; only the browser's code gets ids. */
const NEXT_SERVER_COMPILERS = new Set(['server', 'edge-server']);

function webpackHook(options: SvcBuildOptions): NonNullable<UnpluginOptions['webpack']> {
  return (compiler) => {
    if (NEXT_SERVER_COMPILERS.has(compiler.options.name ?? '')) return;
    const release = resolveRelease(options.release, process.env, compiler.context);
    defineWebpackRelease(compiler, release);
    compiler.hooks.afterEmit.tapPromise('@svc/build', async (compilation) => {
      const dir = compilation.outputOptions.path ?? compiler.outputPath;
      await processBuild(
        { ...options, release },
        dir,
        compilation.getAssets().map((asset) => asset.name),
      );
    });
  };
}

function esbuildHook(options: SvcBuildOptions): NonNullable<UnpluginOptions['esbuild']>['setup'] {
  return (build) => {
    const initial = build.initialOptions;
    const cwd = initial.absWorkingDir ?? process.cwd();
    const release = resolveRelease(options.release, process.env, cwd);
    defineEsbuildRelease(initial, release);
    // The metafile lists what this build wrote, so files in the output directory from elsewhere are left alone.
    initial.metafile = true;
    build.onEnd(async (result) => {
      if (result.errors.length > 0 || !result.metafile) return;
      if (initial.write === false)
        throw new Error(`${PREFIX} needs esbuild's \`write: true\`: it processes the files once they are on disk`);
      const outdir = initial.outdir ?? (initial.outfile ? dirname(initial.outfile) : undefined);
      if (outdir === undefined) throw new Error(`${PREFIX} needs esbuild's \`outdir\` or \`outfile\``);
      const dir = resolve(cwd, outdir);
      const files = Object.keys(result.metafile.outputs).map((path) => resolve(cwd, path));
      await processBuild({ ...options, release }, dir, files);
    });
  };
}

/** One implementation for every bundler (unplugin): it works on the output once the bundler has written it. */
export const svcBuild = createUnplugin<SvcBuildOptions | undefined>((options = {}) => {
  let mapsOurs = false;
  let viteRelease: string | undefined;
  return {
    name: '@svc/build',
    enforce: 'post',
    rollup: {
      // Rollup has no variables of its own for the SDK to read: the app passes the release to it (docs/build-plugin.md).
      async writeBundle(output, bundle) {
        const release = resolveRelease(options.release, process.env, process.cwd());
        await processBuild({ ...options, release }, output.dir ?? dirname(output.file ?? '.'), Object.keys(bundle));
      },
    },
    vite: {
      apply: 'build',
      async config(config, { mode }) {
        const root = resolve(config.root ?? '.');
        viteRelease = resolveRelease(options.release, process.env, root);
        const define = await viteReleaseDefine(config, root, mode, viteRelease);
        if (config.build?.sourcemap !== undefined) return { define };
        // Maps are what the plugin is for: made but not referenced from the files ("hidden"), and deleted after upload.
        mapsOurs = true;
        return { define, build: { sourcemap: 'hidden' } };
      },
      async writeBundle(output, bundle) {
        // A server-side rendering build runs in Node.js, not in the pages the SDK watches.
        if (this.environment?.config.consumer === 'server') return;
        await processBuild(
          { ...options, release: viteRelease },
          output.dir ?? dirname(output.file ?? '.'),
          Object.keys(bundle),
          mapsOurs,
        );
      },
    },
    webpack: webpackHook(options),
    esbuild: { setup: esbuildHook(options) },
  };
});
