import { defineConfig } from 'tsup';

// One file per entry point (package.json `exports`), as ES modules and CommonJS (for a CommonJS webpack.config.js or
// next.config.js), with their type declarations. unplugin and the bundlers stay external.
export default defineConfig({
  entry: ['src/index.ts', 'src/vite.ts', 'src/rollup.ts', 'src/webpack.ts', 'src/esbuild.ts', 'src/next.ts'],
  format: ['esm', 'cjs'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  dts: true,
  sourcemap: false,
  splitting: true,
});
