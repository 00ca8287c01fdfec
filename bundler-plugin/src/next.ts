import type { WebpackPluginInstance } from 'webpack';
import type { SvcBuildOptions } from './plugin';
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

/** The parts of a Next.js config this helper reads and sets (Next's own types are not a dependency). */
export interface NextConfigLike {
  productionBrowserSourceMaps?: boolean;
  webpack?: NextWebpackHook | null;
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
export type NextConfigFunction<C extends object = NextConfigLike> = (phase: string, context: { defaultConfig: NextConfigLike }) => C | Promise<C>;

/** The phase of `next build` (next/constants PHASE_PRODUCTION_BUILD). */
const PHASE_PRODUCTION_BUILD = 'phase-production-build';

export const TURBOPACK_ADVICE =
  '@svc/build: this `next build` uses Turbopack (the default since Next.js 16), which runs no webpack plugin, so the ' +
  'build would get no debug IDs and upload no source maps. Build with webpack: `next build --webpack` ' +
  '(e.g. "build": "next build --webpack" in package.json).';

/** Browser chunks are written to `.next/static/…` and served from `/_next/static/…`. */
const NEXT_URL_PREFIX = '~/_next/';

function withPlugin<C extends object>(config: C & NextConfigLike, options: SvcBuildOptions): C & NextConfigLike {
  const userWebpack = config.webpack;
  return {
    ...config,
    productionBrowserSourceMaps: true,
    webpack(webpackConfig, context) {
      const result = userWebpack ? userWebpack(webpackConfig, context) : webpackConfig;
      // Server and edge code runs on the server, where the SDK does not: only the browser build gets debug IDs.
      if (!context.isServer) {
        const plugin: WebpackPluginInstance = svcWebpackPlugin({
          urlPrefix: NEXT_URL_PREFIX,
          // The maps were turned on here, for svc only: they leave the output once uploaded, unless asked to stay.
          deleteMapsAfterUpload: config.productionBrowserSourceMaps !== true && options.upload !== false,
          ...options,
        });
        result.plugins = [...(result.plugins ?? []), plugin];
      }
      return result;
    },
  };
}

/**
 * Wraps a Next.js config for `next build --webpack`: browser source maps on, and the svc webpack plugin in the client
 * compilation. Other phases (`next dev`, `next start`) get the config unchanged. A Turbopack build fails with advice.
 */
export function withSvc<C extends object = NextConfigLike>(
  nextConfig: (C & NextConfigLike) | NextConfigFunction<C & NextConfigLike> = {} as C,
  options: SvcBuildOptions = {},
): NextConfigFunction<C & NextConfigLike> {
  return async (phase, context) => {
    const config = typeof nextConfig === 'function' ? await nextConfig(phase, context) : nextConfig;
    if (phase !== PHASE_PRODUCTION_BUILD) return config;
    // `next build` sets TURBOPACK (to `auto` when no bundler flag is given) before it loads the config.
    if (process.env.TURBOPACK) throw new Error(TURBOPACK_ADVICE);
    return withPlugin(config, options);
  };
}

export default withSvc;
