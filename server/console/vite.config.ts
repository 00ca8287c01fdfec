import { defineConfig } from 'vite';

/**
 * The console builds into the server's dist/console/, served at `/` by server/src/console/routes.ts. Asset names carry
 * a content hash under /console/assets/, so the server can let browsers keep them for good.
 */
export default defineConfig({
  root: import.meta.dirname,
  base: '/console/',
  // JSX with React's automatic runtime through Vite's own transform: no plugin needed for a production build.
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    // The CSP allows no inline script: no module-preload polyfill snippet.
    modulePreload: { polyfill: false },
    sourcemap: true,
    // .vite/manifest.json: which chunks a page loads first (test/integration/console-build.test.ts budgets them).
    manifest: true,
    chunkSizeWarningLimit: 700,
  },
});
