import { rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { WebpackPluginInstance } from 'webpack';
import { resolveRelease } from './core/release';
import { findFiles, findJsFiles } from './core/scan';
import { processBuild, type SvcBuildOptions } from './plugin';
import { nextReleaseEnv } from './sdk-release';
import { svcWebpackPlugin } from './webpack';

export type { SvcBuildOptions } from './plugin';

/**
 * Next's `webpack` hook. Declared through a method so its parameters compare bivariantly: an app's config typed as
 * Next's own `NextConfig` has a hook whose context is Next's full `WebpackConfigContext`, which this narrower type must
 * accept (the usual way to type a callback without depending on the package that calls it).
 */
type NextWebpackHook = {
  hook(config: WebpackConfigLike, context: NextWebpackContext): WebpackConfigLike;
}['hook'];

/** What Next passes `compiler.runAfterProductionCompile` once it has compiled (both absolute paths). */
export interface NextCompileMetadata {
  projectDir: string;
  distDir: string;
}

/** The parts of a Next.js config this helper reads and sets (Next's own types are not a dependency). */
export interface NextConfigLike {
  productionBrowserSourceMaps?: boolean;
  env?: Record<string, string | undefined>;
  webpack?: NextWebpackHook | null;
  compiler?: {
    runAfterProductionCompile?: (metadata: NextCompileMetadata) => Promise<void>;
  };
}
export interface WebpackConfigLike {
  plugins?: unknown[];
  [key: string]: unknown;
}
/** The part of Next's `WebpackConfigContext` this helper reads (no index signature: Next's interface has none). */
export interface NextWebpackContext {
  isServer: boolean;
}
/** Next's function form of a config; `C` is the app's own config type (Next's `NextConfig`, or an object literal). */
export type NextConfigFunction<C extends object = NextConfigLike> = (
  phase: string,
  context: { defaultConfig: NextConfigLike },
) => C | Promise<C>;

/** The phase of `next build` (next/constants PHASE_PRODUCTION_BUILD). */
const PHASE_PRODUCTION_BUILD = 'phase-production-build';

/** Browser chunks are written to `.next/static/…` and served from `/_next/static/…`. */
const NEXT_URL_PREFIX = '~/_next/';

/** Adds the svc webpack plugin to the client compilation: server and edge code runs where the SDK does not. */
function withWebpackPlugin<C extends object>(config: C & NextConfigLike, options: SvcBuildOptions): C & NextConfigLike {
  const userWebpack = config.webpack;
  return {
    ...config,
    webpack(webpackConfig, context) {
      const result = userWebpack ? userWebpack(webpackConfig, context) : webpackConfig;
      if (!context.isServer) {
        const plugin: WebpackPluginInstance = svcWebpackPlugin(options);
        result.plugins = [...(result.plugins ?? []), plugin];
      }
      return result;
    },
  };
}

/** The first Next.js with `compiler.runAfterProductionCompile`. */
const COMPILE_HOOK_SINCE = [15, 4, 1] as const;

/** The version of the `next` package `dir` resolves, or undefined when there is none to find. */
function nextVersionAt(dir: string): string | undefined {
  try {
    return (createRequire(join(dir, 'package.json'))('next/package.json') as { version?: string }).version;
  } catch {
    return undefined;
  }
}

/** Whether a Next.js `version` (`16.0.1`, `15.4.1-canary.3`) has the hook. */
function hasCompileHook(version: string): boolean {
  const parts = version.split(/[.-]/, 3).map(Number);
  for (const [i, since] of COMPILE_HOOK_SINCE.entries()) {
    if (parts[i] !== since) return (parts[i] ?? 0) > since;
  }
  return true;
}

/**
 * Deletes the source maps under `dir` that no JavaScript file claimed: Turbopack writes one for Next's polyfill file,
 * which Next then serves under another name with no `sourceMappingURL`. (CSS maps are left, as in webpack builds.)
 */
async function removeStrayMaps(dir: string): Promise<void> {
  for (const map of await findFiles(dir, /\.js\.map$/)) await rm(map);
}

/**
 * Turbopack runs no webpack plugin: the files are processed on disk once Next has compiled, in its
 * `compiler.runAfterProductionCompile` hook (after the app's own), by the pass `svc-server sourcemaps upload` makes on
 * a directory.
 */
function withCompileHook<C extends object>(config: C & NextConfigLike, options: SvcBuildOptions): C & NextConfigLike {
  const version = nextVersionAt(process.cwd());
  if (version !== undefined && !hasCompileHook(version)) {
    throw new Error(
      `@svc/build: this \`next build\` uses Turbopack, and Next.js ${version} has no \`compiler.runAfterProductionCompile\` ` +
        `hook to add debug IDs and upload the maps after it (Next.js ${COMPILE_HOOK_SINCE.join('.')} or later has): upgrade ` +
        'Next.js, or build with webpack: `next build --webpack`.',
    );
  }
  const userHook = config.compiler?.runAfterProductionCompile;
  return {
    ...config,
    compiler: {
      ...config.compiler,
      async runAfterProductionCompile(metadata: NextCompileMetadata) {
        if (userHook) await userHook(metadata);
        // Only the browser's chunks, as with webpack; named from distDir, they get URLs under /_next/static/.
        const browser = join(metadata.distDir, 'static');
        await processBuild(options, metadata.distDir, await findJsFiles(browser));
        if (options.deleteMapsAfterUpload) await removeStrayMaps(browser);
      },
    },
  };
}

/**
 * Wraps a Next.js config for `next build`: browser source maps on, the release in `env` for the SDK, and the svc
 * plugin's work on the browser chunks, by the webpack plugin in the client compilation (`next build --webpack`) or, with
 * Turbopack (the default since Next.js 16), in the hook Next runs after compiling. Other phases (`next dev`, `next
 * start`) get the config unchanged.
 */
export function withSvc<C extends object = NextConfigLike>(
  nextConfig: (C & NextConfigLike) | NextConfigFunction<C & NextConfigLike> = {} as C,
  options: SvcBuildOptions = {},
): NextConfigFunction<C & NextConfigLike> {
  return async (phase, context) => {
    const config = typeof nextConfig === 'function' ? await nextConfig(phase, context) : nextConfig;
    if (phase !== PHASE_PRODUCTION_BUILD) return config;
    // Next calls the config from the project's directory (the usual case) or the one `next build <dir>` ran in.
    const release = resolveRelease(options.release, process.env, process.cwd());
    const env = nextReleaseEnv(config.env, release);
    const resolved: SvcBuildOptions = {
      urlPrefix: NEXT_URL_PREFIX,
      // The maps were turned on here, for svc only: they leave the output once uploaded, unless asked to stay.
      deleteMapsAfterUpload: config.productionBrowserSourceMaps !== true && options.upload !== false,
      ...options,
      release,
    };
    const withMaps = { ...config, productionBrowserSourceMaps: true, ...(env && { env }) };
    // `next build` sets TURBOPACK (to `auto` when no bundler flag is given) before it loads the config.
    return process.env.TURBOPACK ? withCompileHook(withMaps, resolved) : withWebpackPlugin(withMaps, resolved);
  };
}

export default withSvc;
