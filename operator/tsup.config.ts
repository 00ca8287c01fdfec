import { defineConfig } from 'tsup';

// esbuild bundles the operator's own modules; npm dependencies stay external (installed beside dist/ in the image).
export default defineConfig([
  {
    entry: { cli: 'src/cli.ts', main: 'src/main.ts' },
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    outDir: 'dist',
    // No `clean`: both builds write under dist/ at once; the build script empties it first.
    sourcemap: true,
    dts: false,
  },
  {
    // Loaded by `node --require`, which takes CommonJS; it runs inside the application's process. The OpenTelemetry
    // packages stay external: the agent image installs them beside it (images/nodejs/package.json).
    entry: { 'agents/node/register': 'agents/node/register.ts' },
    external: [/^@opentelemetry\//],
    format: ['cjs'],
    platform: 'node',
    target: 'node18',
    outDir: 'dist',
    sourcemap: false,
    dts: false,
  },
]);
