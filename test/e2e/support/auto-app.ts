import { join } from 'node:path';
import { ROOT } from '../../support/build-sdk';

/**
 * `/auto` bundled as an application bundler bundles it (esbuild, from the built ESM entry, Vite's variables defined
 * the way Vite inlines them), so a page runs the real zero-config start. Returns the script's text.
 */
export async function autoApp(env: Record<string, string>): Promise<string> {
  const { build } = await import('esbuild');
  const define = Object.fromEntries(
    Object.entries(env).map(([name, value]) => [`import.meta.env.${name}`, JSON.stringify(value)]),
  );
  const result = await build({
    stdin: { contents: "import '@svc/browser/auto';", resolveDir: ROOT, loader: 'js' },
    alias: { '@svc/browser/auto': join(ROOT, 'dist/esm/auto.js') },
    bundle: true,
    format: 'iife',
    minify: true,
    write: false,
    define,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}
