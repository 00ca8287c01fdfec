import { defineConfig } from 'tsup';

// esbuild bundles the server's own modules and the shared ../wire types into dist/; npm dependencies stay external.
export default defineConfig({
  entry: { cli: 'src/cli.ts', index: 'src/index.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  dts: false,
  splitting: true,
});
