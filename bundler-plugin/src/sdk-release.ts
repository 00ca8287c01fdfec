import { resolve } from 'node:path';
import type { BuildOptions } from 'esbuild';
import type { UserConfig } from 'vite';
import type { Compiler } from 'webpack';

/**
 * The variables the SDK's zero-config reads its release (`service.version`) from (src/config/env.ts). Defining them at
 * build time makes the SDK send the release the maps are stored under, with no change to the SDK.
 */
const VITE_VARIABLE = 'VITE_SVC_SERVICE_VERSION';
const PROCESS_ENV_VARIABLES = ['NEXT_PUBLIC_SVC_SERVICE_VERSION', 'REACT_APP_SVC_SERVICE_VERSION'] as const;

const setIn = (env: NodeJS.ProcessEnv, name: string) => Boolean(env[name]?.trim());

/** `process.env.<variable>` of every webpack-style variable, as `define` entries. */
const processEnvDefines = (release: string) =>
  Object.fromEntries(PROCESS_ENV_VARIABLES.map((name) => [`process.env.${name}`, JSON.stringify(release)]));

/**
 * Vite's `define` of the SDK's variable, unless the app gave it a value: in the environment or a `.env` file of `mode`
 * (what Vite itself would inline), or in its own `define`.
 */
export async function viteReleaseDefine(
  config: UserConfig,
  root: string,
  mode: string,
  release: string | undefined,
): Promise<Record<string, string>> {
  const expression = `import.meta.env.${VITE_VARIABLE}`;
  if (release === undefined || config.define?.[expression] !== undefined) return {};
  // Loaded here, not at the top: this module also serves builds by webpack, Rollup and esbuild, which may lack Vite.
  const { loadEnv } = await import('vite');
  const envDir = config.envDir === false ? false : resolve(root, config.envDir ?? '.');
  if (setIn(loadEnv(mode, envDir, VITE_VARIABLE), VITE_VARIABLE)) return {};
  return { [expression]: JSON.stringify(release) };
}

type Definitions = Record<string, unknown>;

/** Whether a webpack DefinePlugin's definitions give `process.env.<name>` a value, directly or in a `process.env` object (Create React App's way). */
function defines(definitions: Definitions, name: string): boolean {
  const processEnv = definitions['process.env'];
  return (
    definitions[`process.env.${name}`] !== undefined ||
    (typeof processEnv === 'object' && processEnv !== null && name in processEnv)
  );
}

/**
 * webpack: a DefinePlugin for the SDK's variables, unless the app set one of them, in the environment (Next.js and
 * Create React App inline those, `.env` files included) or in a DefinePlugin of its own (Next's, which holds the `env`
 * withSvc sets, included). Setting one counts for both, since the SDK takes the first variable that has a value.
 */
export function defineWebpackRelease(compiler: Compiler, release: string | undefined): void {
  if (release === undefined) return;
  // Duck-typed: Next.js brings its own copy of webpack, whose DefinePlugin is another class than this package's.
  const appDefinitions = compiler.options.plugins.flatMap((plugin) => {
    const definitions: unknown = (plugin as { definitions?: unknown } | null)?.definitions;
    return typeof definitions === 'object' && definitions !== null ? [definitions as Definitions] : [];
  });
  if (PROCESS_ENV_VARIABLES.some((name) => setIn(process.env, name) || appDefinitions.some((d) => defines(d, name))))
    return;
  new compiler.webpack.DefinePlugin(processEnvDefines(release)).apply(compiler);
}

/**
 * Next.js (webpack and Turbopack alike): the config's `env` with the SDK's variable added, which Next inlines as
 * `process.env.<name>` in every compilation; unchanged when the app set either variable in the environment (Next has
 * loaded its `.env` files by the time it calls the config) or in `env` itself.
 */
export function nextReleaseEnv(
  env: Record<string, string | undefined> | undefined,
  release: string | undefined,
): Record<string, string | undefined> | undefined {
  if (
    release === undefined ||
    PROCESS_ENV_VARIABLES.some((name) => setIn(process.env, name) || env?.[name] !== undefined)
  )
    return env;
  return { ...env, [PROCESS_ENV_VARIABLES[0]]: release };
}

/** esbuild: the webpack-style variables in `define`, under the same rule as webpack's. */
export function defineEsbuildRelease(options: BuildOptions, release: string | undefined): void {
  if (release === undefined) return;
  const define = options.define ?? {};
  if (PROCESS_ENV_VARIABLES.some((name) => setIn(process.env, name) || define[`process.env.${name}`] !== undefined))
    return;
  options.define = { ...define, ...processEnvDefines(release) };
}
