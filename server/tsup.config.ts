import { defineConfig } from 'tsup';

// esbuild bundles the server's own modules and the shared ../wire types into dist/; npm dependencies stay external.
export default defineConfig({
  // The ingest writer thread is an entry of its own: the server starts it from dist/ (src/ingest/sqlite-thread-writer.ts).
  entry: { cli: 'src/cli.ts', index: 'src/index.ts', 'sqlite-writer-thread': 'src/ingest/sqlite-writer-thread.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node20',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  dts: false,
  splitting: true,
});
